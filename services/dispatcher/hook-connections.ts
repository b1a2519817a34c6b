// Each hook's requests go over connections of their own, at most as many as the hook may have
// requests in flight (its lane's places). The design before this one, a pool per receiver origin
// shared by every hook there, opened about twice as many connections as requests in flight: undici
// lets a socket whose answer has just ended be used again only after a turn of the event loop
// (client-h1.js, for servers that close a connection they said they would keep), and a lane's next
// request, sent in that same turn, found the pool below its limit and opened another. Capped per
// hook, it waits that turn in the pool instead; a receiver sees no more connections per hook than
// requests, and a hook cannot use up connections another hook of the same origin needs.
import { LRUCache } from "lru-cache";
import { Pool, type buildConnector } from "undici";

/** Hooks whose pools are kept between deliveries; beyond it, the least recently used hook's pool is closed. */
export const HOOK_POOLS_MAX = 10_000;

export interface HookConnectionsOptions {
  /** Connections one hook may have open at once: its requests in flight at most. */
  perHook: number;
  /** Opens a connection (the SSRF-guarded lookup, the connect timeout); shared by every hook's pool. */
  connect: buildConnector.connector;
  max?: number;
}

export interface HookConnections {
  /** The hook's pool for `origin` (a new one when its url moved to another origin). */
  poolFor(hookId: string, origin: string): Pool;
  /** Closes every pool once its requests in flight have ended. */
  close(): Promise<void>;
}

interface HookPool {
  origin: string;
  pool: Pool;
}

export function createHookConnections(options: HookConnectionsOptions): HookConnections {
  // Pools being closed (replaced, evicted or shut down): close() waits for them.
  const closing = new Set<Promise<void>>();
  const retire = (pool: Pool) => {
    const closed = pool.close().catch(() => {}); // already closed: nothing left to wait for
    closing.add(closed);
    void closed.finally(() => closing.delete(closed));
  };
  const pools = new LRUCache<string, HookPool>({ max: options.max ?? HOOK_POOLS_MAX, dispose: (entry) => retire(entry.pool) });

  return {
    poolFor(hookId, origin) {
      const entry = pools.get(hookId);
      if (entry !== undefined && entry.origin === origin) return entry.pool;
      const pool = new Pool(origin, { connections: options.perHook, connect: options.connect });
      pools.set(hookId, { origin, pool }); // a pool for the hook's former origin is retired
      return pool;
    },
    async close() {
      pools.clear();
      await Promise.all([...closing]);
    },
  };
}
