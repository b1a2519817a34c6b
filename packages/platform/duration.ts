// Durations in settings: a whole number and a unit, e.g. 500ms, 30s, 5m, 2h, 5d.
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d{1,10})(ms|s|m|h|d)$/;

/** Milliseconds of "5s" and the like; throws with a readable message. */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration such as 500ms, 5s, 5m, 2h or 5d`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
