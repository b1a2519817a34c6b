import { describe, expect, it } from "vitest";
import { ListOrdersResponse } from "@waybill/contracts/gen/waybill/orders/v1/orders.js";
import { encodeListOrdersResponse, ordersServiceDefinition } from "./list-orders-answer.js";

const generated = (message: ListOrdersResponse) => Buffer.from(ListOrdersResponse.encode(message).finish());

describe("encodeListOrdersResponse", () => {
  const page = (orders: number) =>
    Buffer.from(JSON.stringify(Array.from({ length: orders }, (_, i) => ({ id: `ord_${i}`, shortId: `Straße-${i} ✓`, total: "19.99" }))));

  it.each([
    ["an empty page without a cursor", { dataJson: Buffer.alloc(0) }],
    ["an empty page with an empty cursor", { dataJson: Buffer.alloc(0), nextCursor: "" }],
    ["one order (a one-byte length)", { dataJson: page(1), nextCursor: "ord_0" }],
    ["a page of 100 orders (a three-byte length)", { dataJson: page(100), nextCursor: "ord_99" }],
    ["a page of 5 000 orders (over 2 MiB, four bytes)", { dataJson: page(5_000) }],
    ["a cursor of 200 UTF-8 bytes (a two-byte length)", { dataJson: page(2), nextCursor: "é".repeat(100) }],
  ])("writes %s as the generated encoder does", (_, message: ListOrdersResponse) => {
    const written = encodeListOrdersResponse(message);
    expect(written.equals(generated(message))).toBe(true);
    expect(ListOrdersResponse.decode(written)).toEqual({ nextCursor: message.nextCursor, dataJson: message.dataJson });
  });

  it("is the serializer of ListOrders answers, and only of them", () => {
    expect(ordersServiceDefinition.listOrders.responseSerialize).toBe(encodeListOrdersResponse);
    expect(ordersServiceDefinition.listOrders.path).toBe("/waybill.orders.v1.OrdersService/ListOrders");
    expect(ordersServiceDefinition.getOrder.responseSerialize).not.toBe(encodeListOrdersResponse);
  });
});
