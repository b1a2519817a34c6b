// Operator commands for dead letters (messages a consumer gave up on):
//   npm run dead-letters -- list --service dispatcher [--all] [--json]
//   npm run dead-letters -- replay 42 --service dispatcher
// The database: DATABASE_URL, else the one `npm start` recorded in its data folder, else the
// default; the bus: NATS_URL (and STREAM_PREFIX, NATS_USER, NATS_PASSWORD) as the services use.
import path from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { DEFAULT_DATABASE_URL, DEFAULT_NATS_URL } from "./config.js";
import { createPool } from "./db.js";
import { listDeadLetters, replayDeadLetter } from "./dead-letters.js";
import { DEFAULT_DATA_DIR, readLocalState } from "./local-state.js";
import { createLogger } from "./logger.js";
import { connectBus, createTopology } from "./nats.js";

/** The schema of each service that runs consumers. */
const SERVICE_SCHEMAS: Record<string, string> = { dispatcher: "dispatcher", inventory: "inventory", orders: "orders", "mqtt-gateway": "mqtt_gateway" };

function service(value: string): string {
  const schema = SERVICE_SCHEMAS[value];
  if (!schema) throw new InvalidArgumentError(`one of ${Object.keys(SERVICE_SCHEMAS).join(", ")}`);
  return schema;
}

async function databaseUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const state = await readLocalState(path.resolve(process.env.WAYBILL_DATA_DIR || DEFAULT_DATA_DIR));
  return state.databaseUrl ?? DEFAULT_DATABASE_URL;
}

async function withPool<T>(schema: string, fn: (pool: ReturnType<typeof createPool>) => Promise<T>): Promise<T> {
  const pool = createPool({ databaseUrl: await databaseUrl(), schema, applicationName: "waybill-dead-letters", max: 2 });
  try {
    return await fn(pool);
  } finally {
    await pool.end();
  }
}

const program = new Command("dead-letters").description("List and replay the messages a service's consumers gave up on");
program
  .command("list")
  .description("The dead letters of a service, newest first")
  .requiredOption("--service <name>", "dispatcher, inventory, orders or mqtt-gateway", service)
  .option("--all", "include the ones already replayed")
  .option("--json", "machine-readable output")
  .action(async (options: { service: string; all?: boolean; json?: boolean }) => {
    const letters = await withPool(options.service, (pool) => listDeadLetters(pool, { includeReplayed: options.all }));
    if (options.json) return void process.stdout.write(`${JSON.stringify(letters)}\n`);
    if (letters.length === 0) return void process.stdout.write("no dead letters\n");
    for (const l of letters) {
      process.stdout.write(
        `${l.id}  ${l.deadAt.toISOString()}  ${l.consumer}  ${l.subject}  after ${l.deliveries} deliveries${l.replayedAt ? `  (replayed ${l.replayedAt.toISOString()})` : ""}\n    ${l.error}\n`,
      );
    }
  });
program
  .command("replay")
  .description("Publish a dead letter again to its subject, for its consumer to take once more")
  .argument("<id>", "the dead letter's id (from list)")
  .requiredOption("--service <name>", "dispatcher, inventory, orders or mqtt-gateway", service)
  .action(async (id: string, options: { service: string }) => {
    const bus = await connectBus({
      url: process.env.NATS_URL || DEFAULT_NATS_URL,
      topology: createTopology(process.env.STREAM_PREFIX ?? ""),
      name: "waybill-dead-letters",
      logger: createLogger("dead-letters", "warn"),
      user: process.env.NATS_USER,
      pass: process.env.NATS_PASSWORD,
    });
    try {
      const replayed = await withPool(options.service, (pool) => replayDeadLetter(pool, bus, id));
      process.stdout.write(`dead letter ${replayed.id} published again to ${replayed.subject}\n`);
    } finally {
      await bus.close();
    }
  });

await program.parseAsync(process.argv).catch((error: Error) => {
  process.stderr.write(`dead-letters: ${error.message}\n`);
  process.exitCode = 1;
});
