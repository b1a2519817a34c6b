// First start: tenant `default`, an admin and one api token; never twice.
import pg from "pg";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadIdentityConfig } from "../services/identity/config.js";
import { startIdentity } from "../services/identity/service.js";
import { bootstrapCredentialsText } from "../services/identity/bootstrap-credentials.js";
import { verifyPassword } from "../services/identity/passwords.js";
import { hashToken } from "@waybill/contracts/identity/tokens.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";

let env: TestEnvironment | undefined;
afterEach(async () => {
  await env?.cleanup();
  env = undefined;
});

async function query(databaseUrl: string, sql: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe("identity bootstrap", () => {
  it("uses BOOTSTRAP_API_TOKEN and the configured admin, prints no secret, and never runs again", async () => {
    env = await createTestEnvironment();
    const token = "api-configured-bootstrap-token-0123456789";
    const config = loadIdentityConfig({
      ...env.env,
      GRPC_PORT: "0",
      OPS_PORT: "0",
      BOOTSTRAP_API_TOKEN: token,
      BOOTSTRAP_ADMIN_EMAIL: "ops@example.com",
      BOOTSTRAP_ADMIN_PASSWORD: "correct horse battery",
    });
    const printed: string[] = [];
    const first = await startIdentity(config, { announce: (result) => void printed.push(bootstrapCredentialsText(result)) });
    await first.stop();

    expect(first.bootstrap).toMatchObject({ adminEmail: "ops@example.com" });
    expect(printed.join("")).toContain('tenant "default"');
    expect(printed.join("")).not.toContain(token);
    expect(printed.join("")).not.toContain("correct horse battery");

    const tenants = await query(env.databaseUrl, "SELECT id, name FROM identity.tenants");
    expect(tenants).toEqual([{ id: expect.stringMatching(/^ten_/), name: "default" }]);
    const tokens = await query(env.databaseUrl, "SELECT type, token_hash FROM identity.api_tokens");
    expect(tokens).toEqual([{ type: "api", token_hash: hashToken(token) }]);
    const users = await query(env.databaseUrl, "SELECT email, role, password_hash FROM identity.users");
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ email: "ops@example.com", role: "admin" });
    expect(await verifyPassword("correct horse battery", users[0].password_hash)).toBe(true);

    const second = await startIdentity(config, { announce: (result) => void printed.push(bootstrapCredentialsText(result)) });
    await second.stop();
    expect(second.bootstrap).toBeUndefined();
    expect(printed).toHaveLength(1);
    expect(await query(env.databaseUrl, "SELECT count(*)::int AS n FROM identity.api_tokens")).toEqual([{ n: 1 }]);
  });

  it("generates and prints a token and password once when none is configured", async () => {
    env = await createTestEnvironment();
    const config = loadIdentityConfig({ ...env.env, GRPC_PORT: "0", OPS_PORT: "0" });
    const printed: string[] = [];
    const handle = await startIdentity(config, { announce: (result) => void printed.push(bootstrapCredentialsText(result)) });
    await handle.stop();
    const token = handle.bootstrap?.generatedApiToken;
    expect(token).toMatch(/^api-[A-Za-z0-9_-]{43}$/);
    expect(printed.join("")).toContain(token);
    expect(printed.join("")).toContain(handle.bootstrap!.generatedAdminPassword!);
    const tokens = await query(env.databaseUrl, "SELECT token_hash FROM identity.api_tokens");
    expect(tokens).toEqual([{ token_hash: hashToken(token!) }]);
  });

  it("two replicas starting together bootstrap once", async () => {
    env = await createTestEnvironment();
    const config = loadIdentityConfig({ ...env.env, GRPC_PORT: "0", OPS_PORT: "0" });
    const handles = await Promise.all([startIdentity(config, { announce: () => {} }), startIdentity(config, { announce: () => {} })]);
    await Promise.all(handles.map((h) => h.stop()));
    expect(handles.filter((h) => h.bootstrap).length).toBe(1);
    expect(await query(env.databaseUrl, "SELECT count(*)::int AS n FROM identity.tenants")).toEqual([{ n: 1 }]);
  });

  it("without a terminal to show them on, writes generated credentials to a 0600 file and logs only where", async () => {
    env = await createTestEnvironment();
    const dir = await mkdtemp(path.join(os.tmpdir(), "waybill-bootstrap-"));
    const file = path.join(dir, "credentials");
    const lines: string[] = [];
    const capture = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const config = loadIdentityConfig({
        ...env.env,
        GRPC_PORT: "0",
        OPS_PORT: "0",
        LOG_LEVEL: "info",
        LOG_FILE: undefined,
        BOOTSTRAP_CREDENTIALS_FILE: file,
      });
      const handle = await startIdentity(config);
      await handle.stop();
      capture.mockRestore();
      const { generatedApiToken, generatedAdminPassword } = handle.bootstrap!;
      const written = await readFile(file, "utf8");
      expect(written).toContain(generatedApiToken!);
      expect(written).toContain(generatedAdminPassword!);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const output = lines.join("");
      expect(output).toContain(file);
      expect(output).not.toContain(generatedApiToken!);
      expect(output).not.toContain(generatedAdminPassword!);
    } finally {
      capture.mockRestore();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a BOOTSTRAP_API_TOKEN that is not of the form api-<secret>", () => {
    expect(() => loadIdentityConfig({ BOOTSTRAP_API_TOKEN: "cli-abcdefabcdefabcdefabcdef" })).toThrow(/BOOTSTRAP_API_TOKEN/);
    expect(() => loadIdentityConfig({ BOOTSTRAP_API_TOKEN: "api-short" })).toThrow(/BOOTSTRAP_API_TOKEN/);
  });
});
