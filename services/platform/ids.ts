// Identifiers: a type prefix and a ULID body, so they sort by creation time.
import { monotonicFactory } from "ulid";

export const ID_PREFIXES = [
  "ord", "hook", "evt", "tok", "shp", "prd", "cus", "exe", "dev", "txn", "ten", "usr", "req",
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const nextUlid = monotonicFactory();

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid().toLowerCase()}`;
}

const ID_PATTERN = /^([a-z]+)_[0-9a-hjkmnp-tv-z]{26}$/;

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  const match = ID_PATTERN.exec(id);
  return match !== null && match[1] === prefix;
}
