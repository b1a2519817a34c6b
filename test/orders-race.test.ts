// Stock is never oversold however many requests race: 50 orders for a product with 20 in stock
// all ask to become ready at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, createOrder, createStockedProduct, setOrderStatus, stockOf, type Call } from "./orders-fixtures.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let call: Call;
beforeAll(async () => {
  stack = await startStack();
  call = client(stack);
});
afterAll(async () => {
  await stack?.stop();
});

describe("concurrent moves to ready", () => {
  it("reserve exactly the stock there is: 20 × 200, 30 × 409 insufficient_stock; cancelling gives it back", async () => {
    const customerId = await createCustomer(call);
    const productId = await createStockedProduct(call, 20);
    const orders = await Promise.all(Array.from({ length: 50 }, () => createOrder(call, customerId, [{ productId, quantity: 1 }])));

    const answers = await Promise.all(orders.map((order) => setOrderStatus(call, order.id, "ready")));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 409)).toHaveLength(30);
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.code).toBe("insufficient_stock");
    expect(await stockOf(call, productId)).toEqual({ onHand: 20, reserved: 20, available: 0 });

    // What each order says agrees with the stock.
    const states = await Promise.all(orders.map(async (order) => (await call(`/orders/${order.id}`)).body.status));
    expect(states.filter((s) => s === "ready")).toHaveLength(20);
    expect(states.filter((s) => s === "pending")).toHaveLength(30);

    const readyOnes = orders.filter((_, i) => answers[i].status === 200);
    const cancels = await Promise.all(readyOnes.slice(0, 5).map((order) => setOrderStatus(call, order.id, "cancelled")));
    expect(cancels.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const after = await stockOf(call, productId);
    expect(after).toEqual({ onHand: 20, reserved: 15, available: 5 });
    expect(after.available).toBeGreaterThanOrEqual(0);
  });

  it("lets only one of two racing transitions of the same order win", async () => {
    const customerId = await createCustomer(call);
    const productId = await createStockedProduct(call, 10);
    const order = await createOrder(call, customerId, [{ productId, quantity: 2 }]);
    const answers = await Promise.all([
      setOrderStatus(call, order.id, "ready"),
      setOrderStatus(call, order.id, "ready"),
      setOrderStatus(call, order.id, "cancelled"),
    ]);
    const final = (await call(`/orders/${order.id}`)).body.status;
    const wins = answers.filter((a) => a.status === 200);
    // ready then cancelled, or cancelled first (then both readies are refused).
    expect(wins.length === 2 || wins.length === 1).toBe(true);
    for (const loser of answers.filter((a) => a.status !== 200)) {
      expect(loser.status).toBe(409);
      expect(loser.body.code).toBe("invalid_status_transition");
    }
    expect(final).toBe("cancelled");
    expect(await stockOf(call, productId)).toEqual({ onHand: 10, reserved: 0, available: 10 });
  });
});
