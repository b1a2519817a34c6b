// The tenant's event log: every event seen on EVENTS, recorded once (with its fan-out, see
// fan-out.ts), listed newest first.
import type { Queryable } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { hasPrefix } from "@waybill/platform/ids.js";
import { decodeCursor, toPage, type Page } from "@waybill/platform/pagination.js";

export interface EventFilter {
  kind?: string;
  /** An event id (evt_…) or an ISO 8601 date or date-time. */
  after?: string;
  limit: number;
  cursor?: string;
}

/** A page of events, newest first, each as its JSON text: passed on as it is (no parse and re-serialise per event). */
export async function listEvents(db: Queryable, tenantId: string, filter: EventFilter): Promise<Page<string>> {
  const before = decodeCursor(filter.cursor);
  const after = afterOf(filter.after);
  const { rows } = await db.query<{ id: string; event: string }>(
    `SELECT id, event::text AS event FROM event_log
      WHERE tenant_id = $1 AND ($2::text IS NULL OR kind = $2) AND ($3::timestamptz IS NULL OR time > $3)
        AND ($4::text IS NULL OR id < $4) AND ($6::text IS NULL OR id > $6)
      ORDER BY id DESC LIMIT $5`,
    [tenantId, filter.kind ?? null, after.time, before, filter.limit + 1, after.id],
  );
  const page = toPage(rows, filter.limit);
  return { data: page.data.map((r) => r.event), nextCursor: page.nextCursor };
}

/**
 * `after` is an event id or an ISO 8601 instant. Ids sort by creation time to the millisecond and
 * beyond (ULID bodies), so resuming from the last id seen skips nothing of the same millisecond,
 * which a time comparison would.
 */
function afterOf(after: string | undefined): { id: string | null; time: string | null } {
  if (!after) return { id: null, time: null };
  if (hasPrefix(after, "evt")) return { id: after, time: null };
  const time = new Date(after);
  if (!/^\d{4}-\d{2}-\d{2}/.test(after) || Number.isNaN(time.getTime())) {
    throw appError("invalid_query", "after must be an event id (evt_…) or an ISO 8601 date or date-time.");
  }
  return { id: null, time: time.toISOString() };
}
