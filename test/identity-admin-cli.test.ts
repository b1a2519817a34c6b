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
import { ROOT } from "./support/processes.js";

let env: TestEnvironment;
let identity: IdentityHandle;
let edge: EdgeHandle;

beforeAll(async () => {
  env = await createTestEnvironment();
  identity = await startIdentity(loadIdentityConfig({ ...env.env, GRPC_PORT: "0", OPS_PORT: "0", BOOTSTRAP_API_TOKEN: `api-${randomBytes(32).toString("base64url")}` }), { announce: () => {} });
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
    const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, "services/identity/admin-cli.ts"), ...args], {
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
