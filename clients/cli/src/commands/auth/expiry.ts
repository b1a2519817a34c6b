// --expires for login: a duration (90d, 12h, 30m) or an ISO 8601 time; 90 days when absent.
import { InvalidArgumentError } from "commander";

export const DEFAULT_LOGIN_DAYS = 90;
const DURATION = /^(\d+)\s*(d|h|m)$/;
const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000 } as const;

/** The expiry as an ISO 8601 time; `now` for tests. */
export function expiryOf(value: string | undefined, now: number = Date.now()): string {
  if (value === undefined) return new Date(now + DEFAULT_LOGIN_DAYS * UNIT_MS.d).toISOString();
  const duration = DURATION.exec(value.trim());
  const at = duration ? now + Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS] : Date.parse(value);
  if (Number.isNaN(at)) throw new InvalidArgumentError("must be a duration such as 90d, 12h or 30m, or an ISO 8601 time");
  if (at <= now) throw new InvalidArgumentError("must be in the future");
  return new Date(at).toISOString();
}

/** Commander parser: checks the value at once (exit 2), keeps it as given. */
export function expiresOption(value: string): string {
  expiryOf(value);
  return value;
}
