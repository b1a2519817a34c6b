// The tenant's event log: every event seen on EVENTS, recorded once (with its fan-out, see
// fan-out.ts), listed newest first.
import type { Queryable } from "../platform/db.js";
import type { EventEnvelope } from "../platform/events/catalog.js";
import { decodeCursor, toPage, type Page } from "../platform/pagination.js";

export interface EventFilter {
  kind?: string;
  after?: string;
  limit: number;
  cursor?: string;
}

export async function listEvents(db: Queryable, tenantId: string, filter: EventFilter): Promise<Page<EventEnvelope>> {
  const before = decodeCursor(filter.cursor);
  const { rows } = await db.query<{ id: string; event: EventEnvelope }>(
    `SELECT id, event FROM event_log
      WHERE tenant_id = $1 AND ($2::text IS NULL OR kind = $2) AND ($3::timestamptz IS NULL OR time > $3)
        AND ($4::text IS NULL OR id < $4)
      ORDER BY id DESC LIMIT $5`,
    [tenantId, filter.kind ?? null, filter.after ?? null, before, filter.limit + 1],
  );
  const page = toPage(rows, filter.limit);
  return { data: page.data.map((r) => r.event), nextCursor: page.nextCursor };
}
