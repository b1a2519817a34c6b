// The operator commands as the image has them: a production install made the way the
// Dockerfile's runtime stage makes it (`npm ci --omit=dev` for the libraries and services, the
// compiled dist/ folders, bin/), with no tsx; `npm run admin` and `npm run dead-letters` run there
// against the test database, as documented.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "../packages/platform/db.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "../packages/platform/migrations.js";
import { buildOnce } from "./support/build.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { ROOT } from "./support/processes.js";

let install: string;
let env: TestEnvironment;

/** Runs `command args` in the production install; resolves with its exit code and output. */
function run(command: string, args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: install, env: { ...process.env, NODE_ENV: "production", ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 170_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const npmRun = (script: string, ...args: string[]) =>
  run("npm", ["run", "--silent", script, "--", ...args], { DATABASE_URL: env.databaseUrl, NATS_URL: env.natsUrl });

beforeAll(async () => {
  await buildOnce();
  install = mkdtempSync(path.join(tmpdir(), "waybill-production-"));
  for (const file of ["package.json", "package-lock.json"]) cpSync(path.join(ROOT, file), path.join(install, file));
  cpSync(path.join(ROOT, "bin"), path.join(install, "bin"), { recursive: true });
  // Every workspace's manifest (npm ci wants them), then the compiled code of the server's packages.
  const serverWorkspaces: string[] = [];
  for (const group of ["packages", "services", "clients"]) {
    for (const name of readdirSync(path.join(ROOT, group))) {
      const workspace = `${group}/${name}`;
      if (!existsSync(path.join(ROOT, workspace, "package.json"))) continue;
      mkdirSync(path.join(install, workspace), { recursive: true });
      cpSync(path.join(ROOT, workspace, "package.json"), path.join(install, workspace, "package.json"));
      if (group === "clients") continue;
      serverWorkspaces.push(workspace);
      if (existsSync(path.join(ROOT, workspace, "dist")))
        cpSync(path.join(ROOT, workspace, "dist"), path.join(install, workspace, "dist"), { recursive: true });
    }
  }
  const workspaceFlags = serverWorkspaces.map((w) => `--workspace=${w}`);
  const ci = await run("npm", ["ci", "--omit=dev", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", ...workspaceFlags]);
  if (ci.code !== 0) throw new Error(`npm ci --omit=dev failed:\n${ci.stderr}`);
  env = await createTestEnvironment();
}, 240_000);

afterAll(async () => {
  await env?.cleanup();
  if (install) rmSync(install, { recursive: true, force: true });
});

describe("operator commands in a production install (no dev dependencies, compiled code)", () => {
  it("has no tsx, no TypeScript sources of the commands, only their compiled code", () => {
    expect(existsSync(path.join(install, "node_modules/tsx"))).toBe(false);
    expect(existsSync(path.join(install, "services/identity/admin-cli.ts"))).toBe(false);
    expect(existsSync(path.join(install, "services/identity/dist/admin-cli.js"))).toBe(true);
  });

  it("npm run admin -- create-tenant, reset-password and tokens create work; refused input exits 2", async () => {
    const created = await npmRun("admin", "create-tenant", "acme", "--admin-email", "ops@acme.test", "--api-token");
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/created tenant "acme"/);
    expect(created.stdout).toMatch(/api token: api-\S+/);

    const reset = await npmRun("admin", "reset-password", "--email", "ops@acme.test");
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/password of ops@acme.test .* reset/);

    const token = await npmRun("admin", "tokens", "create", "--tenant", "acme", "--name", "ci", "--type", "api");
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout.trim()).toMatch(/^api-\S+$/);

    const refused = await npmRun("admin", "create-tenant", "other", "--admin-email", "not-an-email");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not an email address/);
  }, 60_000);

  it("npm run dead-letters -- list shows a service's dead letters", async () => {
    // The dispatcher's schema as its first start leaves it (the dead letters table is the platform's).
    const pool = createPool({ databaseUrl: env.databaseUrl, schema: "dispatcher", max: 1, applicationName: "waybill-test" });
    try {
      await migrate(pool, "dispatcher", [PLATFORM_MIGRATIONS_DIR]);
    } finally {
      await pool.end();
    }
    const listed = await npmRun("dead-letters", "list", "--service", "dispatcher");
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe("no dead letters\n");
    const json = await npmRun("dead-letters", "list", "--service", "dispatcher", "--json");
    expect(JSON.parse(json.stdout)).toEqual([]);
  }, 60_000);

  it("npm run migrate applies every service's migrations, then reports them up to date", async () => {
    const applied = await npmRun("migrate");
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/orders \(schema orders\): applied/);
    const again = await npmRun("migrate");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toMatch(/: applied/);
  }, 120_000);
});
