// A small HTTP client for tests and the fuzz and chaos runs: JSON in, status + headers + parsed
// body out, and a poll for a condition. No vitest here: scripts outside the runner import it.
// biome-ignore lint/suspicious/noExplicitAny: an answer is whatever JSON the API sent; tests read its fields and assert on them, so the default type is loose on purpose
export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

// biome-ignore lint/suspicious/noExplicitAny: the same loose default as Answer
export async function request<T = any>(
  url: string,
  init: { method?: string; token?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers["content-type"] ??= "application/json";
  }
  const response = await fetch(url, { method: init.method ?? (body === undefined ? "GET" : "POST"), headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON; keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

export async function eventually<T>(fn: () => Promise<T | undefined>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Asserts an RFC 9457 problem answer with this status and stable code. */
