// Operator commands for the key that seals hook secrets (operations.md, "Key rotation"):
//   npm run webhook-secrets -- reseal   re-seal every hook's secret under WEBHOOK_SECRET_KEY now, with progress
//   npm run webhook-secrets -- verify   say whether WEBHOOK_SECRET_KEY_PREVIOUS may be removed
// Keys: WEBHOOK_SECRET_KEY (else the data folder's webhook-secret-key file, as `npm start` keeps
// it) and WEBHOOK_SECRET_KEY_PREVIOUS. The database: DATABASE_URL, else the one `npm start`
// recorded in its data folder, else the default.
// Exit status: 0 every secret is sealed with the current key, 1 some are not (yet), 2 refused input.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Command, CommanderError } from "commander";
import { DEFAULT_DATABASE_URL } from "@waybill/platform/config.js";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { DEFAULT_DATA_DIR, readLocalState } from "@waybill/platform/local-state.js";
import { sealingKeySetting } from "@waybill/platform/sealed-box.js";
import { resealAll, secretKeyStatus, type SecretKeyStatus } from "./secret-reseal.js";
import { createSecretBox, parseSecretKey, type SecretBox } from "./secrets.js";
import { DISPATCHER_SCHEMA } from "./service.js";
import { WEBHOOK_SECRET_KEY_FILE } from "./mod.js";

const USAGE_EXIT_CODE = 2;

class UsageError extends Error {}

const dataDir = () => path.resolve(process.env.WAYBILL_DATA_DIR || DEFAULT_DATA_DIR);

async function databaseUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  return (await readLocalState(dataDir())).databaseUrl ?? DEFAULT_DATABASE_URL;
}

function keySetting(name: string, value: string): Buffer {
  if (!sealingKeySetting.safeParse(value).success) throw new UsageError(`${name} must be the base64 of 32 random bytes`);
  return parseSecretKey(value, name);
}

async function secretBox(): Promise<SecretBox> {
  let current = process.env.WEBHOOK_SECRET_KEY;
  if (!current) {
    const file = path.join(dataDir(), WEBHOOK_SECRET_KEY_FILE);
    current = (await readFile(file, "utf8").catch(() => undefined))?.trim();
    if (!current) throw new UsageError(`set WEBHOOK_SECRET_KEY (the dispatcher's key); ${file} does not exist either`);
  }
  const previous = process.env.WEBHOOK_SECRET_KEY_PREVIOUS;
  return createSecretBox(keySetting("WEBHOOK_SECRET_KEY", current), previous ? keySetting("WEBHOOK_SECRET_KEY_PREVIOUS", previous) : undefined);
}

async function withStore<T>(fn: (pool: Pool, box: SecretBox) => Promise<T>): Promise<T> {
  const box = await secretBox();
  const pool = createPool({ databaseUrl: await databaseUrl(), schema: DISPATCHER_SCHEMA, applicationName: "waybill-webhook-secrets", max: 2 });
  try {
    return await fn(pool, box);
  } finally {
    await pool.end();
  }
}

/** Prints where the secrets stand; answers the exit status. */
function report(status: SecretKeyStatus, box: SecretBox): number {
  const out = process.stdout;
  out.write(`hooks: ${status.hooks}, sealed with the current key (${box.fingerprint}): ${status.current}\n`);
  if (status.pending > 0) out.write(`not yet re-sealed: ${status.pending} (they open with WEBHOOK_SECRET_KEY_PREVIOUS; run: reseal)\n`);
  if (status.unopenable.length > 0) {
    out.write(
      `open with neither key: ${status.unopenable.length} (${status.unopenable.slice(0, 10).join(", ")}${status.unopenable.length > 10 ? ", …" : ""})\n`,
    );
    out.write("  their deliveries fail: find the key that sealed them, or rotate their secrets (POST /v1/hooks/{id}/rotate)\n");
  }
  if (status.pending === 0 && status.unopenable.length === 0) {
    out.write(`every hook's secret is sealed with the current key${box.hasPrevious ? ": WEBHOOK_SECRET_KEY_PREVIOUS may be removed" : ""}\n`);
    return 0;
  }
  return 1;
}

const program = new Command("webhook-secrets").description("The key sealing hook secrets: re-seal under the current key, verify").exitOverride();

program
  .command("reseal")
  .description("re-seal every hook's secret that the current key did not seal (in batches, with progress), then verify")
  .option("--batch-size <n>", "hooks per batch", "500")
  .action(async (options: { batchSize: string }) => {
    const batchSize = Number(options.batchSize);
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new UsageError("--batch-size takes a whole number from 1 to 10000");
    const code = await withStore(async (pool, box) => {
      const started = Date.now();
      const pass = await resealAll(pool, box, {
        batchSize,
        pauseMs: 0,
        onBatch: (p) =>
          process.stdout.write(`re-sealed ${p.resealed}${p.unopenable > 0 ? `, ${p.unopenable} open with neither key` : ""} (up to ${p.lastId})\n`),
      });
      if (!pass.ran) process.stdout.write("a dispatcher is re-sealing right now (it holds the lock); its progress shows in the verify below\n");
      else process.stdout.write(`re-sealed ${pass.resealed} hook secret(s) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
      return report(await secretKeyStatus(pool, box), box);
    });
    process.exitCode = code;
  });

program
  .command("verify")
  .description("count the hooks whose secret is not sealed with the current key; exit 0 when there are none")
  .action(async () => {
    process.exitCode = await withStore(async (pool, box) => report(await secretKeyStatus(pool, box), box));
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT_CODE);
  process.stderr.write(`webhook-secrets: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof UsageError ? USAGE_EXIT_CODE : 1);
});
