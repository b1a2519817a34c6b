import { describe, expect, it } from "vitest";
import { AppError } from "@waybill/platform/errors.js";
import { newId } from "@waybill/platform/ids.js";
import { decodeStockCursor, encodeStockCursor, stockLevelOf } from "./stock.js";

describe("stock cursors", () => {
  it("round-trip a (product, location) through an opaque URL-safe string", () => {
    const productId = newId("prd");
    const cursor = encodeStockCursor({ productId, location: "Hall 2/Shelf ä" });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeStockCursor(cursor)).toEqual({ productId, location: "Hall 2/Shelf ä" });
    expect(decodeStockCursor(undefined)).toBeNull();
    expect(decodeStockCursor("")).toBeNull();
  });

  it.each([
    "garbage!!",
    Buffer.from("[1,2]").toString("base64url"),
    Buffer.from('["prd_x","a"]').toString("base64url"),
    encodeStockCursor({ productId: "ord_01jc0000000000000000000000", location: "a" }),
  ])("reject %j with 400 invalid_cursor", (cursor) => {
    expect(() => decodeStockCursor(cursor)).toThrow(AppError);
  });
});

describe("stockLevelOf", () => {
  it("derives available from on hand and reserved", () => {
    expect(stockLevelOf({ product_id: "prd_x", location: "default", on_hand: 7, reserved: 3 })).toEqual({
      productId: "prd_x",
      location: "default",
      onHand: 7,
      reserved: 3,
      available: 4,
    });
  });
});
