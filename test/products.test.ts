// Products through every layer: HTTP → edge → inventory (gRPC) → outbox → JetStream.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@waybill/platform/ids.js";
import { readStream, type StoredMessage } from "./support/bus.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";

let stack: Stack;
let productsUrl: string;
beforeAll(async () => {
  stack = await startStack();
  productsUrl = `${stack.baseUrl}/products`;
});
afterAll(async () => {
  await stack?.stop();
});

const create = (json: unknown, token = stack.token, headers?: Record<string, string>) => request(productsUrl, { token, json, headers });

async function eventsOf(productId: string, count: number): Promise<StoredMessage[]> {
  return eventually(async () => {
    const mine = (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).filter((m) => m.json.productId === productId);
    return mine.length >= count ? mine : undefined;
  });
}

async function createTenant(name: string): Promise<string> {
  const db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
  try {
    const id = newId("ten");
    await db.query("INSERT INTO identity.tenants (id, name) VALUES ($1, $2)", [id, name]);
    return id;
  } finally {
    await db.end();
  }
}

describe("POST /v1/products", () => {
  it("creates a product with an exact price and reads it back", async () => {
    const created = await create({ sku: "MUG-1", name: "Blue mug", price: "12.5", currency: "EUR", lowStockThreshold: 3 });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^prd_[0-9a-z]{26}$/),
      sku: "MUG-1",
      name: "Blue mug",
      price: "12.50",
      currency: "EUR",
      lowStockThreshold: 3,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect(created.headers.get("location")).toBe(`/v1/products/${created.body.id}`);
    const read = await request(`${productsUrl}/${created.body.id}`, { token: stack.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it("creates a product without price, currency or threshold, all null", async () => {
    const created = await create({ sku: "BARE-1", name: "Bare" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ price: null, currency: null, lowStockThreshold: null });
  });

  it("accepts an exact JSON number as price and a zero-decimal currency", async () => {
    const eur = await create({ sku: "NUM-1", name: "Number", price: 0.1, currency: "EUR" });
    expect(eur.body.price).toBe("0.10");
    const jpy = await create({ sku: "NUM-2", name: "Yen", price: "1200", currency: "JPY" });
    expect(jpy.body.price).toBe("1200");
  });

  it("answers 409 duplicate_sku for a sku already used in the tenant, and frees it on delete", async () => {
    const first = await create({ sku: "DUP-1", name: "First" });
    expect(first.status).toBe(201);
    const again = await create({ sku: "DUP-1", name: "Second" });
    expect(again.status).toBe(409);
    expect(again.headers.get("content-type")).toContain("application/problem+json");
    expect(again.body.code).toBe("duplicate_sku");
    expect((await request(`${productsUrl}/${first.body.id}`, { method: "DELETE", token: stack.token })).status).toBe(204);
    expect((await create({ sku: "DUP-1", name: "Third" })).status).toBe(201);
  });

  it("answers 422 to a price without currency, a price finer than the currency, a negative price and unknown fields", async () => {
    const noCurrency = await create({ sku: "BAD-1", name: "x", price: "1.00" });
    expect(noCurrency.status).toBe(422);
    expect(noCurrency.body.errors.map((e: { path: string }) => e.path)).toContain("currency");
    const fine = await create({ sku: "BAD-2", name: "x", price: "1.005", currency: "EUR" });
    expect(fine.status).toBe(422);
    expect(fine.body.errors[0].path).toBe("price");
    expect((await create({ sku: "BAD-3", name: "x", price: "-1", currency: "EUR" })).status).toBe(422);
    expect((await create({ sku: "BAD-4", name: "x", price: "1", currency: "XYZ" })).status).toBe(422);
    expect((await create({ sku: "BAD-5", name: "x", colour: "blue" })).status).toBe(422);
    expect((await create({ sku: "", name: "x" })).status).toBe(422);
    expect((await create({ sku: "BAD-6", name: "x", lowStockThreshold: -1 })).status).toBe(422);
    expect((await create({ sku: "BAD-7", name: "x", price: 1e21, currency: "EUR" })).status).toBe(422);
  });

  it("holds the largest price at every currency scale, through create and a change of currency, and refuses a larger one with 422", async () => {
    const eur = await create({ sku: "MAX-1", name: "Dear", price: "999999999999999.99", currency: "EUR" });
    expect(eur.status, JSON.stringify(eur.body)).toBe(201);
    expect(eur.body.price).toBe("999999999999999.99");
    expect((await create({ sku: "MAX-2", name: "Dear", price: "999999999999999.999", currency: "BHD" })).body.price).toBe("999999999999999.999");
    const toDinar = await request(`${productsUrl}/${eur.body.id}`, { method: "PUT", token: stack.token, json: { currency: "KWD" } });
    expect(toDinar.status, JSON.stringify(toDinar.body)).toBe(200);
    expect(toDinar.body.price).toBe("999999999999999.990");
    for (const price of ["1000000000000000", "9999999999999999.99", 1e16, 1e17]) {
      const refused = await create({ sku: "MAX-3", name: "Too dear", price, currency: "EUR" });
      expect(refused.status, String(price)).toBe(422);
      expect(refused.body.errors[0].path).toBe("price");
    }
    const changed = await request(`${productsUrl}/${eur.body.id}`, { method: "PUT", token: stack.token, json: { price: "1000000000000000.00" } });
    expect(changed.status).toBe(422);
  });

  it("replays the first answer for the same Idempotency-Key and refuses it with another body", async () => {
    const headers = { "idempotency-key": "prod-key-1" };
    const first = await create({ sku: "IDEM-1", name: "Once" }, stack.token, headers);
    expect(first.status).toBe(201);
    const replay = await create({ sku: "IDEM-1", name: "Once" }, stack.token, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    const other = await create({ sku: "IDEM-2", name: "Other" }, stack.token, headers);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("idempotency_key_reused");
  });

  it("publishes product.created with the product's fields", async () => {
    const created = await create({ sku: "EVT-1", name: "Evented", price: "3", currency: "USD", lowStockThreshold: 2 });
    const [event] = await eventsOf(created.body.id, 1);
    expect(event.subject).toMatch(/\.events\.ten_[0-9a-z]{26}\.product\.created$/);
    expect(event.json).toEqual({
      id: expect.stringMatching(/^evt_/),
      kind: "product.created",
      time: expect.any(String),
      transactionId: expect.stringMatching(/^txn_/),
      productId: created.body.id,
      sku: "EVT-1",
      name: "Evented",
      price: "3.00",
      currency: "USD",
      lowStockThreshold: 2,
    });
  });
});

describe("GET /v1/products", () => {
  it("pages newest first with a cursor and leaves deleted products out", async () => {
    const ids: string[] = [];
    for (const sku of ["PAGE-1", "PAGE-2", "PAGE-3"]) ids.push((await create({ sku, name: sku })).body.id);
    await request(`${productsUrl}/${ids[1]}`, { method: "DELETE", token: stack.token });
    const first = await request(`${productsUrl}?limit=1`, { token: stack.token });
    expect(first.status).toBe(200);
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2]]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await request(`${productsUrl}?limit=1&cursor=${first.body.nextCursor}`, { token: stack.token });
    expect(second.body.data.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    const all = await request(`${productsUrl}?limit=100`, { token: stack.token });
    const listed = all.body.data.map((p: { id: string }) => p.id);
    expect(listed).not.toContain(ids[1]);
    expect([...listed].sort().reverse()).toEqual(listed);
  });

  it("answers 400 to a malformed cursor or limit", async () => {
    expect((await request(`${productsUrl}?cursor=nope`, { token: stack.token })).status).toBe(400);
    expect((await request(`${productsUrl}?limit=0`, { token: stack.token })).status).toBe(400);
    expect((await request(`${productsUrl}?limit=101`, { token: stack.token })).status).toBe(400);
  });
});

describe("PUT /v1/products/{id}", () => {
  it("changes the given fields, keeps the others and publishes product.updated with changedFields", async () => {
    const created = await create({ sku: "PUT-1", name: "Before", price: "10.00", currency: "EUR", lowStockThreshold: 5 });
    const updated = await request(`${productsUrl}/${created.body.id}`, { method: "PUT", token: stack.token, json: { name: "After", price: 11 } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, sku: "PUT-1", name: "After", price: "11.00", currency: "EUR", lowStockThreshold: 5 });
    expect(updated.body.updatedAt >= created.body.updatedAt).toBe(true);
    const events = await eventsOf(created.body.id, 2);
    const event = events.find((e) => e.json.kind === "product.updated")!;
    expect(event.json).toMatchObject({ productId: created.body.id, name: "After", price: "11.00", changedFields: ["name", "price"] });
  });

  it("clears price and currency together with null, and re-checks the price against a new currency", async () => {
    const created = await create({ sku: "PUT-2", name: "Priced", price: "12.50", currency: "EUR" });
    const url = `${productsUrl}/${created.body.id}`;
    const toYen = await request(url, { method: "PUT", token: stack.token, json: { currency: "JPY" } });
    expect(toYen.status).toBe(422);
    expect(toYen.body.errors[0].path).toBe("price");
    const onlyPrice = await request(url, { method: "PUT", token: stack.token, json: { price: null } });
    expect(onlyPrice.status).toBe(422);
    const cleared = await request(url, { method: "PUT", token: stack.token, json: { price: null, currency: null, lowStockThreshold: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ price: null, currency: null, lowStockThreshold: null });
    expect((await request(url, { method: "PUT", token: stack.token, json: { name: null } })).status).toBe(422);
  });

  it("emits inventory.low per location when a raised lowStockThreshold crosses its available stock, nothing when lowered", async () => {
    const created = await create({ sku: "THR-1", name: "Watched", lowStockThreshold: 2 });
    const productId = created.body.id;
    for (const [location, setTo] of [
      ["default", 5],
      ["north", 3],
      ["south", 1],
    ] as const) {
      expect(
        (await request(`${stack.baseUrl}/inventory/adjustments`, { token: stack.token, json: { productId, location, setTo, reason: "count" } })).status,
      ).toBe(201);
    }
    const put = (lowStockThreshold: number | null) =>
      request(`${productsUrl}/${productId}`, { method: "PUT", token: stack.token, json: { lowStockThreshold } });
    // available: default 5, north 3, south 1 (south is below 2 already, from its first count on).
    const raised = await put(4);
    expect(raised.status).toBe(200);
    expect((await put(1)).status).toBe(200); // lowered below everything: no event
    expect((await put(6)).status).toBe(200); // above all three again: each crosses
    const events = await eventually(async () => {
      const mine = (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).filter((m) => m.json.productId === productId);
      return mine.filter((m) => m.json.kind === "product.updated").length === 3 && mine.filter((m) => m.json.kind === "inventory.low").length >= 4
        ? mine
        : undefined;
    });
    const low = events.filter((e) => e.json.kind === "inventory.low").map((e) => e.json);
    expect(low.map((e) => [e.location, e.available, e.lowStockThreshold])).toEqual([
      ["north", 3, 4],
      ["default", 5, 6],
      ["north", 3, 6],
      ["south", 1, 6],
    ]);
    // Each alert shares its update's transaction.
    const updates = events.filter((e) => e.json.kind === "product.updated").map((e) => e.json);
    expect(low[0].transactionId).toBe(updates[0].transactionId);
    expect(low.slice(1).map((e) => e.transactionId)).toEqual([updates[2].transactionId, updates[2].transactionId, updates[2].transactionId]);
    expect(events.filter((e) => e.json.transactionId === updates[1].transactionId).map((e) => e.json.kind)).toEqual(["product.updated"]);
  });

  it("answers 409 duplicate_sku when renaming onto another product's sku", async () => {
    await create({ sku: "PUT-3A", name: "A" });
    const b = await create({ sku: "PUT-3B", name: "B" });
    const clash = await request(`${productsUrl}/${b.body.id}`, { method: "PUT", token: stack.token, json: { sku: "PUT-3A" } });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe("duplicate_sku");
  });

  it("publishes nothing when nothing changes", async () => {
    const created = await create({ sku: "PUT-4", name: "Same" });
    const same = await request(`${productsUrl}/${created.body.id}`, { method: "PUT", token: stack.token, json: { name: "Same" } });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(created.body);
    const marker = await create({ sku: "PUT-4-MARKER", name: "Marker" });
    await eventsOf(marker.body.id, 1); // later events are out, so an update would be too
    const events = (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).filter((m) => m.json.productId === created.body.id);
    expect(events.map((e) => e.json.kind)).toEqual(["product.created"]);
  });
});

describe("DELETE /v1/products/{id}", () => {
  it("soft-deletes: 204, then 404 product_not_found everywhere, and publishes product.deleted", async () => {
    const created = await create({ sku: "DEL-1", name: "Doomed" });
    const url = `${productsUrl}/${created.body.id}`;
    const deleted = await request(url, { method: "DELETE", token: stack.token });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    for (const method of ["GET", "PUT", "DELETE"]) {
      const answer = await request(url, { method, token: stack.token, ...(method === "PUT" ? { json: { name: "x" } } : {}) });
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe("product_not_found");
    }
    const events = await eventsOf(created.body.id, 2);
    expect(events.map((e) => e.json.kind)).toEqual(["product.created", "product.deleted"]);
    expect(events[1].json).toMatchObject({ productId: created.body.id, sku: "DEL-1" });
  });

  it("answers 409 product_reserved while an open order holds its stock, deleting nothing, and deletes once it is released", async () => {
    const created = await create({ sku: "DEL-RES", name: "Promised" });
    const productId = created.body.id;
    const url = `${productsUrl}/${productId}`;
    expect((await request(`${stack.baseUrl}/inventory/adjustments`, { token: stack.token, json: { productId, setTo: 5, reason: "count" } })).status).toBe(201);
    const customer = await request(`${stack.baseUrl}/customers`, { token: stack.token, json: { name: "Holder" } });
    const order = await request(`${stack.baseUrl}/orders`, {
      token: stack.token,
      json: { shortId: "DEL-RES-1", customerId: customer.body.id, currency: "EUR", orderItems: [{ productId, quantity: 2, price: "1.00" }] },
    });
    const status = (to: string) => request(`${stack.baseUrl}/orders/${order.body.id}/status`, { token: stack.token, json: { status: to } });
    expect((await status("ready")).status).toBe(200);

    const refused = await request(url, { method: "DELETE", token: stack.token });
    expect(refused.status).toBe(409);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(refused.body.code).toBe("product_reserved");
    expect(refused.body.detail).toContain(order.body.id);
    expect((await request(url, { token: stack.token })).status).toBe(200);
    expect((await request(`${stack.baseUrl}/inventory?productId=${productId}`, { token: stack.token })).body.data[0]).toMatchObject({ onHand: 5, reserved: 2 });

    expect((await status("cancelled")).status).toBe(200);
    expect((await request(url, { method: "DELETE", token: stack.token })).status).toBe(204);
    const events = await eventsOf(productId, 2);
    expect(events.filter((e) => e.json.kind.startsWith("product.")).map((e) => e.json.kind)).toEqual(["product.created", "product.deleted"]);
  });

  it("answers 404 to ids that cannot exist, even with bytes PostgreSQL refuses", async () => {
    for (const id of ["%00", "prd_%00", "not-an-id"]) {
      expect((await request(`${productsUrl}/${id}`, { token: stack.token })).status).toBe(404);
      expect((await request(`${productsUrl}/${id}`, { method: "PUT", token: stack.token, json: { name: "x" } })).status).toBe(404);
      expect((await request(`${productsUrl}/${id}`, { method: "DELETE", token: stack.token })).status).toBe(404);
    }
    expect((await create({ sku: "NUL\u0000", name: "x" })).status).toBe(422);
  });

  it("answers 404 for an id that never existed", async () => {
    const answer = await request(`${productsUrl}/prd_01jc0000000000000000000000`, { token: stack.token });
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe("product_not_found");
  });
});

describe("permissions and tenants", () => {
  it("lets a cli token write products, and refuses sensor tokens", async () => {
    const cli = await issueToken(stack.env.databaseUrl, "cli");
    expect((await create({ sku: "CLI-1", name: "By cli" }, cli.token)).status).toBe(201);
    const sensor = await issueToken(stack.env.databaseUrl, "sensor");
    expect((await request(productsUrl, { token: sensor.token })).status).toBe(403);
    expect((await create({ sku: "SENSOR-1", name: "x" }, sensor.token)).status).toBe(403);
  });

  it("hides a tenant's products from another tenant: 404 on read, change and delete", async () => {
    const mine = await create({ sku: "TEN-1", name: "Mine" });
    const other = await issueToken(stack.env.databaseUrl, "api", { tenantId: await createTenant("products-other") });
    const url = `${productsUrl}/${mine.body.id}`;
    expect((await request(url, { token: other.token })).status).toBe(404);
    expect((await request(url, { method: "PUT", token: other.token, json: { name: "Stolen" } })).status).toBe(404);
    expect((await request(url, { method: "DELETE", token: other.token })).status).toBe(404);
    expect((await request(productsUrl, { token: other.token })).body).toEqual({ data: [], nextCursor: null });
    // The sku is the other tenant's own business.
    expect((await create({ sku: "TEN-1", name: "Theirs" }, other.token)).status).toBe(201);
    const still = await request(url, { token: stack.token });
    expect(still.body).toEqual(mine.body);
  });
});
