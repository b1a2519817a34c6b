// Tenants and users: what an operator creates from the command line and an admin over HTTP.
import type { Queryable } from "../platform/db.js";
import { ConflictError } from "../platform/errors.js";
import { newId } from "../platform/ids.js";
import { decodeCursor, toPage, type Page } from "../platform/pagination.js";
import { hashPassword } from "./passwords.js";

export const ROLES = ["admin", "member"] as const;
export type Role = (typeof ROLES)[number];

export interface UserRecord {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
}

const UNIQUE_VIOLATION = "23505";

export async function createTenant(db: Queryable, name: string): Promise<{ id: string; name: string }> {
  const id = newId("ten");
  await db.query("INSERT INTO tenants (id, name) VALUES ($1, $2)", [id, name]).catch((error: { code?: string }) => {
    if (error.code === UNIQUE_VIOLATION) throw new ConflictError("duplicate_tenant", `A tenant named "${name}" exists.`);
    throw error;
  });
  return { id, name };
}

export async function createUser(db: Queryable, tenantId: string, input: { email: string; password: string; role: Role }): Promise<UserRecord> {
  const { rows } = await db
    .query<{ id: string; email: string; role: Role; created_at: Date }>(
      "INSERT INTO users (id, tenant_id, email, password_hash, role) VALUES ($1, $2, $3, $4, $5) RETURNING id, email, role, created_at",
      [newId("usr"), tenantId, input.email, await hashPassword(input.password), input.role],
    )
    .catch((error: { code?: string }) => {
      if (error.code === UNIQUE_VIOLATION) throw new ConflictError("duplicate_email", `A user with email ${input.email} exists.`);
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
