// Reservations over inventory's gRPC surface, as orders calls it: all or nothing, exact
// release and consume, events in the caller's transaction, and no overselling under races.
import { credentials } from "@grpc/grpc-js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InventoryServiceClient, type StockLevel } from "@waybill/contracts/gen/waybill/inventory/v1/inventory.js";
import { contextFrom, runInContext } from "@waybill/platform/context.js";
import { AppError } from "@waybill/platform/errors.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { newId } from "@waybill/platform/ids.js";
import { readStream } from "./support/bus.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let client: InventoryServiceClient;
let db: pg.Client;
let tenantId: string;
beforeAll(async () => {
  stack = await startStack();
  client = new InventoryServiceClient(`127.0.0.1:${stack.inventory.grpcPort}`, credentials.createInsecure());
  db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
  tenantId = (await db.query<{ id: string }>("SELECT id FROM identity.tenants WHERE name = 'default'")).rows[0].id;
});
afterAll(async () => {
  client?.close();
  await db?.end();
  await stack?.stop();
});

type Lines = { productId: string; quantity: number }[];
const reserve = (orderId: string, lines: Lines, tenant = tenantId) => callUnary(client.reserveStock.bind(client), { tenantId: tenant, orderId, lines });
const release = (orderId: string, tenant = tenantId) => callUnary(client.releaseStock.bind(client), { tenantId: tenant, orderId });
const consume = (orderId: string, tenant = tenantId) => callUnary(client.consumeStock.bind(client), { tenantId: tenant, orderId });

let skus = 0;
/** A product with the given on-hand stock per location. */
async function stocked(stock: Record<string, number>, lowStockThreshold?: number): Promise<string> {
  const created = await request(`${stack.baseUrl}/products`, { token: stack.token, json: { sku: `RES-${++skus}`, name: "Reservable", lowStockThreshold } });
  expect(created.status).toBe(201);
  for (const [location, setTo] of Object.entries(stock)) {
    expect(
      (await request(`${stack.baseUrl}/inventory/adjustments`, { token: stack.token, json: { productId: created.body.id, location, setTo, reason: "setup" } }))
        .status,
    ).toBe(201);
  }
  return created.body.id;
}

/** The product's stock levels by location. */
async function levels(productId: string): Promise<Record<string, Omit<StockLevel, "productId" | "location">>> {
  const page = await callUnary(client.listStockLevels.bind(client), { tenantId, productId, limit: 100 });
  return Object.fromEntries(page.data.map(({ productId: _, location, ...level }) => [location, level]));
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("expected a rejection");
}

const orderId = () => newId("ord");

