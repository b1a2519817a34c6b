// Stock levels and adjustments over HTTP, with their events on the bus.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@waybill/platform/ids.js";
import { readStream, type StoredMessage } from "./support/bus.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";

let stack: Stack;
let inventoryUrl: string;
let adjustmentsUrl: string;
beforeAll(async () => {
  stack = await startStack();
  inventoryUrl = `${stack.baseUrl}/inventory`;
  adjustmentsUrl = `${stack.baseUrl}/inventory/adjustments`;
});
afterAll(async () => {
  await stack?.stop();
});

let skus = 0;
async function newProduct(fields: Record<string, unknown> = {}, token = stack.token): Promise<string> {
  const created = await request(`${stack.baseUrl}/products`, { token, json: { sku: `INV-${++skus}`, name: "Stocked", ...fields } });
  expect(created.status).toBe(201);
  return created.body.id;
}

const adjust = (json: Record<string, unknown>, token = stack.token, headers?: Record<string, string>) =>
  request(adjustmentsUrl, { token, json: { reason: "test", ...json }, headers });

/** Waits until the product's events include `untilKind` `count` times, then returns them all. */
async function eventsOf(productId: string, untilKind: string, count = 1): Promise<StoredMessage[]> {
  return eventually(async () => {
    const mine = (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).filter((m) => m.json.productId === productId);
    return mine.filter((m) => m.json.kind === untilKind).length >= count ? mine : undefined;
  });
}

