// /v1/orders beyond creation: listing with filters and cursors, PUT with order.updated, and the
// Idempotency-Key of POST /orders.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, createOrder, createStockedProduct, eventsUntil, setOrderStatus, type Call } from "./orders-fixtures.js";
import { eventually, expectProblem, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let call: Call;
let customerId: string;
beforeAll(async () => {
  stack = await startStack();
  call = client(stack);
  customerId = await createCustomer(call);
  item.productId = await createStockedProduct(call, 0);
});
afterAll(async () => {
  await stack?.stop();
});

const item = { productId: "prd_01jc0000000000000000000001", quantity: 1, price: "3.00" };

describe("GET /v1/orders", () => {
  it("lists newest first, filters by status and customer, and pages with a cursor", async () => {
    const buyer = await createCustomer(call);
    const orders: { id: string; updatedAt: string }[] = [];
    for (let i = 0; i < 3; i++) orders.push(await createOrder(call, buyer, [item]));
    expect((await setOrderStatus(call, orders[0].id, "cancelled")).status).toBe(200);

    const page1 = await call(`/orders?customerId=${buyer}&limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((o: any) => o.id)).toEqual([orders[2].id, orders[1].id]);
    expect(page1.body.data[0]).toEqual(orders[2]);
    const page2 = await call(`/orders?customerId=${buyer}&limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.data.map((o: any) => o.id)).toEqual([orders[0].id]);
    expect(page2.body.nextCursor).toBeNull();
    // What changed since creation shows in the list as in the order itself.
    expect(page2.body.data[0]).toMatchObject({ status: "cancelled" });
    expect(page2.body.data[0]).toEqual((await call(`/orders/${orders[0].id}`)).body);
    const moved = await call(`/orders/${orders[1].id}`, { method: "PUT", json: { dueDate: "2031-05-06" } });
    expect(moved.status).toBe(200);
    const relisted = (await call(`/orders?customerId=${buyer}&status=pending`)).body.data.find((o: { id: string }) => o.id === orders[1].id);
    expect(relisted).toEqual(moved.body);
    expect(relisted.dueDate).toBe("2031-05-06T00:00:00.000Z");
    expect(relisted.updatedAt > orders[1].updatedAt).toBe(true);

    expect((await call(`/orders?customerId=${buyer}&status=cancelled`)).body.data.map((o: any) => o.id)).toEqual([orders[0].id]);
    expect((await call(`/orders?customerId=${buyer}&status=pending`)).body.data).toHaveLength(2);
    expect((await call("/orders?limit=1")).body.data).toHaveLength(1);
  });

  it("shows each order in a page exactly as GET /v1/orders/{id} does: amounts at each currency's scale, due dates, every line", async () => {
    const buyer = await createCustomer(call);
    const bodies = [
      { currency: "JPY", orderItems: [{ ...item, price: "500" }] },
      {
        currency: "BHD",
        dueDate: "2031-02-03",
        orderItems: [
          { ...item, quantity: 3, price: "1.5" },
          { ...item, price: "0.125" },
        ],
      },
      {
        currency: "EUR",
        dueDate: "2030-12-24T18:30:00.123Z",
        orderItems: [
          { ...item, price: "19.9" },
          { ...item, quantity: 2, price: "0" },
        ],
      },
    ];
    const created = [];
    for (const body of bodies) {
      const answer = await call("/orders", { json: { shortId: `LIST-${Math.random().toString(36).slice(2, 10)}`, customerId: buyer, ...body } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      created.push(answer.body);
    }
    const page = await call(`/orders?customerId=${buyer}`);
    expect(page.headers.get("content-type")).toContain("application/json");
    expect(page.body).toEqual({ data: [...created].reverse(), nextCursor: null });
    for (const order of page.body.data) expect((await call(`/orders/${order.id}`)).body).toEqual(order);
    expect(page.body.data.map((o: { total: string }) => o.total)).toEqual(["19.90", "4.625", "500"]);
    expect(page.body.data.map((o: { dueDate: string | null }) => o.dueDate)).toEqual(["2030-12-24T18:30:00.123Z", "2031-02-03T00:00:00.000Z", null]);
  });

  it.each(["status=shipped", "limit=0", "limit=101", "limit=abc", "cursor=%%%"])("answers 400 to ?%s", async (query) => {
    const answer = await call(`/orders?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.headers.get("content-type")).toContain("application/problem+json");
  });
});

describe("PUT /v1/orders/{id}", () => {
  it("sets and clears the due date, emitting order.updated with changedFields", async () => {
    const order = await createOrder(call, customerId, [item]);
    const set = await call(`/orders/${order.id}`, { method: "PUT", json: { dueDate: "2027-03-01" } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ id: order.id, dueDate: "2027-03-01T00:00:00.000Z", total: "3.00", status: "pending" });
    const cleared = await call(`/orders/${order.id}`, { method: "PUT", json: { dueDate: null } });
    expect(cleared.body.dueDate).toBeNull();
    const same = await call(`/orders/${order.id}`, { method: "PUT", json: { dueDate: null } });
    expect(same.body.updatedAt).toBe(cleared.body.updatedAt);

    const events = await eventsUntil(stack, (e) => e.orderId === order.id && e.kind === "order.updated", ["order.updated"]);
    await eventsUntil(stack, (e) => e.orderId === order.id && e.kind === "order.updated" && e.dueDate === null, ["order.updated"]);
    expect(events[0]).toMatchObject({ orderId: order.id, dueDate: "2027-03-01T00:00:00.000Z", changedFields: ["dueDate"], total: "3.00" });
  });

  it("refuses empty or unknown fields (422), closed orders (409) and unknown orders (404)", async () => {
    const order = await createOrder(call, customerId, [item]);
    expect((await call(`/orders/${order.id}`, { method: "PUT", json: {} })).status).toBe(422);
    expect((await call(`/orders/${order.id}`, { method: "PUT", json: { status: "ready" } })).status).toBe(422);
    expect((await call(`/orders/${order.id}`, { method: "PUT", json: { dueDate: "soon" } })).status).toBe(422);
    expect((await call(`/orders/${order.id}`, { method: "PUT", json: { customerId: null } })).status).toBe(422);
    expect((await setOrderStatus(call, order.id, "cancelled")).status).toBe(200);
    const closed = await call(`/orders/${order.id}`, { method: "PUT", json: { dueDate: "2027-01-01" } });
    expect(closed.status).toBe(409);
    expect(closed.body.code).toBe("order_not_editable");
    expect((await call("/orders/ord_01jc0000000000000000000000", { method: "PUT", json: { dueDate: null } })).status).toBe(404);
  });
});

describe("Idempotency-Key on POST /v1/orders", () => {
  it("replays the first answer for a retry with the same key and body, creating one order", async () => {
    const json = { shortId: "IDEM-1", customerId, currency: "EUR", orderItems: [item] };
    const headers = { "idempotency-key": "order-key-1" };
    const first = await call("/orders", { json, headers });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const retry = await call("/orders", { json, headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
    const created = await eventsUntil(stack, (e) => e.kind === "order.created" && e.shortId === "IDEM-1", ["order.created"]);
    expect(created).toHaveLength(1);
  });

  it("answers 422 idempotency_key_reused for the same key with another body", async () => {
    const headers = { "idempotency-key": "order-key-2" };
    expect((await call("/orders", { json: { shortId: "IDEM-2", customerId, currency: "EUR", orderItems: [item] }, headers })).status).toBe(201);
    const reused = await call("/orders", { json: { shortId: "IDEM-3", customerId, currency: "EUR", orderItems: [item] }, headers });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe("idempotency_key_reused");
    expect((await call("/orders?limit=100")).body.data.some((o: any) => o.shortId === "IDEM-3")).toBe(false);
  });

  it("treats the same body with its keys in another order as the same request", async () => {
    const headers = { "idempotency-key": "order-key-reordered" };
    const first = await call("/orders", {
      json: { shortId: "IDEM-5", customerId, currency: "EUR", orderItems: [{ productId: item.productId, quantity: 2, price: "3.00" }] },
      headers,
    });
    expect(first.status).toBe(201);
    // Another client's serializer: every object's keys in another order, nested ones too.
    const raw = `{"orderItems":[{"price":"3.00","quantity":2,"productId":"${item.productId}"}],"currency":"EUR","customerId":"${customerId}","shortId":"IDEM-5"}`;
    const retry = await request(`${stack.baseUrl}/orders`, { token: stack.token, headers: { ...headers, "content-type": "application/json" }, body: raw });
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
    // Order inside arrays is meaning, not form: another order of the lines is another request.
    const headers2 = { "idempotency-key": "order-key-lines" };
    const lines = [
      { ...item, quantity: 1 },
      { ...item, quantity: 2 },
    ];
    expect((await call("/orders", { json: { shortId: "IDEM-6", customerId, currency: "EUR", orderItems: lines }, headers: headers2 })).status).toBe(201);
    const swapped = await call("/orders", { json: { shortId: "IDEM-6", customerId, currency: "EUR", orderItems: [...lines].reverse() }, headers: headers2 });
    expect(swapped.status).toBe(422);
    expect(swapped.body.code).toBe("idempotency_key_reused");
  });

  it("does not store a key whose request failed, so a corrected retry goes through", async () => {
    const headers = { "idempotency-key": "order-key-3" };
    const json = { shortId: "IDEM-4", customerId: "cus_01jc0000000000000000000000", currency: "EUR", orderItems: [item] };
    expect((await call("/orders", { json, headers })).status).toBe(422);
    // Another body under the same key: the failed attempt left no record to conflict with.
    expect((await call("/orders", { json: { ...json, customerId }, headers })).status).toBe(201);
  });
});

describe("amounts an order cannot hold", () => {
  it("answers 422 amount_out_of_range when price × quantity or the total passes the largest amount, never 500", async () => {
    const max = "999999999999999.99";
    const order = (shortId: string, orderItems: unknown[], currency = "EUR") => call("/orders", { json: { shortId, customerId, currency, orderItems } });

    const doubled = await order("BIG-1", [{ ...item, quantity: 2, price: max }]);
    expect(doubled.status, JSON.stringify(doubled.body)).toBe(422);
    expect(doubled.headers.get("content-type")).toContain("application/problem+json");
    expect(doubled.body.code).toBe("amount_out_of_range");
    expect(doubled.body.errors.map((e: any) => e.path)).toEqual(["orderItems.0", "total"]);
    expect(doubled.body.detail).toContain(max);

    // Each line fits; their sum does not.
    const summed = await order("BIG-2", [
      { ...item, price: max },
      { ...item, price: "0.01" },
    ]);
    expect(summed.status).toBe(422);
    expect(summed.body.code).toBe("amount_out_of_range");
    expect(summed.body.errors).toEqual([{ path: "total", message: `the order's total exceeds ${max}` }]);

    // The largest amount itself fits, at every currency scale; a number as price too.
    expect((await order("BIG-3", [{ ...item, price: max }])).body.total).toBe(max);
    expect((await order("BIG-4", [{ ...item, price: "999999999999999" }], "JPY")).body.total).toBe("999999999999999");
    expect((await order("BIG-5", [{ ...item, price: "999999999999999.999" }], "BHD")).body.total).toBe("999999999999999.999");
    expect((await order("BIG-6", [{ ...item, quantity: 1_000_000, price: 999999999.99 }])).body.total).toBe("999999999990000.00");
    const past = await order("BIG-7", [{ ...item, quantity: 1_000_000, price: 1_000_000_000 }]);
    expect(past.status).toBe(422);
    expect(past.body.code).toBe("amount_out_of_range");
    // None of the refused orders exists.
    const shortIds = (await call("/orders?limit=100")).body.data.map((o: any) => o.shortId);
    expect(shortIds.filter((id: string) => id.startsWith("BIG-")).sort()).toEqual(["BIG-3", "BIG-4", "BIG-5", "BIG-6"]);
  });
});

describe("X-Transaction-Id", () => {
  it("is generated when absent and always echoed", async () => {
    const answer = await call("/orders?limit=1");
    expect(answer.headers.get("x-transaction-id")).toMatch(/^txn_[0-9a-z]{26}$/);
    const other = await call("/orders?limit=1");
    expect(other.headers.get("x-transaction-id")).not.toBe(answer.headers.get("x-transaction-id"));
    const refused = await call("/orders/ord_01jc0000000000000000000000");
    expect(refused.status).toBe(404);
    expect(refused.headers.get("x-transaction-id")).toMatch(/^txn_/);
  });

  it("takes the client's id for the operation's events and echoes it", async () => {
    const transactionId = "txn_ClientChosen0001";
    const created = await call("/orders", {
      json: { shortId: "TXN-1", customerId, currency: "EUR", orderItems: [item] },
      headers: { "x-transaction-id": transactionId },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-transaction-id")).toBe(transactionId);
    const [event] = await eventsUntil(stack, (e) => e.kind === "order.created" && e.orderId === created.body.id, ["order.created"]);
    expect(event.transactionId).toBe(transactionId);
  });

  it.each(["txn_short", "ord_0123456789abcdef", `txn_${"a".repeat(65)}`, "txn_with-dash00000", "txn_with space0000"])(
    "answers 400 invalid_transaction_id to %s",
    async (value) => {
      const refused = await call("/orders", {
        json: { shortId: "TXN-BAD", customerId, currency: "EUR", orderItems: [item] },
        headers: { "x-transaction-id": value },
      });
      expect(refused.status).toBe(400);
      expect(refused.headers.get("content-type")).toContain("application/problem+json");
      expect(refused.body.code).toBe("invalid_transaction_id");
      expect(refused.headers.get("x-transaction-id")).toMatch(/^txn_[0-9a-z]{26}$/);
      expect((await call("/orders?limit=100")).body.data.some((o: any) => o.shortId === "TXN-BAD")).toBe(false);
    },
  );
});

describe("POST /v1/orders names existing products", () => {
  it("answers 422 unknown_product with one error per line naming a product the tenant does not have (a deleted one too), and creates nothing", async () => {
    const gone = await createStockedProduct(call, 0);
    expect((await call(`/products/${gone}`, { method: "DELETE" })).status).toBe(204);
    const answer = await call("/orders", {
      json: {
        shortId: "UNKNOWN-PRD",
        customerId,
        currency: "EUR",
        orderItems: [item, { productId: "prd_01jc0000000000000000000099", quantity: 1, price: "1.00" }, { productId: gone, quantity: 1, price: "1.00" }],
      },
    });
    expectProblem(answer, 422, "unknown_product");
    expect(answer.body.errors).toEqual([
      { path: "orderItems.1.productId", message: "no product prd_01jc0000000000000000000099 in this tenant" },
      { path: "orderItems.2.productId", message: `no product ${gone} in this tenant` },
    ]);
    expect(answer.body.detail).toContain("POST /v1/products");
    expect((await call("/orders?limit=100")).body.data.map((o: { shortId: string }) => o.shortId)).not.toContain("UNKNOWN-PRD");
  });
  it("refuses a product deleted after orders named it (orders remember which products exist, and forget a deleted one)", async () => {
    const product = await createStockedProduct(call, 0);
    const order = (shortId: string) =>
      call("/orders", { json: { shortId, customerId, currency: "EUR", orderItems: [{ productId: product, quantity: 1, price: "1.00" }] } });
    expect((await order("KNOWN-PRD-1")).status).toBe(201);
    expect((await call(`/products/${product}`, { method: "DELETE" })).status).toBe(204);
    // The deletion reaches orders as its event; until then an order may still name the product.
    let attempt = 0;
    const refused = await eventually(async () => {
      const answer = await order(`KNOWN-PRD-${++attempt + 1}`);
      return answer.status === 422 ? answer : undefined;
    }, 10_000);
    expectProblem(refused, 422, "unknown_product");
  });
});

describe("pages of the largest orders", () => {
  it("lists 100 orders of 500 lines each, and their events, in one page each", async () => {
    const buyer = await createCustomer(call);
    // 500 lines at the largest price an order of 500 lines can hold: about 43 KB of JSON per order,
    // 4.3 MB per page, more than gRPC's default 4 MiB for a message.
    const orderItems = Array.from({ length: 500 }, () => ({ productId: item.productId, quantity: 1, price: "999999999999.99" }));
    const shortIds = Array.from({ length: 100 }, (_, i) => `BIG-${Math.random().toString(36).slice(2, 8)}-${i}`);
    for (let i = 0; i < shortIds.length; i += 4) {
      await Promise.all(
        shortIds.slice(i, i + 4).map(async (shortId) => {
          const answer = await call("/orders", { json: { shortId, customerId: buyer, currency: "EUR", orderItems } });
          expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(201);
        }),
      );
    }
    const page = await call(`/orders?customerId=${buyer}&limit=100`);
    expect(page.status, JSON.stringify(page.body).slice(0, 300)).toBe(200);
    expect(page.body.data).toHaveLength(100);
    expect(page.body.data.every((o: { orderItems: unknown[]; total: string }) => o.orderItems.length === 500 && o.total === "499999999999995.00")).toBe(true);
    expect(new Set(page.body.data.map((o: { shortId: string }) => o.shortId))).toEqual(new Set(shortIds));

    const events = await eventually(async () => {
      const answer = await call("/events?kind=order.created&limit=100");
      expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
      const big = answer.body.data.filter((e: { shortId?: string }) => e.shortId?.startsWith("BIG-"));
      expect(big).toHaveLength(100);
      return big;
    });
    expect(events[0].orderItems).toHaveLength(500);
  }, 120_000);
});
