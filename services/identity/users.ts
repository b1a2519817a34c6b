// Tenants and users: what an operator creates from the command line and an admin over HTTP.
import { UNIQUE_VIOLATION, type Pool, type Queryable } from "@waybill/platform/db.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { idempotent, type IdempotencyRequest } from "@waybill/platform/idempotency.js";
import { newId } from "@waybill/platform/ids.js";
import { decodeCursor, toPage, type Page } from "@waybill/platform/pagination.js";
import { hashPassword, slowDigest } from "./passwords.js";
import type { Role } from "@waybill/contracts/identity/roles.js";

export interface UserRecord {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
}

export async function createTenant(db: Queryable, name: string): Promise<{ id: string; name: string }> {
  const id = newId("ten");
  await db.query("INSERT INTO tenants (id, name) VALUES ($1, $2)", [id, name]).catch((error: { code?: string }) => {
    if (error.code === UNIQUE_VIOLATION) throw appError("duplicate_tenant", `A tenant named "${name}" exists.`);
    throw error;
  });
  return { id, name };
}

export async function createUser(db: Queryable, tenantId: string, input: { email: string; password: string; role: Role }): Promise<UserRecord> {
  return insertUser(db, tenantId, { email: input.email, passwordHash: await hashPassword(input.password), role: input.role });
}

/**
 * createUser behind an Idempotency-Key: the key is stored with the answer (the user record, which
 * holds no password or hash) in the same transaction as the user.
 */
export async function createUserIdempotently(
  pool: Pool,
  tenantId: string,
  input: { email: string; password: string; role: Role },
  idempotency?: IdempotencyRequest,
): Promise<{ user: UserRecord; replayed: boolean }> {
  // Hashed before the transaction so that scrypt does not hold a connection and the key's lock;
  // a replay wastes one hash, which is cheaper than a longer transaction on every creation.
  const [passwordHash, requestHash] = await Promise.all([
    hashPassword(input.password),
    idempotency?.key ? stretchRequestHash(tenantId, idempotency) : undefined,
  ]);
  const request = idempotency?.key && requestHash ? { key: idempotency.key, requestHash } : undefined;
  const { value, replayed } = await withTransaction(pool, (client) =>
    idempotent<UserRecord>(client, tenantId, "users.create", request, () =>
      insertUser(client, tenantId, { email: input.email, passwordHash, role: input.role }),
    ),
  );
  return { user: value, replayed };
}

/**
 * The edge's request hash is a plain SHA-256 of the body, password included: kept as it is, it
 * would let whoever reads the table guess the password far faster than through its scrypt hash.
 * Stored through scrypt (salted by tenant and key, so equal requests still compare equal) instead.
 */
async function stretchRequestHash(tenantId: string, idempotency: IdempotencyRequest): Promise<string> {
  return slowDigest(idempotency.requestHash, `waybill:users.create:${tenantId}:${idempotency.key}`);
}

async function insertUser(db: Queryable, tenantId: string, input: { email: string; passwordHash: string; role: Role }): Promise<UserRecord> {
  const { rows } = await db
    .query<{ id: string; email: string; role: Role; created_at: Date }>(
      "INSERT INTO users (id, tenant_id, email, password_hash, role) VALUES ($1, $2, $3, $4, $5) RETURNING id, email, role, created_at",
      [newId("usr"), tenantId, input.email, input.passwordHash, input.role],
    )
    .catch((error: { code?: string }) => {
      if (error.code === UNIQUE_VIOLATION) throw appError("duplicate_email", `A user with email ${input.email} exists.`);
      throw error;
    });
  return { id: rows[0].id, email: rows[0].email, role: rows[0].role, createdAt: rows[0].created_at.toISOString() };
}

export async function listUsers(db: Queryable, tenantId: string, limit: number, cursor?: string): Promise<Page<UserRecord>> {
  const { rows } = await db.query<{ id: string; email: string; role: Role; created_at: Date }>(
    `SELECT id, email, role, created_at FROM users WHERE tenant_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [tenantId, decodeCursor(cursor), limit + 1],
  );
  const page = toPage(rows, limit);
  return { data: page.data.map((r) => ({ id: r.id, email: r.email, role: r.role, createdAt: r.created_at.toISOString() })), nextCursor: page.nextCursor };
}
