// The signed-in session. The access JWT lives in this module's memory only; staying signed in
// rests on the HttpOnly refresh cookie (never readable by script, never in localStorage): on
// start the console asks POST /v1/auth/refresh, refreshes a minute before expiry and once on a
// 401, and "Sign out" revokes the session on the server.
import { useQueryClient } from "@tanstack/react-query";
import { createWaybillClient, type WaybillClient } from "@waybill/sdk";
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import * as auth from "./auth.js";

export interface Session {
  token: string;
  expiresAt: number;
  email: string | undefined;
  role: "admin" | "member";
  sessionId: string | undefined;
  /** Opened without a network: no token; reads answer from the service worker's last copies. */
  offline?: boolean;
}

interface SessionState {
  /** undefined while the console asks whether a session lives on (the first moment after start). */
  session: Session | null | undefined;
  /** Why the last session ended, shown on the sign-in page. */
  endedBecause: string | undefined;
  api: WaybillClient;
  signIn(email: string, password: string, remember: boolean): Promise<void>;
  signOut(reason?: string): Promise<void>;
}

const SessionContext = createContext<SessionState | undefined>(undefined);
/**
 * The address of the account that chose "keep me signed in" on this browser (not a credential):
 * its presence says a refresh cookie may exist; the navigation's footer shows it.
 */
const ACCOUNT_KEY = "waybill.account";
const REFRESH_EARLY_MS = 60_000;
/** The service worker's copies of API reads (public/sw.js), deleted when a session ends. */
const API_CACHE = "waybill-api-v1";

function sessionOf(token: auth.AccessToken, email: string | undefined): Session {
  const claims = auth.claimsOf(token.accessToken);
  return { token: token.accessToken, expiresAt: Date.parse(token.expiresAt), email, role: claims.role, sessionId: claims.sid };
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [endedBecause, setEndedBecause] = useState<string | undefined>();
  const queries = useQueryClient();
  const current = useRef<Session | null | undefined>(undefined);
  current.current = session;
  // One refresh at a time: parallel 401s share it.
  const refreshing = useRef<Promise<Session | null> | null>(null);

  const end = useCallback((reason?: string) => {
    localStorage.removeItem(ACCOUNT_KEY);
    void globalThis.caches?.delete(API_CACHE).catch(() => undefined);
    current.current = null;
    setSession(null);
    setEndedBecause(reason);
  }, []);

  const renew = useCallback((): Promise<Session | null> => {
    refreshing.current ??= (navigator.onLine ? auth.refresh() : Promise.reject(new Error("offline")))
      .then((token) => {
        const next = token ? sessionOf(token, current.current?.email ?? localStorage.getItem(ACCOUNT_KEY) ?? undefined) : null;
        if (!token) localStorage.removeItem(ACCOUNT_KEY);
        current.current = next;
        setSession(next);
        return next;
      })
      .catch(() => {
        // No network: keep the session there is; at start, open read-only on the last copies
        // of what this account saw (it signs in for real when the network is back).
        if (current.current) return current.current;
        const email = localStorage.getItem(ACCOUNT_KEY);
        const offline: Session | null = email
          ? { token: "", expiresAt: Number.POSITIVE_INFINITY, email, role: "member", sessionId: undefined, offline: true }
          : null;
        current.current = offline;
        setSession(offline);
        return offline;
      })
      .finally(() => {
        refreshing.current = null;
      });
    return refreshing.current;
  }, []);

  const api = useMemo(() => {
    const client = createWaybillClient({ baseUrl: window.location.origin, token: () => current.current?.token ?? undefined });
    client.use({
      onRequest({ request }) {
        // Nothing is written while offline: a change must not wait and land later unseen.
        if (request.method !== "GET" && !navigator.onLine) throw new Error("You are offline: nothing was changed. Try again when the network is back.");
        return undefined;
      },
      // Registered after the SDK's own middleware, so it sees a 401 before the SDK throws it.
      async onResponse({ request, response }) {
        if (response.status !== 401 || !current.current) return undefined;
        const used = request.headers.get("authorization");
        const renewed = used === `Bearer ${current.current.token}` ? await renew() : current.current;
        if (!renewed) {
          end("Your session has ended; sign in again.");
          return undefined;
        }
        // A read goes once more with the new token (a second refusal stands); a write's body is
        // spent, so its refusal shows and the person tries again.
        if (request.method !== "GET") return undefined;
        const again = new Request(request, { headers: new Headers(request.headers) });
        again.headers.set("authorization", `Bearer ${renewed.token}`);
        return fetch(again);
      },
    });
    return client;
  }, [renew, end]);

  // On start: a session that lives on in the refresh cookie signs in without a password. Only
  // asked after a "keep me signed in" sign-in on this browser, so a signed-out start makes no
  // request that is bound to fail.
  useEffect(() => {
    if (localStorage.getItem(ACCOUNT_KEY) === null) setSession(null);
    else void renew();
  }, [renew]);

  // Opened offline: the real session as soon as the network is back.
  useEffect(() => {
    if (!session?.offline) return;
    const online = () => {
      current.current = null; // so a failed attempt opens read-only again instead of keeping this one
      void renew().then((next) => {
        if (!next) end("Your session has ended; sign in again.");
        else if (!next.offline) void queries.invalidateQueries(); // what was read from copies, read again
      });
    };
    window.addEventListener("online", online);
    return () => window.removeEventListener("online", online);
  }, [session, renew, end, queries]);

  // A minute before the access token expires, a new one; the session ends only when refresh fails.
  useEffect(() => {
    if (!session || session.offline) return;
    const timer = setTimeout(
      async () => {
        const next = await renew();
        if (!next) end("Your session has expired; sign in again.");
      },
      Math.max(0, session.expiresAt - Date.now() - REFRESH_EARLY_MS),
    );
    return () => clearTimeout(timer);
  }, [session, renew, end]);

  const signIn = useCallback(async (email: string, password: string, remember: boolean) => {
    const token = await auth.login(email, password, remember);
    if (remember) localStorage.setItem(ACCOUNT_KEY, email);
    else localStorage.removeItem(ACCOUNT_KEY);
    const next = sessionOf(token, email);
    current.current = next;
    setEndedBecause(undefined);
    setSession(next);
  }, []);

  const signOut = useCallback(
    async (reason?: string) => {
      await auth.logout();
      end(reason);
    },
    [end],
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

/** The signed-in session (screens render only inside one). */
export function useSignedIn(): Session {
  const { session } = useSession();
  if (!session) throw new Error("useSignedIn without a session");
  return session;
}
