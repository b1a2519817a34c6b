import { describe, expect, it } from "vitest";
import { EVENT_KINDS, EVENT_PAYLOADS, eventKindSchemas, isEventKind } from "./catalog.js";

// API.md, "Events": the kinds the catalog holds at least.
const DOCUMENTED_KINDS = [
  "order.created",
  "order.updated",
  "order.status.changed",
  "order.cancelled",
  "order.completed",
  "shipment.created",
  "shipment.status.changed",
  "shipment.delivered",
  "shipment.exception",
  "inventory.adjusted",
  "inventory.reserved",
  "inventory.released",
  "inventory.low",
  "inventory.depleted",
  "product.created",
  "product.updated",
  "product.deleted",
  "customer.created",
  "customer.updated",
  "device.reading",
  "device.connected",
  "device.disconnected",
  "webhook.test",
];

interface JsonSchema {
  type?: string;
  properties?: Record<string, { const?: unknown; enum?: unknown[] }>;
  required?: string[];
}

describe("event catalog", () => {
  it.each(DOCUMENTED_KINDS)("holds %s", (kind) => {
    expect(EVENT_KINDS).toContain(kind);
    expect(isEventKind(kind)).toBe(true);
  });

  it("has no duplicates and rejects unknown kinds", () => {
    expect(new Set(EVENT_KINDS).size).toBe(EVENT_KINDS.length);
    expect(isEventKind("order.exploded")).toBe(false);
    expect(isEventKind("toString")).toBe(false);
  });

  it("gives order.status.changed the fields API.md names", () => {
    const shape = EVENT_PAYLOADS["order.status.changed"].shape;
    expect(Object.keys(shape)).toEqual(expect.arrayContaining(["orderId", "previousOrderStatus", "currentOrderStatus"]));
  });
});

describe("eventKindSchemas", () => {
  const schemas = eventKindSchemas();

  it("returns one schema per kind", () => {
    expect(schemas.map((s) => s.kind)).toEqual([...EVENT_KINDS]);
  });

  it.each(schemas)("$kind requires the common envelope and fixes its kind", ({ kind, schema }) => {
    const json = schema as JsonSchema;
    expect(json.type).toBe("object");
    for (const field of ["id", "kind", "time", "transactionId"]) {
      expect(json.properties).toHaveProperty(field);
      expect(json.required).toContain(field);
    }
    expect(json.properties?.kind.const).toBe(kind);
  });

  it("lists the payload fields of a kind beside the envelope", () => {
    const { schema } = schemas.find((s) => s.kind === "order.status.changed")!;
    const json = schema as JsonSchema;
    expect(json.properties?.currentOrderStatus.enum).toEqual(["pending", "ready", "inProgress", "completed", "cancelled"]);
    expect(json.required).toEqual(expect.arrayContaining(["orderId", "previousOrderStatus", "currentOrderStatus"]));
  });
});
