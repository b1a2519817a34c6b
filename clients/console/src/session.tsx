// The signed-in session: the JWT lives in this module's memory only (never localStorage or a
// cookie), so a reload or a closed tab signs out. Expiry, or any 401, ends the session and
// returns to the sign-in page with the reason.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { createWaybillClient, type WaybillClient } from "@waybill/sdk";

export interface Session {
  token: string;
  expiresAt: number;
  email: string;
  role: "admin" | "member";
}

interface SessionState {
  session: Session | undefined;
  /** Why the last session ended, shown on the sign-in page. */
  endedBecause: string | undefined;
  api: WaybillClient;
  signIn(email: string, password: string): Promise<void>;
  signOut(reason?: string): void;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

function roleOf(jwt: string): "admin" | "member" {
  try {
    const payload = JSON.parse(atob(jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))) as { role?: string };
    return payload.role === "admin" ? "admin" : "member";
  } catch {
    return "member";
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | undefined>();
  const [endedBecause, setEndedBecause] = useState<string | undefined>();
  const signOut = useCallback((reason?: string) => {
    setSession(undefined);
    setEndedBecause(reason);
  }, []);
  const api = useMemo(() => {
    let current: Session | undefined;
    const client = createWaybillClient({ baseUrl: window.location.origin, token: () => current?.token });
    // Registered after the SDK's own middleware, so it sees a 401 before the SDK throws it.
    client.use({
      onResponse({ response }) {
        if (response.status === 401 && current) signOut("Your session has ended; sign in again.");
        return undefined;
      },
    });
    return Object.assign(client, {
      setSession(next: Session | undefined) {
        current = next;
      },
    });
  }, [signOut]);
  useEffect(() => api.setSession(session), [api, session]);
  // Back to the sign-in page when the JWT expires, even with nothing on screen asking the API.
  useEffect(() => {
    if (!session) return;
    const timer = setTimeout(() => signOut("Your session has expired; sign in again."), Math.max(0, session.expiresAt - Date.now()));
    return () => clearTimeout(timer);
  }, [session, signOut]);
  const signIn = useCallback(
    async (email: string, password: string) => {
      const { data } = await api.POST("/auth/login", { body: { email, password } });
      const next = { token: data!.accessToken, expiresAt: Date.parse(data!.expiresAt), email, role: roleOf(data!.accessToken) };
      api.setSession(next);
      setEndedBecause(undefined);
      setSession(next);
    },
    [api],
  );
  const value = useMemo(() => ({ session, endedBecause, api, signIn, signOut }), [session, endedBecause, api, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error("useSession outside SessionProvider");
  return state;
}

/** The API client of the signed-in session. */
export function useApi(): WaybillClient {
  return useSession().api;
}
