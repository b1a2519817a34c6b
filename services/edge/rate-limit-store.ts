// Where rate-limit counts live. In memory, each edge replica counts alone (the real limit is
// replicas x the setting), which suits one process (`npm start`). In NATS KV every replica
// counts in one fixed window per key, with compare-and-set on the key's revision: the edge
// reaches NATS anyway and never reaches PostgreSQL.
import { hash } from "node:crypto";
import { Kvm, type KV } from "@nats-io/kv";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { Logger } from "@waybill/platform/logger.js";
import type { Bus } from "@waybill/platform/nats.js";

export interface RateLimitResult {
  allowed: boolean;
  remaining: number;
  msBeforeNext: number;
}

export interface RateLimiter {
  consume(key: string): Promise<RateLimitResult>;
}

export interface RateLimitStore {
  /** A limiter of `points` per `windowSeconds`; `name` keeps limiters apart in a shared store. */
  limiter(name: string, points: number, windowSeconds: number): RateLimiter;
}

export const RATE_LIMIT_BUCKET = "RATE_LIMITS";
/** Counts are kept this long; windows longer than this are refused by the config. */
export const RATE_LIMIT_BUCKET_TTL_MS = 2 * 60 * 60 * 1000;
/**
 * Compare-and-set attempts before a request is let through uncounted. Each round only one of the
 * requests racing for a key wins, so a burst of N needs up to N rounds; with the jittered pause
 * below the losers spread out instead of colliding again at once.
 */
const MAX_CAS_ATTEMPTS = 32;
/** Upper bound of the random pause after a lost compare-and-set, doubling from 1 ms. */
const MAX_CAS_PAUSE_MS = 16;

export function memoryRateLimitStore(): RateLimitStore {
  return {
    limiter(_name, points, windowSeconds) {
      const limiter = new RateLimiterMemory({ points, duration: windowSeconds });
      return {
        async consume(key) {
          try {
            const state = await limiter.consume(key);
            return { allowed: true, remaining: state.remainingPoints, msBeforeNext: state.msBeforeNext };
          } catch (rejected) {
            if (!(rejected instanceof RateLimiterRes)) throw rejected;
            return { allowed: false, remaining: 0, msBeforeNext: rejected.msBeforeNext };
          }
        },
      };
    },
  };
}

export async function natsRateLimitStore(bus: Bus, options: { prefix: string; replicas: number; logger: Logger }): Promise<RateLimitStore> {
  const kvm = new Kvm(bus.js);
  const bucket = `${options.prefix}${RATE_LIMIT_BUCKET}`;
  let kv: KV;
  try {
    // No direct gets: a follower's read may lag, and a stale revision only makes compare-and-set retry.
    kv = await kvm.create(bucket, { history: 1, ttl: RATE_LIMIT_BUCKET_TTL_MS, replicas: options.replicas, allow_direct: false });
  } catch (error) {
    // Exists with settings an operator changed (e.g. more replicas): use it as it is.
    options.logger.info({ bucket, err: (error as Error).message }, "using the existing rate-limit bucket");
    kv = await kvm.open(bucket);
  }
  return {
    limiter(name, points, windowSeconds) {
      const windowMs = windowSeconds * 1000;
      return {
        async consume(key) {
          const now = Date.now();
          const window = Math.floor(now / windowMs);
          const msBeforeNext = (window + 1) * windowMs - now;
          // Hashed: credential ids and addresses hold characters KV keys do not allow.
          const entry = `${name}.${window}.${hash("sha256", key, "base64url").slice(0, 22)}`;
          for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
            const current = await kv.get(entry);
            const used = current && current.operation === "PUT" ? Number(current.string()) : 0;
            if (used >= points) return { allowed: false, remaining: 0, msBeforeNext };
            try {
              if (used === 0) await kv.create(entry, String(1));
              else await kv.update(entry, String(used + 1), current!.revision);
              return { allowed: true, remaining: points - used - 1, msBeforeNext };
            } catch (error) {
              // Another request counted first: pause a random moment, then read again.
              if (!/wrong last sequence|key exists/i.test((error as Error).message)) throw error;
              await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(MAX_CAS_PAUSE_MS, 2 ** attempt)));
            }
          }
          options.logger.warn({ limiter: name }, "rate-limit count contended; request let through");
          return { allowed: true, remaining: 0, msBeforeNext };
        },
      };
    },
  };
}
