// First start: when the identity store has never been bootstrapped and holds no tenant, create
// tenant `default`, its admin and one `api` token. Runs under an advisory lock and records
// itself, so it never runs twice — not on restart, not on a second replica.
import { withAdvisoryLock } from "@waybill/platform/locks.js";
import type { Pool } from "@waybill/platform/db.js";
import { newId } from "@waybill/platform/ids.js";
import { generatePassword, hashPassword } from "./passwords.js";
import { generateToken, hashToken } from "@waybill/contracts/identity/tokens.js";

export const BOOTSTRAP_TENANT_NAME = "default";

export interface BootstrapInput {
  apiToken?: string;
  adminEmail: string;
  adminPassword?: string;
}

export interface BootstrapResult {
  tenantId: string;
  adminEmail: string;
  /** Present only when generated here; a configured password is never echoed. */
  generatedAdminPassword?: string;
  /** Present only when generated here; a configured token is never echoed. */
  generatedApiToken?: string;
}

export async function bootstrapIdentity(pool: Pool, input: BootstrapInput): Promise<BootstrapResult | undefined> {
  return withAdvisoryLock(pool, "waybill:identity:bootstrap", async (client) => {
    const done = await client.query("SELECT 1 FROM store_facts WHERE key = 'bootstrapped_at'");
    if (done.rowCount) return undefined;
    const tenants = await client.query("SELECT 1 FROM tenants LIMIT 1");
    await client.query("BEGIN");
    try {
      let result: BootstrapResult | undefined;
      if (!tenants.rowCount) {
        const tenantId = newId("ten");
        const password = input.adminPassword ?? generatePassword();
        const token = input.apiToken ?? generateToken("api");
        await client.query("INSERT INTO tenants (id, name) VALUES ($1, $2)", [tenantId, BOOTSTRAP_TENANT_NAME]);
        await client.query("INSERT INTO users (id, tenant_id, email, password_hash, role) VALUES ($1, $2, $3, $4, 'admin')", [
          newId("usr"),
          tenantId,
          input.adminEmail,
          await hashPassword(password),
        ]);
        await client.query("INSERT INTO api_tokens (id, tenant_id, name, type, token_hash) VALUES ($1, $2, 'bootstrap', 'api', $3)", [
          newId("tok"),
          tenantId,
          hashToken(token),
        ]);
        result = {
          tenantId,
          adminEmail: input.adminEmail,
          generatedAdminPassword: input.adminPassword ? undefined : password,
          generatedApiToken: input.apiToken ? undefined : token,
        };
      }
      await client.query("INSERT INTO store_facts (key, value) VALUES ('bootstrapped_at', now()::text)");
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
  });
}
