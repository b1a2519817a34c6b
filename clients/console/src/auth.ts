// The console's session endpoints (CONTRACTS.md §1), called with fetch: the refresh cookie is
// HttpOnly and Path=/v1/auth, so only these same-origin calls ever carry it, and no script reads it.
export interface AccessToken {
  accessToken: string;
  expiresAt: string;
}

export interface SessionRecord {
  id: string;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  userAgent: string | null;
  current: boolean;
}

export class AuthError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
  }
}

async function answer<T>(response: Response): Promise<T> {
  if (response.ok) return (response.status === 204 ? undefined : await response.json()) as T;
  const problem = (await response.json().catch(() => ({}))) as { detail?: string; title?: string; code?: string };
  throw new AuthError(problem.detail ?? problem.title ?? `HTTP ${response.status}`, response.status, problem.code ?? "unknown");
}

const JSON_HEADERS = { "content-type": "application/json" };

export async function login(email: string, password: string, remember: boolean): Promise<AccessToken> {
  return answer(await fetch("/v1/auth/login", { method: "POST", headers: JSON_HEADERS, body: JSON.stringify({ email, password, remember }) }));
}

/** A new access token from the refresh cookie; undefined when there is no live session. */
export async function refresh(): Promise<AccessToken | undefined> {
  const response = await fetch("/v1/auth/refresh", { method: "POST" });
  if (response.status === 401 || response.status === 404) return undefined;
  return answer(response);
}

export async function logout(): Promise<void> {
  await fetch("/v1/auth/logout", { method: "POST" }).catch(() => undefined);
}

export async function listSessions(token: string): Promise<SessionRecord[]> {
  const page = await answer<{ data: SessionRecord[] }>(await fetch("/v1/auth/sessions", { headers: { authorization: `Bearer ${token}` } }));
  return page.data;
}

export async function endSession(token: string, id: string): Promise<void> {
  await answer(await fetch(`/v1/auth/sessions/${encodeURIComponent(id)}`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } }));
}

/** The claims the console uses from its access JWT (it verifies nothing: the API does). */
export function claimsOf(jwt: string): { role: "admin" | "member"; sid?: string; sub?: string } {
  try {
    const payload = JSON.parse(atob(jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))) as { role?: string; sid?: string; sub?: string };
    return { role: payload.role === "admin" ? "admin" : "member", sid: payload.sid, sub: payload.sub };
  } catch {
    return { role: "member" };
  }
}
