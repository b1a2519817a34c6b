import { describe, expect, it } from "vitest";
import { createProductExistence } from "./product-existence.js";

/** An inventory that knows `products` and counts how often it was asked. */
function inventoryWith(products: Set<string>) {
  const asked: string[][] = [];
  return {
    asked,
    missingProducts: async (_tenantId: string, ids: string[]) => {
      asked.push(ids);
      return ids.filter((id) => !products.has(id));
    },
  };
}

describe("product existence", () => {
  it("asks inventory once for a product that exists, every time for one that does not", async () => {
    const inventory = inventoryWith(new Set(["prd_a"]));
    const existence = createProductExistence(inventory);
    expect(await existence.missing("ten_1", ["prd_a", "prd_x"])).toEqual(["prd_x"]);
    expect(await existence.missing("ten_1", ["prd_a"])).toEqual([]);
    expect(await existence.missing("ten_1", ["prd_a", "prd_x"])).toEqual(["prd_x"]);
    expect(inventory.asked).toEqual([["prd_a", "prd_x"], ["prd_x"]]);
  });

  it("keeps tenants apart, and asks again for a product it was told to forget", async () => {
    const inventory = inventoryWith(new Set(["prd_a"]));
    const existence = createProductExistence(inventory);
    await existence.missing("ten_1", ["prd_a"]);
    await existence.missing("ten_2", ["prd_a"]);
    existence.forget("ten_1", "prd_a");
    await existence.missing("ten_1", ["prd_a"]);
    await existence.missing("ten_2", ["prd_a"]);
    expect(inventory.asked).toEqual([["prd_a"], ["prd_a"], ["prd_a"]]);
  });

  it("asks again once a remembered answer is older than its lifetime", async () => {
    const inventory = inventoryWith(new Set(["prd_a"]));
    const existence = createProductExistence(inventory, 20);
    await existence.missing("ten_1", ["prd_a"]);
    await new Promise((r) => setTimeout(r, 40));
    await existence.missing("ten_1", ["prd_a"]);
    expect(inventory.asked).toHaveLength(2);
  });
});
