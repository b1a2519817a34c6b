// Issues API tokens straight into the identity store, for tests that need other token types
// before the token manager exists over HTTP.
import pg from "pg";
import { newId } from "@waybill/platform/ids.js";
import { generateToken, hashToken, type TokenType } from "@waybill/contracts/identity/tokens.js";

export async function issueToken(
  databaseUrl: string,
  type: TokenType,
  options: { tenantId?: string; expiresAt?: Date; revoked?: boolean } = {},
): Promise<{ id: string; token: string; tenantId: string }> {
  const client = new pg.Client({ connectionString: databaseUrl, options: "-c search_path=identity" });
  await client.connect();
  try {
    const tenantId = options.tenantId ?? (await client.query<{ id: string }>("SELECT id FROM tenants WHERE name = 'default'")).rows[0].id;
    const id = newId("tok");
    const token = generateToken(type);
    await client.query("INSERT INTO api_tokens (id, tenant_id, name, type, token_hash, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)", [
      id,
      tenantId,
      `test ${type}`,
      type,
      hashToken(token),
      options.expiresAt ?? null,
      options.revoked ? new Date() : null,
    ]);
    return { id, token, tenantId };
  } finally {
    await client.end();
  }
}