describe("ReserveStock", () => {
  it("reserves every line or nothing, naming the product that is short", async () => {
    const a = await stocked({ default: 5 });
    const b = await stocked({ default: 1 });
    const order = orderId();
    const refused = await rejection(
      reserve(order, [
        { productId: a, quantity: 2 },
        { productId: b, quantity: 2 },
      ]),
    );
    expect(refused).toBeInstanceOf(AppError);
    expect(refused.code).toBe("insufficient_stock");
    expect(refused.message).toContain(`${b} (2 requested, 1 available)`);
    expect(refused.message).not.toContain(a);
    expect(await levels(a)).toEqual({ default: { onHand: 5, reserved: 0, available: 5 } });

    expect(
      await reserve(order, [
        { productId: a, quantity: 2 },
        { productId: b, quantity: 1 },
      ]),
    ).toEqual({ reserved: true });
    expect(await levels(a)).toEqual({ default: { onHand: 5, reserved: 2, available: 3 } });
    expect(await levels(b)).toEqual({ default: { onHand: 1, reserved: 1, available: 0 } });
  });

  it("sums the lines of one product", async () => {
    const a = await stocked({ default: 3 });
    const refused = await rejection(
      reserve(orderId(), [
        { productId: a, quantity: 2 },
        { productId: a, quantity: 2 },
      ]),
    );
    expect(refused.code).toBe("insufficient_stock");
    expect(
      await reserve(orderId(), [
        { productId: a, quantity: 2 },
        { productId: a, quantity: 1 },
      ]),
    ).toEqual({ reserved: true });
    expect((await levels(a)).default.available).toBe(0);
  });

  it("is a no-op for an order that holds a reservation already", async () => {
    const a = await stocked({ default: 5 });
    const order = orderId();
    expect(await reserve(order, [{ productId: a, quantity: 2 }])).toEqual({ reserved: true });
    expect(await reserve(order, [{ productId: a, quantity: 2 }])).toEqual({ reserved: false });
    expect(await reserve(order, [{ productId: a, quantity: 3 }])).toEqual({ reserved: false });
    expect((await levels(a)).default.reserved).toBe(2);
  });

  it("takes from the default location first, then the others by name", async () => {
    const a = await stocked({ default: 2, "b-shelf": 3, "a-shelf": 1 });
    expect(await reserve(orderId(), [{ productId: a, quantity: 4 }])).toEqual({ reserved: true });
    expect(await levels(a)).toEqual({
      default: { onHand: 2, reserved: 2, available: 0 },
      "a-shelf": { onHand: 1, reserved: 1, available: 0 },
      "b-shelf": { onHand: 3, reserved: 1, available: 2 },
    });
  });

  it("answers insufficient_stock for unknown and deleted products", async () => {
    const gone = await stocked({ default: 5 });
    await request(`${stack.baseUrl}/products/${gone}`, { method: "DELETE", token: stack.token });
    const unknown = "prd_01jc0000000000000000000000";
    const refused = await rejection(
      reserve(orderId(), [
        { productId: gone, quantity: 1 },
        { productId: unknown, quantity: 1 },
      ]),
    );
    expect(refused.code).toBe("insufficient_stock");
    expect(refused.message).toContain(`${gone} (not in the catalog)`);
    expect(refused.message).toContain(`${unknown} (not in the catalog)`);
  });

  it("answers a validation error to empty or non-positive lines", async () => {
    const a = await stocked({ default: 5 });
    for (const lines of [[], [{ productId: a, quantity: 0 }], [{ productId: a, quantity: -2 }], [{ productId: "", quantity: 1 }]]) {
      const refused = await rejection(reserve(orderId(), lines));
      expect(refused).toBeInstanceOf(AppError);
      expect(refused.status).toBe(422);
    }
    for (const order of ["", "ord\u0000x", "x".repeat(101)]) {
      expect((await rejection(reserve(order, [{ productId: a, quantity: 1 }]))).status).toBe(422);
      expect((await rejection(release(order))).status).toBe(422);
    }
    expect((await rejection(reserve(orderId(), [{ productId: "prd\u0000", quantity: 1 }]))).code).toBe("insufficient_stock");
    expect((await levels(a)).default.reserved).toBe(0);
  });

  it("keeps another tenant's stock out of reach", async () => {
    const a = await stocked({ default: 5 });
    const otherTenant = newId("ten");
    await db.query("INSERT INTO identity.tenants (id, name) VALUES ($1, 'reservations-other')", [otherTenant]);
    const refused = await rejection(reserve(orderId(), [{ productId: a, quantity: 1 }], otherTenant));
    expect(refused.code).toBe("insufficient_stock");
    const order = orderId();
    await reserve(order, [{ productId: a, quantity: 1 }]);
    expect(await release(order, otherTenant)).toEqual({ released: false });
    expect(await consume(order, otherTenant)).toEqual({ consumed: false });
    expect((await levels(a)).default.reserved).toBe(1);
  });
});

