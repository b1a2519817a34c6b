// `npm run admin -- create-tenant`: a real child process against the test database; the tenant's
// admin can then log in over HTTP, and refused input exits 2 with a message that says why.
import { spawn } from "node:child_process";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEdgeConfig } from "../services/edge/config.js";
import { startEdge, type EdgeHandle } from "../services/edge/service.js";
import { loadIdentityConfig } from "../services/identity/config.js";
import { startIdentity, type IdentityHandle } from "../services/identity/service.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { request } from "./support/http.js";
import { NODE_ARGS, ROOT } from "./support/processes.js";

let env: TestEnvironment;
let identity: IdentityHandle;
let edge: EdgeHandle;

beforeAll(async () => {
  env = await createTestEnvironment();
  identity = await startIdentity(
    loadIdentityConfig({ ...env.env, GRPC_PORT: "0", OPS_PORT: "0", BOOTSTRAP_API_TOKEN: `api-${randomBytes(32).toString("base64url")}` }),
    { announce: () => {} },
  );
  edge = await startEdge(loadEdgeConfig({ ...env.env, HTTP_PORT: "0", IDENTITY_GRPC_URL: `127.0.0.1:${identity.grpcPort}` }));
});

afterAll(async () => {
  await edge?.stop();
  await identity?.stop();
  await env?.cleanup();
});

/** Runs the same entry as `npm run admin -- <args>` against the test database. */
function admin(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, path.join(ROOT, "services/identity/admin-cli.ts"), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: env.databaseUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const api = (p: string, init: Parameters<typeof request>[1] = {}) => request(`${edge.url}/v1${p}`, init);

describe("npm run admin -- create-tenant", () => {
  it("creates a tenant and its admin, prints the credentials once, and the admin can log in", async () => {
    const run = await admin("create-tenant", "acme", "--admin-email", "ops@acme.test", "--api-token");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/created tenant "acme" \(ten_[0-9a-z]{26}\)/);
    expect(run.stdout).toContain("ops@acme.test");
    const password = /password: (\S+)/.exec(run.stdout)?.[1];
    const token = /api token: (api-[A-Za-z0-9_-]{43})/.exec(run.stdout)?.[1];
    expect(password).toBeDefined();
    expect(token).toBeDefined();

    // The running system knows the new tenant at once.
    const login = await api("/auth/login", { json: { email: "ops@acme.test", password } });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const users = await api("/users", { token: login.body.accessToken });
    expect(users.status).toBe(200);
    expect(users.body.data).toEqual([expect.objectContaining({ email: "ops@acme.test", role: "admin" })]);
    // The printed token belongs to the same tenant: it sees exactly that tenant's one token.
    const tokens = await api("/tokens", { token });
    expect(tokens.status).toBe(200);
    expect(tokens.body.data).toEqual([expect.objectContaining({ name: "admin-cli", type: "api", revokedAt: null })]);
    expect((await api("/auth/login", { json: { email: "ops@acme.test", password: "wrong-password" } })).status).toBe(401);
  });

  it("never prints a password given on the command line", async () => {
    const run = await admin("create-tenant", "globex", "--admin-email", "ops@globex.test", "--admin-password", "globex-password-1");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain("globex-password-1");
    expect(run.stdout).not.toContain("api token");
    expect((await api("/auth/login", { json: { email: "ops@globex.test", password: "globex-password-1" } })).status).toBe(200);
  });

  it("refuses a duplicate tenant or admin email with exit 2 and creates nothing", async () => {
    const first = await admin("create-tenant", "initech", "--admin-email", "ops@initech.test");
    expect(first.code, first.stderr).toBe(0);

    const sameName = await admin("create-tenant", "initech", "--admin-email", "other@initech.test");
    expect(sameName.code).toBe(2);
    expect(sameName.stderr).toContain('duplicate_tenant: A tenant named "initech" exists.');
    expect(sameName.stdout).toBe("");

    const sameEmail = await admin("create-tenant", "initech-two", "--admin-email", "OPS@initech.test");
    expect(sameEmail.code).toBe(2);
    expect(sameEmail.stderr).toMatch(/duplicate_email: A user with email OPS@initech\.test exists/);
    // The refused run left no tenant behind: the name is still free.
    const again = await admin("create-tenant", "initech-two", "--admin-email", "ops2@initech.test");
    expect(again.code, again.stderr).toBe(0);
  });

  it("refuses bad input with exit 2 and a message naming the problem", async () => {
    const runs = await Promise.all([
      admin("create-tenant", "Bad Name", "--admin-email", "a@bad.test"),
      admin("create-tenant", "bad-email", "--admin-email", "not-an-email"),
      admin("create-tenant", "no-email"),
      admin("create-tenant", "short-password", "--admin-email", "b@bad.test", "--admin-password", "short"),
      admin("no-such-command"),
    ]);
    const expected = [
      /invalid_tenant_name: tenant names are 1 to 63 lowercase letters/,
      /--admin-email.*'not-an-email' is invalid\. not an email address/,
      /required option '--admin-email <email>' not specified/,
      /invalid_password: the admin password needs at least 8 characters/,
      /unknown command 'no-such-command'/,
    ];
    runs.forEach((run, i) => {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(expected[i]);
      expect(run.stdout).not.toContain("created tenant");
    });
    // None of them logs in.
    expect((await api("/auth/login", { json: { email: "a@bad.test", password: "whatever-1" } })).status).toBe(401);
  });
});

