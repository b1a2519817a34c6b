// The dispatcher's hook-secret keys at start: the current key seals, the previous one (during a
// rotation) is still read; the key check refuses a wrong key; secrets the current key did not
// seal are re-sealed in the background, and a gauge counts those still left.
import { Gauge, type Registry } from "prom-client";
import type { Pool } from "@waybill/platform/db.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { DispatcherConfig } from "./config.js";
import { checkSecretKey } from "./secret-key-check.js";
import { countNotResealed, startSecretResealing } from "./secret-reseal.js";
import { createSecretBox, generateSecretKey, parseSecretKey, type SecretBox } from "./secrets.js";

export const SECRETS_PREVIOUS_KEY_GAUGE = "waybill_webhook_secrets_previous_key";

export async function setUpSecretKeys(
  config: DispatcherConfig,
  deps: { pool: Pool; logger: Logger; registry: Registry },
): Promise<{ secrets: SecretBox; stop(): Promise<void> }> {
  const { pool, logger } = deps;
  if (!config.WEBHOOK_SECRET_KEY) {
    logger.warn(
      "WEBHOOK_SECRET_KEY is not set: hook secrets are sealed with a key that lives only in this process; " +
        "after a restart no hook created now can be signed for. Set WEBHOOK_SECRET_KEY (base64 of 32 bytes) for anything but a throwaway run.",
    );
  }
  const key = parseSecretKey(config.WEBHOOK_SECRET_KEY ?? generateSecretKey());
  const previous = config.WEBHOOK_SECRET_KEY_PREVIOUS ? parseSecretKey(config.WEBHOOK_SECRET_KEY_PREVIOUS, "WEBHOOK_SECRET_KEY_PREVIOUS") : undefined;
  const secrets = createSecretBox(key, previous);
  await checkSecretKey(pool, key, secrets, previous);
  let last = 0;
  new Gauge({
    name: SECRETS_PREVIOUS_KEY_GAUGE,
    help: "Hooks whose secret is not yet sealed with WEBHOOK_SECRET_KEY (re-sealing after a key rotation); 0 when WEBHOOK_SECRET_KEY_PREVIOUS may be removed",
    registers: [deps.registry],
    async collect() {
      // A scrape while the database is away keeps the last count rather than failing /metrics.
      last = await countNotResealed(pool, secrets).catch(() => last);
      this.set(last);
    },
  });
  const resealing = startSecretResealing({
    pool,
    box: secrets,
    logger,
    batchSize: config.WEBHOOK_SECRET_RESEAL_BATCH_SIZE,
    pauseMs: config.WEBHOOK_SECRET_RESEAL_PAUSE_MS,
    intervalMs: config.WEBHOOK_SECRET_RESEAL_INTERVAL_MS,
  });
  return { secrets, stop: resealing.stop };
}
