// Session signing keys at rest: sealed under IDENTITY_SECRET_KEY, never stored in the clear;
// keys an earlier version stored in the clear are sealed on start and keep signing; a changed
// key starts a new signing key while the old public halves stay published.
import { randomBytes } from "node:crypto";
import { credentials } from "@grpc/grpc-js";
import { decodeProtectedHeader } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdentityServiceClient, type GetSigningKeysResponse, type LoginResponse } from "@waybill/contracts/gen/waybill/identity/v1/identity.js";
import { createSealedBox, parseSealingKey } from "@waybill/platform/sealed-box.js";
import { loadIdentityConfig } from "../services/identity/config.js";
import { startIdentity } from "../services/identity/service.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";

const ADMIN = { email: "keys@identity.test", password: "keys-password-1" };
let env: TestEnvironment;
let db: pg.Client;

beforeAll(async () => {
  env = await createTestEnvironment();
  db = new pg.Client({ connectionString: env.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await env?.cleanup();
});

/** Starts identity with `key`, logs in, stops; answers the kid that signed the session. */
async function signingKidWith(key: string): Promise<{ kid: string; jwks: { keys: { kid: string }[] } }> {
  const identity = await startIdentity(
    loadIdentityConfig({
      ...env.env,
      GRPC_PORT: "0",
      OPS_PORT: "0",
      IDENTITY_SECRET_KEY: key,
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    }),
    { announce: () => {} },
  );
  const client = new IdentityServiceClient(`127.0.0.1:${identity.grpcPort}`, credentials.createInsecure());
  try {
    const login = await new Promise<LoginResponse>((resolve, reject) => client.login({ ...ADMIN, remember: false }, (e, r) => (e ? reject(e) : resolve(r))));
    const keys = await new Promise<GetSigningKeysResponse>((resolve, reject) => client.getSigningKeys({}, (e, r) => (e ? reject(e) : resolve(r))));
    return { kid: decodeProtectedHeader(login.accessToken).kid as string, jwks: JSON.parse(keys.jwksJson) };
  } finally {
    client.close();
    await identity.stop();
  }
}

const storedKeys = async () =>
  (
    await db.query<{ kid: string; private_pem: string | null; private_sealed: string | null }>(
      "SELECT kid, private_pem, private_sealed FROM identity.signing_keys ORDER BY created_at",
    )
  ).rows;

describe("session signing keys at rest", () => {
  const key = randomBytes(32).toString("base64");

  it("are stored sealed under IDENTITY_SECRET_KEY, bound to their kid, and the same key signs after a restart", async () => {
    const first = await signingKidWith(key);
    const rows = await storedKeys();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kid: first.kid, private_pem: null });
    expect(rows[0].private_sealed).toMatch(/^v1\./);
    expect(rows[0].private_sealed).not.toContain("PRIVATE KEY");
    const pem = createSealedBox(parseSealingKey(key, "IDENTITY_SECRET_KEY")).open(rows[0].private_sealed as string, rows[0].kid);
    expect(pem).toContain("BEGIN PRIVATE KEY");

    expect((await signingKidWith(key)).kid).toBe(first.kid);
    expect(await storedKeys()).toHaveLength(1);
  });

  it("seals a key an earlier version stored in the clear, and keeps signing with it", async () => {
    const [row] = await storedKeys();
    const pem = createSealedBox(parseSealingKey(key, "IDENTITY_SECRET_KEY")).open(row.private_sealed as string, row.kid);
    await db.query("UPDATE identity.signing_keys SET private_pem = $2, private_sealed = NULL WHERE kid = $1", [row.kid, pem]);

    expect((await signingKidWith(key)).kid).toBe(row.kid);
    const [after] = await storedKeys();
    expect(after.private_pem).toBeNull();
    expect(after.private_sealed).toMatch(/^v1\./);
  });

  it("signs with a new key under another IDENTITY_SECRET_KEY, still publishing the old public key", async () => {
    const [old] = await storedKeys();
    const other = await signingKidWith(randomBytes(32).toString("base64"));
    expect(other.kid).not.toBe(old.kid);
    expect(other.jwks.keys.map((k) => k.kid)).toEqual([other.kid, old.kid]);
    expect(await storedKeys()).toHaveLength(2);
  });
});
