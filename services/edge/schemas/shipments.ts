// Shipments: request and response schemas.
import { z } from "zod";
import { identifier, pageQuery, resourceId, timestamp } from "./common.js";

export const SHIPMENT_STATUSES = ["pending", "inTransit", "delivered", "exception"] as const;
export const shipmentStatus = z.enum(SHIPMENT_STATUSES);

const optionalText = (max: number) => z.string().trim().min(1).max(max).nullable().optional();

export const shipmentItemInput = z.object({ productId: identifier, quantity: z.number().int().positive().max(1_000_000) }).strict();

export const createShipmentBody = z
  .object({
    carrier: z.string().trim().min(1).max(100),
    trackingNumber: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, "1 to 100 letters, digits, '.', '_' or '-'"),
    items: z.array(shipmentItemInput).min(1).max(500).optional().describe("Absent: everything the order's earlier shipments did not cover"),
  })
  .strict();

export const listShipmentsQuery = pageQuery.extend({
  orderId: identifier.optional(),
  status: shipmentStatus.optional(),
});

export const changeShipmentStatusBody = z.object({ status: shipmentStatus, location: optionalText(200), note: optionalText(1000) }).strict();

export const deliveryBody = z
  .object({
    receivedBy: optionalText(200),
    deliveredAt: z.iso.datetime({ offset: true }).nullable().optional().describe("When it was delivered; now when absent"),
    note: optionalText(1000),
  })
  .strict();

export const timelineEntryOutput = z.object({
  status: shipmentStatus,
  at: z.string(),
  location: z.string().nullable(),
  note: z.string().nullable(),
});

export const shipmentOutput = z.object({
  id: resourceId("shp"),
  orderId: resourceId("ord"),
  carrier: z.string(),
  trackingNumber: z.string(),
  status: shipmentStatus,
  items: z.array(z.object({ productId: resourceId("prd"), quantity: z.number().int() })),
  deliveredAt: timestamp.nullable(),
  receivedBy: z.string().nullable(),
  timeline: z.array(timelineEntryOutput).describe("Every status the shipment went through, oldest first"),
  createdAt: timestamp,
  updatedAt: timestamp,
});
