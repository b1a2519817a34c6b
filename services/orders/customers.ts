// Customers: create, read, list and update, each change with its event in one transaction.
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Queryable } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { AppError } from "@waybill/platform/errors.js";
import { idempotent, type IdempotencyRequest, type IdempotentResult } from "@waybill/platform/idempotency.js";
import { newId } from "@waybill/platform/ids.js";
import { appendEvents } from "@waybill/contracts/events/outbox-events.js";
import { decodeCursor, toPage, type Page } from "@waybill/platform/pagination.js";
import type { OrdersDeps } from "./deps.js";

export interface Address {
  line1: string;
  line2: string | null;
  city: string;
  region: string | null;
  postalCode: string | null;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

export interface Customer {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  address: Address | null;
  createdAt: string;
  updatedAt: string;
}

export type AddressInput = Omit<Address, "line2" | "region" | "postalCode"> & Partial<Pick<Address, "line2" | "region" | "postalCode">>;

export interface NewCustomer {
  name: string;
  email?: string | null;
  phone?: string | null;
  address?: AddressInput | null;
}

/** Fields absent keep their value; null clears a field. */
export interface CustomerPatch {
  name?: string;
  email?: string | null;
  phone?: string | null;
  address?: AddressInput | null;
}

type Editable = "name" | "email" | "phone" | "address";
const EDITABLE: readonly Editable[] = ["name", "email", "phone", "address"];

interface CustomerRow {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  address: Address | null;
  created_at: Date;
  updated_at: Date;
}

function customerFromRow(row: CustomerRow): Customer {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    address: row.address ? normalizeAddress(row.address) : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The stored and answered address shape: every key present, absent ones null. */
export function normalizeAddress(input: AddressInput): Address {
  return {
    line1: input.line1,
    line2: input.line2 ?? null,
    city: input.city,
    region: input.region ?? null,
    postalCode: input.postalCode ?? null,
    country: input.country,
  };
}

function requireName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw appError("validation_failed", "name must not be empty", { errors: [{ path: "name", message: "must not be empty" }] });
  return trimmed;
}

function eventPayload(customer: Customer) {
  return { customerId: customer.id, name: customer.name, email: customer.email, phone: customer.phone, address: customer.address };
}

export async function createCustomer(
  deps: OrdersDeps,
  tenantId: string,
  input: NewCustomer,
  idempotency?: IdempotencyRequest,
): Promise<IdempotentResult<Customer>> {
  const name = requireName(input.name);
  const address = input.address ? normalizeAddress(input.address) : null;
  return withTransaction(deps.pool, (client) =>
    idempotent(client, tenantId, "customers.create", idempotency, async () => {
      const { rows } = await client.query<CustomerRow>(
        `INSERT INTO customers (id, tenant_id, name, email, phone, address) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [newId("cus"), tenantId, name, input.email ?? null, input.phone ?? null, address === null ? null : JSON.stringify(address)],
      );
      const customer = customerFromRow(rows[0]);
      await appendEvents(client, deps.topology, [{ tenantId, kind: "customer.created", payload: eventPayload(customer) }]);
      return customer;
    }),
  );
}

export async function getCustomer(db: Queryable, tenantId: string, id: string): Promise<Customer> {
  const { rows } = await db.query<CustomerRow>("SELECT * FROM customers WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
  if (rows.length === 0) throw appError("customer_not_found", `No customer ${id}.`);
  return customerFromRow(rows[0]);
}

/** For references from other resources: an unknown customer is a field error of the referring request (422), not a 404. */
export async function assertCustomerExists(db: Queryable, tenantId: string, id: string, path = "customerId"): Promise<void> {
  const { rowCount } = await db.query("SELECT 1 FROM customers WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
  if (rowCount === 0) throw customerNotFound(id, path);
}

export function customerNotFound(id: string, path = "customerId"): AppError {
  return appError("validation_failed", `No customer ${id} in this tenant.`, { errors: [{ path, message: "no such customer" }] });
}

export async function listCustomers(db: Queryable, tenantId: string, limit: number, cursor?: string | null): Promise<Page<Customer>> {
  const after = decodeCursor(cursor);
  const { rows } = await db.query<CustomerRow>(`SELECT * FROM customers WHERE tenant_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`, [
    tenantId,
    after,
    limit + 1,
  ]);
  const page = toPage(rows, limit);
  return { data: page.data.map(customerFromRow), nextCursor: page.nextCursor };
}

export async function updateCustomer(deps: OrdersDeps, tenantId: string, id: string, patch: CustomerPatch): Promise<Customer> {
  const next: Partial<Record<Editable, unknown>> = {};
  if (patch.name !== undefined) next.name = requireName(patch.name);
  if (patch.email !== undefined) next.email = patch.email;
  if (patch.phone !== undefined) next.phone = patch.phone;
  if (patch.address !== undefined) next.address = patch.address === null ? null : normalizeAddress(patch.address);

  return withTransaction(deps.pool, async (client) => {
    const { rows } = await client.query<CustomerRow>("SELECT * FROM customers WHERE tenant_id = $1 AND id = $2 FOR UPDATE", [tenantId, id]);
    if (rows.length === 0) throw appError("customer_not_found", `No customer ${id}.`);
    const current = customerFromRow(rows[0]);
    const changedFields = EDITABLE.filter((field) => field in next && JSON.stringify(next[field]) !== JSON.stringify(current[field]));
    // An update that changes nothing is not an event.
    if (changedFields.length === 0) return current;
    const merged = { ...current, ...next } as Customer;
    const updated = await client.query<CustomerRow>(
      `UPDATE customers SET name = $3, email = $4, phone = $5, address = $6, updated_at = now()
        WHERE tenant_id = $1 AND id = $2 RETURNING *`,
      [tenantId, id, merged.name, merged.email, merged.phone, merged.address === null ? null : JSON.stringify(merged.address)],
    );
    const customer = customerFromRow(updated.rows[0]);
    await appendEvents(client, deps.topology, [{ tenantId, kind: "customer.updated", payload: { ...eventPayload(customer), changedFields } }]);
    return customer;
  });
}
