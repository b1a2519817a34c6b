import { describe, expect, it } from "vitest";
import { AppError } from "@waybill/platform/errors.js";
import { validateAdjustment, type AdjustmentInput } from "./adjustments.js";

const base = { productId: "prd_x", reason: "count" };

function pathsOf(input: AdjustmentInput): string[] {
  try {
    validateAdjustment(input);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).errors!.map((e) => e.path);
  }
  throw new Error("expected a AppError");
}

describe("validateAdjustment", () => {
  it("defaults the location", () => {
    expect(validateAdjustment({ ...base, delta: 5 }).location).toBe("default");
    expect(validateAdjustment({ ...base, location: "", delta: 5 }).location).toBe("default");
    expect(validateAdjustment({ ...base, location: "Aisle 7", setTo: 0 }).location).toBe("Aisle 7");
  });

  it("needs exactly one of delta and setTo", () => {
    expect(pathsOf({ ...base })).toEqual(["delta"]);
    expect(pathsOf({ ...base, delta: 1, setTo: 1 })).toEqual(["delta"]);
  });

  it("refuses a zero or fractional delta and a negative setTo", () => {
    expect(pathsOf({ ...base, delta: 0 })).toEqual(["delta"]);
    expect(pathsOf({ ...base, delta: 1.5 })).toEqual(["delta"]);
    expect(pathsOf({ ...base, setTo: -1 })).toEqual(["setTo"]);
  });

  it("needs a reason and a clean location", () => {
    expect(pathsOf({ ...base, reason: "  ", delta: 1 })).toEqual(["reason"]);
    expect(pathsOf({ ...base, location: " padded", delta: 1 })).toEqual(["location"]);
  });
});
