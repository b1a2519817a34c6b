// What a refused request must leave unchanged: the state tables the API writes (not outboxes,
// inboxes, event logs or delivery records, which move on their own). A fingerprint per table —
// its row count and the newest transaction that wrote one of its rows — changes with any insert,
// update or delete there.
import pg from "pg";

/** Tables whose rows only API requests (and what they start) write. */
const STATE_TABLES = [
  "orders.customers",
  "orders.orders",
  "orders.order_items",
  "orders.shipments",
  "orders.shipment_items",
  "orders.shipment_timeline",
  "orders.idempotency_keys",
  "inventory.products",
  "inventory.stock_levels",
  "inventory.stock_adjustments",
  "inventory.reservations",
  "inventory.reservation_lines",
  "inventory.idempotency_keys",
  "identity.users",
  "identity.tenants",
  "identity.idempotency_keys",
  "dispatcher.test_events",
  "dispatcher.idempotency_keys",
  "mqtt_gateway.devices",
];
/** Tables with columns written behind (token use, delivery counters): what the API writes only. */
const PARTLY: [string, string][] = [
  ["identity.api_tokens", "count(*)::text || '/' || count(revoked_at)::text || '/' || COALESCE(max(created_at)::text, '')"],
  ["dispatcher.hooks", "count(*)::text || '/' || COALESCE(max(updated_at)::text, '')"],
];

export type Fingerprint = Record<string, string>;

export interface DbFingerprint {
  take(): Promise<Fingerprint>;
  /** Waits until two readings 100 ms apart agree (what a success started has settled); answers the last. */
  settled(timeoutMs?: number): Promise<Fingerprint>;
  close(): Promise<void>;
}

export async function openDbFingerprint(databaseUrl: string): Promise<DbFingerprint> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const parts = [
    ...STATE_TABLES.map((t) => `SELECT '${t}' AS t, count(*)::text || '/' || COALESCE(max(xmin::text::bigint), 0)::text AS f FROM ${t}`),
    ...PARTLY.map(([t, expression]) => `SELECT '${t}' AS t, ${expression} AS f FROM ${t}`),
  ];
  const sql = parts.join(" UNION ALL ");
  const take = async () => Object.fromEntries((await db.query<{ t: string; f: string }>(sql)).rows.map((r) => [r.t, r.f]));
  return {
    take,
    async settled(timeoutMs = 3_000) {
      const deadline = Date.now() + timeoutMs;
      let last = await take();
      for (;;) {
        await new Promise((r) => setTimeout(r, 100));
        const next = await take();
        if (JSON.stringify(next) === JSON.stringify(last) || Date.now() > deadline) return next;
        last = next;
      }
    },
    close: () => db.end(),
  };
}

/** The tables whose fingerprints differ. */
export function changedTables(before: Fingerprint, after: Fingerprint): string[] {
  return Object.keys(after).filter((t) => before[t] !== after[t]);
}