describe("ReleaseStock and ConsumeStock", () => {
  it("release gives back exactly what was taken, once", async () => {
    const a = await stocked({ default: 1, north: 4 });
    const order = orderId();
    await reserve(order, [{ productId: a, quantity: 3 }]);
    expect(await levels(a)).toEqual({ default: { onHand: 1, reserved: 1, available: 0 }, north: { onHand: 4, reserved: 2, available: 2 } });
    expect(await release(order)).toEqual({ released: true });
    expect(await release(order)).toEqual({ released: false });
    expect(await consume(order)).toEqual({ consumed: false });
    expect(await levels(a)).toEqual({ default: { onHand: 1, reserved: 0, available: 1 }, north: { onHand: 4, reserved: 0, available: 4 } });
  });

  it("an order can reserve anew after a release (orders' compensation), but not after consuming", async () => {
    const a = await stocked({ default: 3 });
    const order = orderId();
    await reserve(order, [{ productId: a, quantity: 2 }]);
    await release(order);
    expect(await reserve(order, [{ productId: a, quantity: 3 }])).toEqual({ reserved: true });
    expect((await levels(a)).default).toEqual({ onHand: 3, reserved: 3, available: 0 });
    expect(await consume(order)).toEqual({ consumed: true });
    expect(await reserve(order, [{ productId: a, quantity: 1 }])).toEqual({ reserved: false });
    expect((await levels(a)).default).toEqual({ onHand: 0, reserved: 0, available: 0 });
  });

  it("consume lowers on hand and reserved at the locations the reservation used", async () => {
    const a = await stocked({ default: 2, east: 5 });
    const order = orderId();
    await reserve(order, [{ productId: a, quantity: 4 }]);
    expect(await consume(order)).toEqual({ consumed: true });
    expect(await consume(order)).toEqual({ consumed: false });
    expect(await release(order)).toEqual({ released: false });
    expect(await levels(a)).toEqual({ default: { onHand: 0, reserved: 0, available: 0 }, east: { onHand: 3, reserved: 0, available: 3 } });
  });

  it("reserved stock cannot be adjusted away", async () => {
    const a = await stocked({ default: 5 });
    await reserve(orderId(), [{ productId: a, quantity: 4 }]);
    const refused = await request(`${stack.baseUrl}/inventory/adjustments`, { token: stack.token, json: { productId: a, setTo: 3, reason: "count" } });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("insufficient_stock");
    expect((await request(`${stack.baseUrl}/inventory/adjustments`, { token: stack.token, json: { productId: a, delta: -1, reason: "broken" } })).status).toBe(
      201,
    );
    expect((await levels(a)).default).toEqual({ onHand: 4, reserved: 4, available: 0 });
  });
});

describe("events", () => {
  it("publishes one event per line in the caller's transaction, with low and depleted when crossed", async () => {
    const a = await stocked({ default: 4 }, 3);
    const b = await stocked({ default: 10 }, 3);
    const order = orderId();
    const reserveTxn = newId("txn");
    await runInContext(contextFrom("req-reserve", reserveTxn), () =>
      reserve(order, [
        { productId: a, quantity: 4 },
        { productId: b, quantity: 1 },
      ]),
    );
    const releaseTxn = newId("txn");
    await runInContext(contextFrom("req-release", releaseTxn), () => release(order));

    const events = await eventually(async () => {
      const mine = (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).filter(
        (m) => m.json.orderId === order || m.json.transactionId === reserveTxn,
      );
      return mine.some((m) => m.json.kind === "inventory.released" && m.json.productId === b) ? mine : undefined;
    });
    const summary = events.map((e) => [
      e.json.kind,
      e.json.productId === a ? "a" : "b",
      e.json.transactionId === reserveTxn ? "reserve" : e.json.transactionId === releaseTxn ? "release" : "other",
    ]);
    expect(summary).toEqual([
      ["inventory.reserved", "a", "reserve"],
      ["inventory.low", "a", "reserve"],
      ["inventory.depleted", "a", "reserve"],
      ["inventory.reserved", "b", "reserve"],
      ["inventory.released", "a", "release"],
      ["inventory.released", "b", "release"],
    ]);
    expect(events[0].json).toMatchObject({ productId: a, location: "default", onHand: 4, reserved: 4, available: 0, orderId: order, quantity: 4 });
    expect(events[0].headers.transactionId).toBe(reserveTxn);
    expect(events[4].json).toMatchObject({ productId: a, onHand: 4, reserved: 0, available: 4, orderId: order, quantity: 4 });
  });

  it("publishes inventory.consumed per line", async () => {
    const a = await stocked({ default: 1, west: 1 });
    const order = orderId();
    await reserve(order, [{ productId: a, quantity: 2 }]);
    await consume(order);
    const consumed = await eventually(async () => {
      const mine = (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).filter(
        (m) => m.json.orderId === order && m.json.kind === "inventory.consumed",
      );
      return mine.length === 2 ? mine.map((m) => m.json) : undefined;
    });
    expect(consumed).toEqual([
      expect.objectContaining({ productId: a, location: "default", onHand: 0, reserved: 0, available: 0, quantity: 1 }),
      expect.objectContaining({ productId: a, location: "west", onHand: 0, reserved: 0, available: 0, quantity: 1 }),
    ]);
  });
});

