// The key that seals hook secrets is never replaced silently: its fingerprint is stored beside
// the hooks, and a dispatcher holding another key while hooks exist refuses to start, saying how
// to recover. With no hook, a new key simply takes over (nothing sealed would be lost). A key
// rotation names the old key as WEBHOOK_SECRET_KEY_PREVIOUS: the record then moves to the new one.
import { ConfigError } from "@waybill/platform/config.js";
import { keyFingerprint } from "@waybill/platform/sealed-box.js";
import { withAdvisoryLock } from "@waybill/platform/locks.js";
import type { Pool, Queryable } from "@waybill/platform/db.js";
import type { SecretBox } from "./secrets.js";

export class SecretKeyMismatchError extends ConfigError {}

function mismatch(hooks: number, stored: string | undefined, current: string): SecretKeyMismatchError {
  return new SecretKeyMismatchError(
    `the webhook secret key (WEBHOOK_SECRET_KEY, or the webhook-secret-key file in the data folder under npm start) ` +
      `is not the key that sealed the secrets of the ${hooks} existing hook(s)` +
      `${stored ? ` (sealed with key ${stored}, this key is ${current})` : ` (this key is ${current})`}. ` +
      `Start with the original key again. If it is lost, the hooks' secrets are lost with it: delete the hooks, or ` +
      `remove the dispatcher's record of the old key (DELETE FROM dispatcher.secret_key_check) and rotate every hook's secret ` +
      `(POST /v1/hooks/{id}/rotate) after the start.`,
  );
}

/**
 * Checks `key` against the recorded fingerprint (recording it when there is none). Stores from
 * before this check have no record: there, the newest hook's secret must open with this key.
 */
export async function checkSecretKey(pool: Pool, key: Buffer, box: SecretBox, previous?: Buffer): Promise<void> {
  const current = keyFingerprint(key);
  const previousFingerprint = previous ? keyFingerprint(previous) : undefined;
  await withAdvisoryLock(pool, "waybill:dispatcher:secret-key", async (client) => {
    const recorded = await client.query<{ fingerprint: string }>("SELECT fingerprint FROM secret_key_check");
    const stored = recorded.rows[0]?.fingerprint;
    if (stored === current) return;
    // A rotation: the recorded key is the previous one, still read; the current one takes over.
    if (stored !== undefined && stored === previousFingerprint) {
      await client.query("UPDATE secret_key_check SET fingerprint = $1, recorded_at = now()", [current]);
      return;
    }
    const hooks = await client.query<{ id: string; secret_sealed: string; count: string }>(
      "SELECT id, secret_sealed, count(*) OVER () AS count FROM hooks ORDER BY created_at DESC LIMIT 1",
    );
    const hookCount = Number(hooks.rows[0]?.count ?? 0);
    if (hookCount > 0) {
      if (stored !== undefined) throw mismatch(hookCount, stored, current);
      try {
        box.open(hooks.rows[0].secret_sealed, hooks.rows[0].id);
      } catch {
        throw mismatch(hookCount, undefined, current);
      }
    }
    await recordSecretKey(client, current);
  });
}

/** Records the key that sealed every hook's secret (at a first start, or once a re-seal is complete). */
export async function recordSecretKey(db: Queryable, fingerprint: string): Promise<void> {
  await db.query(
    `INSERT INTO secret_key_check (fingerprint) VALUES ($1)
     ON CONFLICT (singleton) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, recorded_at = now()`,
    [fingerprint],
  );
}
