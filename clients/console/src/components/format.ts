// How times, counts and the API's status words read in the console.
export function when(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** "3 min ago", "2 h ago", or the date when older than a week. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "never";
  const ms = now - Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  if (ms < 45_000) return "just now";
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min ago`;
  if (ms < 86_400_000) return `${Math.round(ms / 3_600_000)} h ago`;
  if (ms < 7 * 86_400_000) return `${Math.round(ms / 86_400_000)} d ago`;
  return when(iso);
}

/** The API's camelCase words as people say them: `inProgress` → "In progress". */
export function humanize(word: string): string {
  const spaced = word.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

export function money(amount: string | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined) return "—";
  return currency ? `${amount} ${currency}` : amount;
}

export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