describe("under concurrency", () => {
  it("50 orders racing for 20 units: exactly 20 reserve, 30 get insufficient_stock, nothing oversold", async () => {
    const a = await stocked({ default: 20 });
    const orders = Array.from({ length: 50 }, orderId);
    const results = await Promise.allSettled(orders.map((order) => reserve(order, [{ productId: a, quantity: 1 }])));
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(20);
    expect(won.every((r) => (r as PromiseFulfilledResult<{ reserved: boolean }>).value.reserved)).toBe(true);
    expect(lost).toHaveLength(30);
    expect(lost.map((r) => (r.reason as AppError).code)).toEqual(Array(30).fill("insufficient_stock"));
    expect((await levels(a)).default).toEqual({ onHand: 20, reserved: 20, available: 0 });

    const winners = orders.filter((_, i) => results[i].status === "fulfilled");
    const released = await Promise.all(winners.map((order) => release(order)));
    expect(released.every((r) => r.released)).toBe(true);
    expect((await levels(a)).default).toEqual({ onHand: 20, reserved: 0, available: 20 });
  });

  it("a delete racing reservations of its product: either the delete is refused (product_reserved) or nothing is reserved", async () => {
    for (let round = 0; round < 8; round++) {
      const a = await stocked({ default: 5 });
      const orders = Array.from({ length: 3 }, orderId);
      const [deleted, ...reservations] = await Promise.allSettled([
        request(`${stack.baseUrl}/products/${a}`, { method: "DELETE", token: stack.token }),
        ...orders.map((order) => reserve(order, [{ productId: a, quantity: 1 }])),
      ]);
      const won = reservations.filter((r) => r.status === "fulfilled").length;
      for (const r of reservations) if (r.status === "rejected") expect((r.reason as AppError).code).toBe("insufficient_stock");
      const status = (deleted as PromiseFulfilledResult<{ status: number; body: { code?: string } }>).value;
      const { rows } = await db.query<{ reserved: number; deleted: boolean }>(
        "SELECT s.reserved, p.deleted_at IS NOT NULL AS deleted FROM inventory.stock_levels s JOIN inventory.products p ON p.id = s.product_id WHERE s.product_id = $1",
        [a],
      );
      expect(rows[0].reserved).toBe(won);
      if (status.status === 204) {
        expect(won).toBe(0);
        expect(rows[0].deleted).toBe(true);
      } else {
        expect(status.status).toBe(409);
        expect(status.body.code).toBe("product_reserved");
        expect(won).toBeGreaterThan(0);
        expect(rows[0].deleted).toBe(false);
      }
    }
  });

  it("orders locking products in opposite orders, with adjustments racing, neither deadlock nor oversell", async () => {
    const a = await stocked({ default: 10, spare: 5 });
    const b = await stocked({ default: 12 });
    const calls: Promise<unknown>[] = [];
    const reservedOrders: string[] = [];
    for (let i = 0; i < 30; i++) {
      const order = orderId();
      reservedOrders.push(order);
      const lines =
        i % 2 === 0
          ? [
              { productId: a, quantity: 1 },
              { productId: b, quantity: 1 },
            ]
          : [
              { productId: b, quantity: 1 },
              { productId: a, quantity: 1 },
            ];
      calls.push(reserve(order, lines));
      if (i % 5 === 0) {
        calls.push(request(`${stack.baseUrl}/inventory/adjustments`, { token: stack.token, json: { productId: i % 2 ? a : b, delta: 1, reason: "race" } }));
      }
    }
    const results = await Promise.allSettled(calls);
    for (const r of results) {
      if (r.status === "rejected") expect((r.reason as AppError).code).toBe("insufficient_stock");
      else if ("status" in (r.value as object)) expect((r.value as { status: number }).status).toBe(201);
    }
    const won = results.filter((r) => r.status === "fulfilled" && "reserved" in (r.value as object)).length;
    const { rows } = await db.query<{ product_id: string; on_hand: number; reserved: number }>(
      "SELECT product_id, sum(on_hand)::int AS on_hand, sum(reserved)::int AS reserved FROM inventory.stock_levels WHERE product_id = ANY($1) GROUP BY product_id",
      [[a, b]],
    );
    for (const row of rows) {
      expect(row.reserved).toBe(won);
      expect(row.reserved).toBeLessThanOrEqual(row.on_hand);
    }
    // Stock b (12 + 3 race deltas) bounds the winners; nothing beyond it was promised.
    expect(won).toBeLessThanOrEqual(15);
    const negative = await db.query("SELECT 1 FROM inventory.stock_levels WHERE on_hand < 0 OR reserved < 0 OR reserved > on_hand");
    expect(negative.rowCount).toBe(0);
  });
});
