// Identifiers: a type prefix and a ULID body, so they sort by creation time.
import { hash, randomFillSync } from "node:crypto";
import { encodeTime, monotonicFactory } from "ulid";

export const ID_PREFIXES = ["ord", "hook", "evt", "tok", "shp", "prd", "cus", "exe", "dev", "txn", "ten", "usr", "req", "adj", "ses"] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

// ulid asks its PRNG for one value per character; drawing them from a buffer of crypto-random
// bytes refilled 4 KiB at a time avoids a system call per character.
const randomPool = Buffer.alloc(4096);
let randomOffset = randomPool.length;
function pooledRandom(): number {
  if (randomOffset >= randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  return randomPool[randomOffset++] / 256;
}

/** `bytes` random bytes (at most 64) as hex, from the same pool: trace and span ids on every request. */
export function randomHex(bytes: number): string {
  if (randomOffset + bytes > randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  const hex = randomPool.toString("hex", randomOffset, randomOffset + bytes);
  randomOffset += bytes;
  return hex;
}

const nextUlid = monotonicFactory(pooledRandom);

/** A bare ULID from the same pooled source (the ulid package's own default costs a system call per character). */
export function newUlid(): string {
  return nextUlid();
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * The id of something that stands for a thing already named elsewhere (e.g. the event of a stored
 * device message): the same `seed` and time always give the same id, so a redelivery of the same
 * input makes the same id and is recognised downstream. Sorts by `timeMs` like any other id.
 */
export function derivedId(prefix: IdPrefix, seed: string, timeMs: number): string {
  // The one-shot hash: a Hash object per id cost about 1.7 times as much (micro-benchmark).
  const digest = hash("sha256", seed, "buffer");
  let body = "";
  for (let i = 0; i < 16; i++) body += CROCKFORD[digest[i] & 31];
  return `${prefix}_${encodeTime(timeMs, 10).toLowerCase()}${body}`;
}

const ULID_BODY = "[0-9a-hjkmnp-tv-z]{26}";
const ID_PATTERN = new RegExp(`^([a-z]+)_${ULID_BODY}$`);

/** The pattern of one type's ids, e.g. for a request schema. */
export function idPattern(prefix: IdPrefix): RegExp {
  return new RegExp(`^${prefix}_${ULID_BODY}$`);
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  const match = ID_PATTERN.exec(id);
  return match !== null && match[1] === prefix;
}
