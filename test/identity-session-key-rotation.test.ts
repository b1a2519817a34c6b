// Session signing keys rotate without logging anyone out: on demand (`npm run admin --
// rotate-session-key`) and on a schedule (SESSION_KEY_ROTATE_EVERY). Tokens signed before a
// rotation keep verifying at the edge, new ones name the new key, and a replaced key leaves the
// published key set only once every token it signed has expired.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { credentials } from "@grpc/grpc-js";
import { decodeProtectedHeader } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdentityServiceClient, type GetSigningKeysResponse } from "@waybill/contracts/gen/waybill/identity/v1/identity.js";
import { loadEdgeConfig } from "../services/edge/config.js";
import { startEdge, type EdgeHandle } from "../services/edge/service.js";
import { loadIdentityConfig } from "../services/identity/config.js";
import { startIdentity, type IdentityHandle } from "../services/identity/service.js";
import { sessionKeyPolicy } from "../services/identity/session-keys.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { eventually, request } from "./support/http.js";
import { NODE_ARGS, ROOT } from "./support/processes.js";

const ADMIN = { email: "admin@keys.test", password: "admin-password-1" };
const CHECK_INTERVAL_MS = 300;
const SECRET_KEY = randomBytes(32).toString("base64");
// What identity keeps a retired key for with these settings (15 min tokens).
const KEEP_RETIRED_MS = sessionKeyPolicy({ rotateEveryMs: 0, accessTtlSeconds: 900, checkIntervalMs: CHECK_INTERVAL_MS }).keepRetiredMs;

let env: TestEnvironment;
let identity: IdentityHandle;
let edge: EdgeHandle;
let grpc: IdentityServiceClient;
let db: pg.Client;

beforeAll(async () => {
  env = await createTestEnvironment();
  identity = await startIdentity(
    loadIdentityConfig({
      ...env.env,
      GRPC_PORT: "0",
      OPS_PORT: "0",
      IDENTITY_SECRET_KEY: SECRET_KEY,
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      SESSION_KEY_CHECK_INTERVAL_MS: String(CHECK_INTERVAL_MS),
    }),
    { announce: () => {} },
  );
  edge = await startEdge(loadEdgeConfig({ ...env.env, HTTP_PORT: "0", OPS_PORT: "0", IDENTITY_GRPC_URL: `127.0.0.1:${identity.grpcPort}` }));
  grpc = new IdentityServiceClient(`127.0.0.1:${identity.grpcPort}`, credentials.createInsecure());
  db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
}, 60_000);
afterAll(async () => {
  grpc?.close();
  await db?.end();
  await edge?.stop();
  await identity?.stop();
  await env?.cleanup();
});

async function login(): Promise<{ token: string; kid: string }> {
  const answer = await request(`${edge.url}/v1/auth/login`, { json: ADMIN });
  expect(answer.status).toBe(200);
  return { token: answer.body.accessToken, kid: decodeProtectedHeader(answer.body.accessToken).kid as string };
}

/** The status the edge answers a request made with `token`. */
const useAtEdge = async (token: string) => (await request(`${edge.url}/v1/auth/sessions`, { token })).status;

async function publishedKids(): Promise<string[]> {
  const keys = await new Promise<GetSigningKeysResponse>((resolve, reject) => grpc.getSigningKeys({}, (e, r) => (e ? reject(e) : resolve(r))));
  return (JSON.parse(keys.jwksJson) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
}

/** Waits for identity to sign with a key other than `kid`. */
const signedWithNewKey = (kid: string) =>
  eventually(async () => {
    const session = await login();
    return session.kid === kid ? undefined : session;
  });

function rotateSessionKey(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, path.join(ROOT, "services/identity/admin-cli.ts"), "rotate-session-key"], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: env.databaseUrl, IDENTITY_SECRET_KEY: SECRET_KEY, SESSION_KEY_CHECK_INTERVAL_MS: String(CHECK_INTERVAL_MS) },
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

/** Pretends the key was retired `agoMs` ago. */
const retiredAgo = (kid: string, agoMs: number) =>
  db.query("UPDATE identity.signing_keys SET retired_at = now() - make_interval(secs => $2) WHERE kid = $1", [kid, agoMs / 1000]);

describe("session signing key rotation", () => {
  let first: { token: string; kid: string };
  let secondKid: string;

  it("on demand: new tokens name the new key, tokens signed before keep verifying", async () => {
    const warm = await login();
    expect(await useAtEdge(warm.token)).toBe(200); // the edge now holds the key set of before
    first = await login(); // signed before the rotation, first shown to the edge after it

    const run = await rotateSessionKey();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/session signing key rotated: \S+ signs from now on/);
    expect(run.stdout).toContain(`retired ${first.kid}`);

    const second = await signedWithNewKey(first.kid);
    secondKid = second.kid;
    expect(run.stdout).toContain(`${secondKid} signs from now on`);
    // The edge has not seen the new key: it fetches the key set again and accepts the token.
    expect(await useAtEdge(second.token)).toBe(200);
    expect(await useAtEdge(first.token)).toBe(200);
    expect(await publishedKids()).toEqual([secondKid, first.kid]);

    const { rows } = await db.query("SELECT private_pem, private_sealed FROM identity.signing_keys WHERE kid = $1", [secondKid]);
    expect(rows[0].private_pem).toBeNull();
    expect(rows[0].private_sealed).toMatch(/^v1\./);
  }, 60_000);

  it("keeps a retired key published while tokens it signed may live, and drops it after", async () => {
    await retiredAgo(first.kid, KEEP_RETIRED_MS - 30_000);
    await new Promise((r) => setTimeout(r, CHECK_INTERVAL_MS * 3));
    expect(await publishedKids()).toContain(first.kid);

    await retiredAgo(first.kid, KEEP_RETIRED_MS + 1_000);
    await eventually(async () => ((await publishedKids()).includes(first.kid) ? undefined : true));
    expect(await publishedKids()).toEqual([secondKid]);
    const { rows } = await db.query("SELECT kid FROM identity.signing_keys");
    expect(rows.map((r) => r.kid)).toEqual([secondKid]);
  });

  it("on schedule: a key older than SESSION_KEY_ROTATE_EVERY (30 days) is replaced", async () => {
    const before = await login();
    expect(before.kid).toBe(secondKid);
    await db.query("UPDATE identity.signing_keys SET created_at = now() - interval '31 days' WHERE kid = $1", [secondKid]);
    const after = await signedWithNewKey(secondKid);
    expect(await publishedKids()).toEqual([after.kid, secondKid]);
    expect(await useAtEdge(after.token)).toBe(200);
    expect(await useAtEdge(before.token)).toBe(200);
  }, 30_000);

  it("refuses to rotate without identity's sealing key", async () => {
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [...NODE_ARGS, path.join(ROOT, "services/identity/admin-cli.ts"), "rotate-session-key"], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: env.databaseUrl, IDENTITY_SECRET_KEY: "", WAYBILL_DATA_DIR: path.join(ROOT, "test-artifacts/no-such-data-dir") },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (c) => (stderr += c));
      child.once("exit", (code) => resolve({ code, stderr }));
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("missing_identity_secret_key");
  });
});
