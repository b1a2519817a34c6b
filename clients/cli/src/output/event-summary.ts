// One event on one line, for people: time, kind, id and the kind's own fields (listen, events tail).
import type { Colors } from "./colors.js";

/** The fields every event has; the rest is the kind's own. */
export const COMMON_EVENT_FIELDS = new Set(["id", "kind", "time", "transactionId"]);

export function eventFields(event: Record<string, unknown>, max = 100): string {
  const text = Object.entries(event)
    .filter(([key]) => !COMMON_EVENT_FIELDS.has(key))
    .map(([key, value]) => `${key}=${typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}`)
    .join(" ");
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function eventSummary(event: Record<string, unknown>, c: Colors): string {
  const time = typeof event.time === "string" ? event.time.slice(11, 19) : new Date().toISOString().slice(11, 19);
  return `${c.dim(time)}  ${c.cyan(String(event.kind).padEnd(24))} ${String(event.id)}  ${eventFields(event)}`;
}
