// The tenant's event log: every event seen on EVENTS, recorded once (with its fan-out, see
// fan-out.ts), listed newest first, filtered by kind, transaction or the entity an event names;
// and one event by its id.
import type { Queryable } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { CLIENT_TRANSACTION_ID } from "@waybill/platform/context.js";
import type { AppError } from "@waybill/platform/errors.js";
import { hasPrefix, type IdPrefix } from "@waybill/platform/ids.js";
import { decodeCursor, toPage, type Page } from "@waybill/platform/pagination.js";

export interface EventFilter {
  kind?: string;
  /** Events of one operation (txn_…). */
  transactionId?: string;
  /** Events naming this order, shipment, product, customer or hook in a flat field of their payload. */
  entityId?: string;
  /** Events of this device (the id it connects with, as its events carry it). */
  deviceId?: string;
  /** An event id (evt_…) or an ISO 8601 date or date-time. */
  after?: string;
  limit: number;
  cursor?: string;
}

/**
 * The payload field that names an entity of each id prefix. Each has a partial index on
 * `(tenant_id, event->>'<field>', id DESC)` (migration 008): the query must use the same expression.
 */
const ENTITY_FIELD_BY_PREFIX = {
  ord: "orderId",
  shp: "shipmentId",
  prd: "productId",
  cus: "customerId",
  hook: "hookId",
} as const satisfies Partial<Record<IdPrefix, string>>;

export const ENTITY_ID_PREFIXES = Object.keys(ENTITY_FIELD_BY_PREFIX) as (keyof typeof ENTITY_FIELD_BY_PREFIX)[];

/** A page of events, newest first, each as its JSON text: passed on as it is (no parse and re-serialise per event). */
export async function listEvents(db: Queryable, tenantId: string, filter: EventFilter): Promise<Page<string>> {
  const { rows } = await db.query<{ id: string; event: string }>(eventsQuery(tenantId, filter));
  const page = toPage(rows, filter.limit);
  return { data: page.data.map((r) => r.event), nextCursor: page.nextCursor };
}

/**
 * The statement of a page: only the conditions given, each a literal expression matching an
 * index (no `$n IS NULL OR …`), so the planner takes the index of the filter and reads it in id
 * order. Exported for the test that checks those plans.
 */
export function eventsQuery(tenantId: string, filter: EventFilter): { text: string; values: unknown[] } {
  const values: unknown[] = [tenantId];
  const where = ["tenant_id = $1"];
  const add = (condition: (param: string) => string, value: unknown) => {
    values.push(value);
    where.push(condition(`$${values.length}`));
  };
  const before = decodeCursor(filter.cursor);
  const after = afterOf(filter.after);
  if (filter.kind) add((p) => `kind = ${p}`, filter.kind);
  if (filter.transactionId) add((p) => `transaction_id = ${p}`, transactionIdOf(filter.transactionId));
  if (filter.entityId) add((p) => `event ->> '${entityFieldOf(filter.entityId!)}' = ${p}`, filter.entityId);
  if (filter.deviceId) add((p) => `event ->> 'deviceId' = ${p}`, filter.deviceId);
  if (after.time) add((p) => `time > ${p}::timestamptz`, after.time);
  if (after.id) add((p) => `id > ${p}`, after.id);
  if (before) add((p) => `id < ${p}`, before);
  values.push(filter.limit + 1);
  return { text: `SELECT id, event::text AS event FROM event_log WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT $${values.length}`, values };
}

/** One event of the tenant's log as its JSON text (the same as in the list). */
export async function getEvent(db: Queryable, tenantId: string, eventId: string): Promise<string> {
  if (!hasPrefix(eventId, "evt")) throw eventNotFound(eventId);
  const { rows } = await db.query<{ event: string }>("SELECT event::text AS event FROM event_log WHERE tenant_id = $1 AND id = $2", [tenantId, eventId]);
  if (rows.length === 0) throw eventNotFound(eventId);
  return rows[0].event;
}

export function eventNotFound(eventId: string): AppError {
  return appError(
    "event_not_found",
    `No event ${JSON.stringify(eventId)} in this tenant's event log (events are kept for RETENTION_EVENTS, 30 days by default).`,
  );
}

function entityFieldOf(entityId: string): string {
  const prefix = ENTITY_ID_PREFIXES.find((p) => hasPrefix(entityId, p));
  if (prefix === undefined) {
    throw appError(
      "invalid_query",
      `entityId must be an order, shipment, product, customer or hook id (${ENTITY_ID_PREFIXES.map((p) => `${p}_…`).join(", ")}).`,
    );
  }
  return ENTITY_FIELD_BY_PREFIX[prefix];
}

function transactionIdOf(transactionId: string): string {
  // A client may name its own transaction (X-Transaction-Id), so not every one is a ULID.
  if (!CLIENT_TRANSACTION_ID.test(transactionId))
    throw appError("invalid_query", "transactionId must be a transaction id (txn_ and 10 to 64 letters and digits).");
  return transactionId;
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
