// Parsers for option values; a bad value is a usage error (exit 2) before anything is sent.
import { InvalidArgumentError } from "commander";

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a positive whole number");
  return n;
}

export function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError("must be a whole number");
  return n;
}

export function isoTime(value: string): string {
  if (Number.isNaN(Date.parse(value))) throw new InvalidArgumentError("must be an ISO 8601 date or time, e.g. 2026-12-31T23:59:59Z");
  return value;
}

/** Repeatable and comma-separated: --on a --on b,c → [a, b, c]. */
export function list(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean),
  ];
}

export function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError("must be an http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InvalidArgumentError("must be an http(s) URL");
  return value;
}
