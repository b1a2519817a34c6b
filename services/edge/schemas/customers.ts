// Customers: request and response schemas.
import { z } from "zod";
import { resourceId, timestamp } from "./common.js";

const text = (max: number) => z.string().trim().min(1).max(max);

export const addressInput = z
  .object({
    line1: text(200),
    line2: text(200).nullable().optional(),
    city: text(100),
    region: text(100).nullable().optional(),
    postalCode: text(20).nullable().optional(),
    country: z.string().regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code such as DE"),
  })
  .strict();

const email = z.email("must be an email address").max(254);
// Built from a string: a literal's `source` differs between transpilers (some escape the "/"),
// and the OpenAPI document, which shows it, must not.
const phone = z.string().regex(/^\+?[0-9][0-9 ()./-]{2,31}$/, "digits, spaces and + ( ) . / - only, 3 to 32 characters");

export const createCustomerBody = z
  .object({
    name: text(200),
    email: email.nullable().optional(),
    phone: phone.nullable().optional(),
    address: addressInput.nullable().optional(),
  })
  .strict();

export const updateCustomerBody = z
  .object({
    name: text(200).optional(),
    email: email.nullable().optional().describe("null clears it"),
    phone: phone.nullable().optional().describe("null clears it"),
    address: addressInput.nullable().optional().describe("null clears it; an address replaces the whole address"),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "send at least one of name, email, phone, address")
  .meta({ minProperties: 1 });

export const addressOutput = z.object({
  line1: z.string(),
  line2: z.string().nullable(),
  city: z.string(),
  region: z.string().nullable(),
  postalCode: z.string().nullable(),
  country: z.string(),
});

export const customerOutput = z.object({
  id: resourceId("cus"),
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  address: addressOutput.nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