describe("npm run admin -- tokens create / reset-password", () => {
  it("creates a token of the named type for a tenant by name or id, printing only its value on stdout", async () => {
    const tenant = await admin("create-tenant", "tok-co", "--admin-email", "ops@tok-co.test", "--admin-password", "tok-co-password");
    expect(tenant.code, tenant.stderr).toBe(0);
    const tenantId = /\((ten_[0-9a-z]{26})\)/.exec(tenant.stdout)![1];

    const run = await admin("tokens", "create", "--tenant", "tok-co", "--name", "ci", "--type", "api");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^api-[A-Za-z0-9_-]{43}\n$/);
    expect(run.stderr).toMatch(/created api token "ci" \(tok_[0-9a-z]{26}\).*shown only this once/);
    const token = run.stdout.trim();
    // It works at once, in that tenant: it sees that tenant's tokens, this one among them.
    const listed = await api("/tokens", { token });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t: { name: string }) => t.name)).toEqual(["ci"]);

    const byId = await admin("tokens", "create", "--tenant", tenantId, "--name", "scanner", "--type", "sensor");
    expect(byId.code, byId.stderr).toBe(0);
    expect(byId.stdout).toMatch(/^sensor-/);
    // A sensor token may not read business data.
    expect((await api("/orders", { token: byId.stdout.trim() })).status).toBe(403);
  });

  it("refuses an unknown tenant or type with exit 2 and prints no token", async () => {
    const [noTenant, badType] = await Promise.all([
      admin("tokens", "create", "--tenant", "no-such-tenant", "--name", "x", "--type", "api"),
      admin("tokens", "create", "--tenant", "default", "--name", "x", "--type", "root"),
    ]);
    expect(noTenant.code).toBe(2);
    expect(noTenant.stderr).toMatch(/tenant_not_found: no tenant named or with id "no-such-tenant"/);
    expect(noTenant.stdout).toBe("");
    expect(badType.code).toBe(2);
    expect(badType.stderr).toMatch(/--type.*one of api, cli, machine, sensor/);
    expect(badType.stdout).toBe("");
  });

  it("resets a user's password: the new one logs in, the old one no longer does", async () => {
    const created = await admin("create-tenant", "pw-co", "--admin-email", "ops@pw-co.test", "--admin-password", "old-password-1");
    expect(created.code, created.stderr).toBe(0);
    const reset = await admin("reset-password", "--email", "OPS@pw-co.test");
    expect(reset.code, reset.stderr).toBe(0);
    const password = /password: (\S+)/.exec(reset.stdout)![1];
    expect((await api("/auth/login", { json: { email: "ops@pw-co.test", password } })).status).toBe(200);
    expect((await api("/auth/login", { json: { email: "ops@pw-co.test", password: "old-password-1" } })).status).toBe(401);

    const given = await admin("reset-password", "--email", "ops@pw-co.test", "--tenant", "pw-co", "--password", "chosen-password-1");
    expect(given.code, given.stderr).toBe(0);
    expect(given.stdout).not.toContain("chosen-password-1");
    expect((await api("/auth/login", { json: { email: "ops@pw-co.test", password: "chosen-password-1" } })).status).toBe(200);

    const wrongTenant = await admin("reset-password", "--email", "ops@pw-co.test", "--tenant", "tok-co", "--password", "other-password-1");
    expect(wrongTenant.code).toBe(2);
    expect(wrongTenant.stderr).toMatch(/user_not_found/);
    const nobody = await admin("reset-password", "--email", "nobody@pw-co.test");
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toMatch(/user_not_found: no user with email nobody@pw-co\.test/);
  });
});
