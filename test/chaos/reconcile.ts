// After the faults: what committed against what was delivered. Committed is read from where it is
// true — the orders and stock adjustments in PostgreSQL, the readings in EVENTS (as device.reading events) — not from what
// the load was answered (an answer can be lost with a killed edge while the change committed).
// Delivered is what the receiver got. Lost (committed, never delivered) must be 0; so must be
// phantoms (delivered, never committed); duplicates are allowed (at-least-once) and counted.
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { readStoredReadings } from "../support/bus.js";
import type { TestReceiver } from "../support/receiver.js";
import type { Change } from "./load.js";

export interface Committed {
  /** order id → committed */
  orders: Set<string>;
  /** The stock after each chaos adjustment (each +1 makes it unique): identifies its inventory.adjusted event. */
  adjustments: Set<string>;
  /** Reading numbers stored (as device.reading events). */
  readings: Set<string>;
}

export interface Tally {
  committed: number;
  delivered: number;
  duplicates: number;
  lost: string[];
  phantoms: string[];
}

/** The change each delivered event stands for, as "<kind>:<id>", with how often it arrived. */
export function deliveredChanges(receiver: TestReceiver): Map<string, { events: Set<string>; requests: number }> {
  const out = new Map<string, { events: Set<string>; requests: number }>();
  for (const { json } of receiver.received) {
    let key: string | undefined;
    if (json?.kind === "order.created") key = `order:${json.orderId}`;
    else if (json?.kind === "inventory.adjusted" && json.reason === "chaos") key = `adjustment:${json.onHand}`;
    else if (json?.kind === "device.reading" && typeof json.reading?.chaos === "number") key = `reading:${json.reading.chaos}`;
    if (!key) continue;
    const entry = out.get(key) ?? { events: new Set<string>(), requests: 0 };
    entry.events.add(json.id);
    entry.requests += 1;
    out.set(key, entry);
  }
  return out;
}

export async function readCommitted(databaseUrl: string, natsUrl: string, eventsStream: string, productId: string, deviceId: string): Promise<Committed> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const orders = (await db.query<{ id: string }>("SELECT id FROM orders.orders")).rows.map((r) => r.id);
    const adjustments = (
      await db.query<{ on_hand: number }>("SELECT on_hand FROM inventory.stock_adjustments WHERE product_id = $1 AND reason = 'chaos'", [productId])
    ).rows.map((r) => String(r.on_hand));
    const readings = (await readStoredReadings(natsUrl, eventsStream, deviceId))
      .filter((m) => typeof m.json.reading?.chaos === "number")
      .map((m) => String(m.json.reading.chaos));
    return { orders: new Set(orders), adjustments: new Set(adjustments), readings: new Set(readings) };
  } finally {
    await db.end();
  }
}

export function keysOf(committed: Committed): string[] {
  return [
    ...[...committed.orders].map((id) => `order:${id}`),
    ...[...committed.adjustments].map((id) => `adjustment:${id}`),
    ...[...committed.readings].map((id) => `reading:${id}`),
  ];
}

/** Lost / phantoms / duplicates over `keys` (a fault's window) or everything. */
export function tally(committedKeys: string[], delivered: ReturnType<typeof deliveredChanges>, within?: Set<string>): Tally {
  const committed = new Set(committedKeys);
  const inScope = (key: string) => !within || within.has(key);
  const scoped = committedKeys.filter(inScope);
  const lost = scoped.filter((key) => !delivered.has(key));
  const phantoms = [...delivered.keys()].filter((key) => inScope(key) && !committed.has(key));
  let duplicates = 0;
  let deliveredCount = 0;
  for (const key of scoped) {
    const entry = delivered.get(key);
    if (!entry) continue;
    deliveredCount += 1;
    duplicates += entry.requests - 1;
  }
  return { committed: scoped.length, delivered: deliveredCount, duplicates, lost, phantoms };
}

/** The key of a change the load was answered for (adjustments are matched by id through the database). */
export async function keysOfAnswered(databaseUrl: string, changes: Change[]): Promise<Map<Change, string>> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const ids = changes.filter((c) => c.kind === "adjustment").map((c) => c.id);
    const onHand = new Map(
      (await db.query<{ id: string; on_hand: number }>("SELECT id, on_hand FROM inventory.stock_adjustments WHERE id = ANY($1)", [ids])).rows.map((r) => [
        r.id,
        String(r.on_hand),
      ]),
    );
    return new Map(changes.map((c) => [c, c.kind === "adjustment" ? `adjustment:${onHand.get(c.id) ?? `missing ${c.id}`}` : `${c.kind}:${c.id}`]));
  } finally {
    await db.end();
  }
}

/** Stock and reservations agree with the orders and adjustments: answers the disagreements. */
export async function stockProblems(databaseUrl: string, productId: string): Promise<string[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const problems: string[] = [];
    const level = (
      await db.query<{ on_hand: number; reserved: number }>(
        "SELECT sum(on_hand)::int AS on_hand, sum(reserved)::int AS reserved FROM inventory.stock_levels WHERE product_id = $1",
        [productId],
      )
    ).rows[0];
    const adjusted = (
      await db.query<{ total: number }>("SELECT COALESCE(sum(delta), 0)::int AS total FROM inventory.stock_adjustments WHERE product_id = $1", [productId])
    ).rows[0].total;
    const held = (
      await db.query<{ total: number; orders: number }>(
        `SELECT COALESCE(sum(l.quantity), 0)::int AS total, count(DISTINCT r.order_id)::int AS orders
           FROM inventory.reservations r JOIN inventory.reservation_lines l ON l.order_id = r.order_id AND l.tenant_id = r.tenant_id
          WHERE r.status = 'held' AND l.product_id = $1`,
        [productId],
      )
    ).rows[0];
    const ready = (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM orders.orders WHERE status = 'ready'")).rows[0].n;
    if (level.on_hand !== adjusted) problems.push(`on hand ${level.on_hand} but the adjustments add up to ${adjusted}`);
    if (level.reserved !== held.total) problems.push(`reserved ${level.reserved} but held reservation lines add up to ${held.total}`);
    if (held.orders !== ready) problems.push(`${ready} orders are ready but ${held.orders} hold a reservation`);
    return problems;
  } finally {
    await db.end();
  }
}

/** Consumers with messages not yet acknowledged, or not yet delivered, on the run's streams. */
export async function unsettledConsumers(natsUrl: string, streamPrefix: string): Promise<string[]> {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    const out: string[] = [];
    for await (const stream of jsm.streams.names()) {
      if (!stream.startsWith(streamPrefix)) continue;
      for await (const consumer of jsm.consumers.list(stream)) {
        if (!consumer) continue; // deleted while the list was paged
        if (consumer.num_ack_pending > 0 || consumer.num_pending > 0)
          out.push(`${stream}/${consumer.name}: ${consumer.num_pending} pending, ${consumer.num_ack_pending} unacknowledged`);
      }
    }
    return out;
  } finally {
    await nc.close();
  }
}

/** Rows in every service's dead letters (a poison message in the run would be a finding). */
export async function deadLetters(databaseUrl: string): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const schemas = (await db.query<{ s: string }>("SELECT table_schema AS s FROM information_schema.tables WHERE table_name = 'dead_letters'")).rows.map(
      (r) => r.s,
    );
    let total = 0;
    for (const s of schemas) total += (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${s}".dead_letters`)).rows[0].n;
    return total;
  } finally {
    await db.end();
  }
}
