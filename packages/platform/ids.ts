// Identifiers: a type prefix and a ULID body, so they sort by creation time.
import { randomFillSync } from "node:crypto";
import { monotonicFactory } from "ulid";

export const ID_PREFIXES = ["ord", "hook", "evt", "tok", "shp", "prd", "cus", "exe", "dev", "txn", "ten", "usr", "req", "adj"] as const;
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

const nextUlid = monotonicFactory(pooledRandom);

/** A bare ULID from the same pooled source (the ulid package's own default costs a system call per character). */
export function newUlid(): string {
  return nextUlid();
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
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
