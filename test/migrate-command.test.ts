// The migrate command and what a service does around migrations at start: `npm run migrate`
// applies every service's migrations and exits; a service with MIGRATE_AT_START=false waits,
// live and not ready, until the command ran; a service migrating at start answers its probes
// from the first moment, not ready with a migrations check while they run.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { loadInventoryConfig } from "../services/inventory/config.js";
import { startInventory } from "../services/inventory/service.js";
import { freePort } from "../services/launcher/ports.js";
import { SERVICE_SCHEMAS } from "../services/launcher/service-schemas.js";
import { startRuntime } from "@waybill/platform/runtime.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { eventually } from "./support/http.js";
import { NODE_ARGS, ROOT } from "./support/processes.js";

const SERVICES = ["identity", "inventory", "orders", "dispatcher", "mqtt-gateway"];

let env: TestEnvironment;
const dirs: string[] = [];

beforeAll(async () => {
  env = await createTestEnvironment();
});

afterAll(async () => {
  await env?.cleanup();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `npm run migrate -- <args>`, against `databaseUrl`. */
function runMigrate(args: string[] = [], databaseUrl = env.databaseUrl): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...NODE_ARGS, path.join(ROOT, "services/launcher/migrate.ts"), ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: "warn" }, timeout: 90_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

interface ProbeBody {
  status: string;
  service: string;
  checks?: Record<string, string>;
}

async function probe(port: number, path: string): Promise<{ status: number; body: ProbeBody }> {
  const answer = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: answer.status, body: await answer.json() };
}

describe("the migrate command", () => {
  it("applies every service's migrations and exits; a second run finds them up to date", async () => {
    const first = await runMigrate();
    expect(first.code, first.output).toBe(0);
    const database = new URL(env.databaseUrl);
    expect(first.output).toContain(`migrate: PostgreSQL ${database.host}${database.pathname}`);
    for (const service of SERVICES) expect(first.output).toMatch(new RegExp(`  ${service} \\(schema \\w+\\): applied 000_platform_outbox_inbox\\.sql, `));

    const again = await runMigrate();
    expect(again.code).toBe(0);
    for (const service of SERVICES) expect(again.output).toMatch(new RegExp(`  ${service} \\(schema \\w+\\): up to date`));
    const status = await runMigrate(["--status"]);
    expect(status.code).toBe(0);
  });

  it("applies the named services' only, and refuses a name it does not know, with its usage", async () => {
    const own = await createTestEnvironment();
    try {
      const one = await runMigrate(["--status", "orders"], own.databaseUrl);
      expect(one.code, one.output).toBe(3);
      expect(one.output).toMatch(/ {2}orders \(schema orders\): \d+ pending: 000_platform_outbox_inbox\.sql, /);
      const orders = await runMigrate(["orders"], own.databaseUrl);
      expect(orders.code, orders.output).toBe(0);
      expect(orders.output).toContain("orders (schema orders): applied");
      expect(orders.output).not.toContain("identity");
      const unknown = await runMigrate(["shipping"], own.databaseUrl);
      expect(unknown.code).toBe(2);
      expect(unknown.output).toContain("migrate: unknown shipping\nusage: migrate [--status] [identity|inventory|orders|dispatcher|mqtt-gateway]…");
    } finally {
      await own.cleanup();
    }
  });
});

describe("a service with MIGRATE_AT_START=false", () => {
  it("waits, live and not ready, saying so, until the migrate command applied its migrations", async () => {
    const own = await createTestEnvironment();
    try {
      const opsPort = await freePort();
      const config = loadInventoryConfig({ ...own.env, MIGRATE_AT_START: "false", GRPC_PORT: "0", OPS_PORT: String(opsPort) });
      const starting = startInventory(config);
      const waiting = await eventually(async () => {
        const ready = await probe(opsPort, "/readyz").catch(() => undefined);
        return ready?.body.checks?.migrations?.startsWith("waiting") ? ready : undefined;
      }, 20_000);
      expect(waiting.status).toBe(503);
      expect(waiting.body.checks?.migrations).toMatch(
        /^waiting for the migrate command \(MIGRATE_AT_START=false\): \d+ pending, first 000_platform_outbox_inbox\.sql$/,
      );
      expect((await probe(opsPort, "/healthz")).status).toBe(200);

      const migrated = await runMigrate(["inventory"], own.databaseUrl);
      expect(migrated.code, migrated.output).toBe(0);
      const inventory = await starting;
      try {
        const ready = await probe(opsPort, "/readyz");
        expect(ready.status, JSON.stringify(ready.body)).toBe(200);
        expect(ready.body.checks?.migrations).toBe("ok");
      } finally {
        await inventory.stop();
      }
    } finally {
      await own.cleanup();
    }
  });
});

describe("a service migrating at start", () => {
  it("answers its probes before its migrations end: live, and not ready with 'migrations: running'", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "waybill-slow-migration-"));
    dirs.push(dir);
    writeFileSync(path.join(dir, "001_slow.sql"), "CREATE TABLE slow (id int); SELECT pg_sleep(2);");
    const opsPort = await freePort();
    const config = loadInventoryConfig({ ...env.env, GRPC_PORT: "0", OPS_PORT: "0" });
    const started = Date.now();
    const starting = startRuntime({ service: "slow", schema: "slow", migrationsDir: dir, config, opsPort });
    const during = await eventually(() => probe(opsPort, "/readyz").catch(() => undefined), 5_000, 20);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(during.status).toBe(503);
    expect(during.body).toMatchObject({ status: "not ready", service: "slow", checks: { migrations: "running" } });
    expect((await probe(opsPort, "/healthz")).status).toBe(200);
    const runtime = await starting;
    try {
      const after = await probe(opsPort, "/readyz");
      expect(after.status, JSON.stringify(after.body)).toBe(200);
      expect(after.body.checks).toMatchObject({ migrations: "ok", database: "ok", nats: "ok" });
    } finally {
      await runtime.stop();
    }
  });
});

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string } };
}
interface Container {
  name: string;
  args?: string[];
  env: EnvVar[];
}
interface Manifest {
  kind: string;
  spec: { template: { spec: { containers: Container[] } } };
}

describe("deploy/base/migrate-job.yaml", () => {
  it("migrates every service that owns a schema, each with the database role its Deployment uses", () => {
    const read = (file: string, kind: string) =>
      parseAllDocuments(readFileSync(path.join(ROOT, "deploy/base", file), "utf8"))
        .map((doc) => doc.toJS() as Manifest)
        .find((object) => object.kind === kind)!;
    const envOf = (container: Container, name: string) => container.env.find((e) => e.name === name);
    const containers = read("migrate-job.yaml", "Job").spec.template.spec.containers;
    expect(containers.map((c) => c.args)).toEqual(SERVICE_SCHEMAS.map((s) => ["services/launcher/dist/migrate.js", s.service]));
    for (const container of containers) {
      const service = read(`${container.name}.yaml`, "Deployment").spec.template.spec.containers[0];
      expect(envOf(container, "DATABASE_USER")?.valueFrom?.secretKeyRef?.name, container.name).toBe(
        envOf(service, "DATABASE_USER")?.valueFrom?.secretKeyRef?.name,
      );
      expect(envOf(container, "DATABASE_URL")?.value).toBe(envOf(service, "DATABASE_URL")?.value);
    }
  });
});