describe("GET /v1/inventory", () => {
  it("shows a new product at its default location with nothing on hand", async () => {
    const productId = await newProduct();
    const answer = await request(`${inventoryUrl}?productId=${productId}`, { token: stack.token });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: [{ productId, location: "default", onHand: 0, reserved: 0, available: 0 }], nextCursor: null });
  });

  it("filters by location and pages newest product first, then by location", async () => {
    const older = await newProduct();
    const newer = await newProduct();
    for (const [productId, location] of [
      [older, "pages-b"],
      [older, "pages-a"],
      [newer, "pages-a"],
    ]) {
      expect((await adjust({ productId, location, delta: 1 })).status).toBe(201);
    }
    const atA = await request(`${inventoryUrl}?location=pages-a`, { token: stack.token });
    expect(atA.body.data.map((s: { productId: string }) => s.productId)).toEqual([newer, older]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { data: { productId: string; location: string }[]; nextCursor: string | null } } = await request(
        `${inventoryUrl}?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        { token: stack.token },
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(
        ...page.body.data
          .filter((s) => s.productId === older || s.productId === newer)
          .map((s) => `${s.productId === newer ? "newer" : "older"}@${s.location}`),
      );
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(["newer@default", "newer@pages-a", "older@default", "older@pages-a", "older@pages-b"]);
  });

  it("answers 400 to a malformed cursor or filter", async () => {
    expect((await request(`${inventoryUrl}?cursor=bogus`, { token: stack.token })).body.code).toBe("invalid_cursor");
    expect((await request(`${inventoryUrl}?productId=`, { token: stack.token })).status).toBe(400);
    expect((await request(`${inventoryUrl}?limit=500`, { token: stack.token })).status).toBe(400);
  });
});

describe("POST /v1/inventory/adjustments", () => {
  it("adds a delta and answers 201 with the adjustment and the resulting stock level", async () => {
    const productId = await newProduct();
    const answer = await adjust({ productId, delta: 10, reason: "goods received" });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^adj_[0-9a-z]{26}$/),
      productId,
      location: "default",
      delta: 10,
      reason: "goods received",
      createdAt: expect.stringMatching(/Z$/),
      onHand: 10,
      reserved: 0,
      available: 10,
    });
    const counted = await adjust({ productId, setTo: 7, reason: "stock take" });
    expect(counted.status).toBe(201);
    expect(counted.body).toMatchObject({ delta: -3, onHand: 7, available: 7 });

    const events = await eventsOf(productId, "inventory.adjusted", 2);
    const adjusted = events.filter((e) => e.json.kind === "inventory.adjusted").map((e) => e.json);
    expect(adjusted).toEqual([
      expect.objectContaining({ productId, location: "default", onHand: 10, reserved: 0, available: 10, delta: 10, reason: "goods received" }),
      expect.objectContaining({ productId, location: "default", onHand: 7, available: 7, delta: -3, reason: "stock take" }),
    ]);
  });

  it("creates a location with its first adjustment", async () => {
    const productId = await newProduct();
    expect((await adjust({ productId, location: "Aisle 7", setTo: 4 })).body).toMatchObject({ location: "Aisle 7", onHand: 4, delta: 4 });
    const listed = await request(`${inventoryUrl}?productId=${productId}`, { token: stack.token });
    expect(listed.body.data).toEqual([
      { productId, location: "Aisle 7", onHand: 4, reserved: 0, available: 4 },
      { productId, location: "default", onHand: 0, reserved: 0, available: 0 },
    ]);
  });

  it("answers 409 insufficient_stock rather than let on hand go negative, and changes nothing", async () => {
    const productId = await newProduct();
    await adjust({ productId, delta: 2 });
    const refused = await adjust({ productId, delta: -3 });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("insufficient_stock");
    expect(refused.body.detail).toContain(productId);
    const listed = await request(`${inventoryUrl}?productId=${productId}`, { token: stack.token });
    expect(listed.body.data[0]).toMatchObject({ onHand: 2 });
  });

  it("answers 422 unless exactly one of delta and setTo is given, and to bad values", async () => {
    const productId = await newProduct();
    for (const body of [
      { productId },
      { productId, delta: 1, setTo: 1 },
      { productId, delta: 0 },
      { productId, setTo: -1 },
      { productId, delta: 1.5 },
      { productId, delta: "1" },
    ]) {
      const answer = await adjust(body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.body.code).toBe("validation_failed");
    }
    expect((await request(adjustmentsUrl, { token: stack.token, json: { productId, delta: 1 } })).status).toBe(422); // no reason
    expect((await adjust({ productId, delta: 1, location: "" })).status).toBe(422);
    expect((await adjust({ productId, delta: 1_000_000_000 })).status).toBe(201);
    expect((await adjust({ productId, delta: 1 })).status).toBe(422); // over the maximum on hand
  });

  it("answers 422 unknown_product naming productId for an unknown or deleted product", async () => {
    const missing = await adjust({ productId: "prd_01jc0000000000000000000000", delta: 1 });
    expect(missing.status).toBe(422);
    expect(missing.body.code).toBe("unknown_product");
    expect(missing.body.errors).toEqual([{ path: "productId", message: expect.stringContaining("prd_01jc0000000000000000000000") }]);
    const productId = await newProduct();
    await request(`${stack.baseUrl}/products/${productId}`, { method: "DELETE", token: stack.token });
    expect((await adjust({ productId, delta: 1 })).body.code).toBe("unknown_product");
    expect((await request(`${inventoryUrl}?productId=${productId}`, { token: stack.token })).body.data).toEqual([]);
  });

  it("applies an adjustment once per Idempotency-Key", async () => {
    const productId = await newProduct();
    const headers = { "idempotency-key": `adj-${productId}` };
    const first = await adjust({ productId, delta: 5 }, stack.token, headers);
    const replay = await adjust({ productId, delta: 5 }, stack.token, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    expect((await request(`${inventoryUrl}?productId=${productId}`, { token: stack.token })).body.data[0].onHand).toBe(5);
    expect((await adjust({ productId, delta: 6 }, stack.token, headers)).status).toBe(422);
  });

  it("emits inventory.low and inventory.depleted only on the adjustment that crosses", async () => {
    const productId = await newProduct({ lowStockThreshold: 5 });
    const steps = [{ setTo: 10 }, { delta: -4 }, { delta: -1 }, { delta: -1 }, { delta: -4 }, { setTo: 10 }, { setTo: 2 }];
    for (const step of steps) expect((await adjust({ productId, ...step })).status).toBe(201);
    // available: 0 → 10 → 6 → 5 → 4 (low) → 0 (depleted) → 10 → 2 (low)
    const events = await eventsOf(productId, "inventory.adjusted", steps.length);
    const alerts = events.filter((e) => e.json.kind !== "inventory.adjusted" && e.json.kind.startsWith("inventory."));
    expect(alerts.map((e) => [e.json.kind, e.json.available])).toEqual([
      ["inventory.low", 4],
      ["inventory.depleted", 0],
      ["inventory.low", 2],
    ]);
    expect(alerts[0].json).toMatchObject({ productId, location: "default", onHand: 4, reserved: 0, lowStockThreshold: 5 });
    // An alert shares its adjustment's transaction.
    const lowAdjustment = events.find((e) => e.json.kind === "inventory.adjusted" && e.json.available === 4)!;
    expect(alerts[0].json.transactionId).toBe(lowAdjustment.json.transactionId);
  });
});

describe("bytes PostgreSQL refuses", () => {
  it("answer 4xx or an empty list, never 5xx", async () => {
    const productId = await newProduct();
    expect((await request(`${inventoryUrl}?productId=%00`, { token: stack.token })).status).toBe(400);
    expect((await request(`${inventoryUrl}?location=a%00b`, { token: stack.token })).status).toBe(400);
    const cursor = Buffer.from(JSON.stringify([productId, "a\u0000"])).toString("base64url");
    expect((await request(`${inventoryUrl}?cursor=${cursor}`, { token: stack.token })).status).toBe(400);
    expect((await adjust({ productId, delta: 1, reason: "a\u0000b" })).status).toBe(422);
    expect((await adjust({ productId: "prd_\u0000", delta: 1 })).status).toBe(422);
    expect((await adjust({ productId, delta: 1, reason: "line one\nline two" })).status).toBe(201);
  });
});

describe("permissions and tenants", () => {
  it("refuses adjustments by a cli token (no inventory:write) and reads by a sensor token", async () => {
    const productId = await newProduct();
    const cli = await issueToken(stack.env.databaseUrl, "cli");
    expect((await adjust({ productId, delta: 1 }, cli.token)).status).toBe(403);
    expect((await request(inventoryUrl, { token: cli.token })).status).toBe(200);
    const sensor = await issueToken(stack.env.databaseUrl, "sensor");
    expect((await request(inventoryUrl, { token: sensor.token })).status).toBe(403);
  });

  it("keeps a tenant's stock out of another tenant's reach", async () => {
    const productId = await newProduct();
    await adjust({ productId, delta: 3 });
    const db = new pg.Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    const tenantId = newId("ten");
    await db.query("INSERT INTO identity.tenants (id, name) VALUES ($1, $2)", [tenantId, "inventory-other"]);
    await db.end();
    const other = await issueToken(stack.env.databaseUrl, "api", { tenantId });
    expect((await request(`${inventoryUrl}?productId=${productId}`, { token: other.token })).body).toEqual({ data: [], nextCursor: null });
    expect((await request(inventoryUrl, { token: other.token })).body.data).toEqual([]);
    const stolen = await adjust({ productId, delta: -3 }, other.token);
    expect(stolen.status).toBe(422);
    expect(stolen.body.code).toBe("unknown_product");
    expect((await request(`${inventoryUrl}?productId=${productId}`, { token: stack.token })).body.data[0].onHand).toBe(3);
  });
});
