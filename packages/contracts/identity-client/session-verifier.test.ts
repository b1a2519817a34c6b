import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { describe, expect, it } from "vitest";
import type { IdentityServiceClient } from "../gen/waybill/identity/v1/identity.js";
import { createSessionVerifier } from "./session-verifier.js";

async function signingKey(kid: string): Promise<{ kid: string; privateKey: CryptoKey; jwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair("Ed25519", { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "Ed25519", use: "sig" } };
}

function token(key: { kid: string; privateKey: CryptoKey }, claims: { sid?: string; iat?: number } = {}): Promise<string> {
  return new SignJWT({ tid: "ten_1", role: "admin", ...(claims.sid ? { sid: claims.sid } : {}) })
    .setProtectedHeader({ alg: "Ed25519", kid: key.kid })
    .setSubject("usr_1")
    .setIssuer("waybill-identity")
    .setAudience("waybill-api")
    .setIssuedAt(claims.iat ?? Math.floor(Date.now() / 1000))
    .setExpirationTime("10m")
    .sign(key.privateKey);
}

/** Identity's GetSigningKeys answering whatever `keys` holds at the moment, counting the calls. */
function fakeIdentity(keys: JWK[]) {
  const state = {
    fetches: 0,
    fetchedAt: [] as number[],
    client: {
      getSigningKeys(_request: unknown, _metadata: unknown, _options: unknown, callback: (e: null, r: { jwksJson: string }) => void) {
        state.fetches += 1;
        state.fetchedAt.push(performance.now());
        callback(null, { jwksJson: JSON.stringify({ keys }) });
      },
    } as unknown as IdentityServiceClient,
  };
  return state;
}

describe("session verifier", () => {
  it("accepts a token of a key created just after its last fetch, by waiting for the next fetch", async () => {
    const first = await signingKey("k1");
    const keys = [first.jwk];
    const identity = fakeIdentity(keys);
    const verifier = createSessionVerifier(identity.client, { jwksRefreshMinIntervalMs: 200 });
    await verifier.verify(await token(first));
    // Identity rotates a moment later; the first token of the new key arrives within the interval.
    const second = await signingKey("k2");
    keys.unshift(second.jwk);
    await expect(verifier.verify(await token(second))).resolves.toMatchObject({ credentialId: "usr_1" });
    expect(identity.fetches).toBe(2);
    // It waited for the next fetch the interval allows rather than fetching at once (timed from
    // the fetches themselves, so a slow machine between the two can only lengthen the gap).
    expect(identity.fetchedAt[1] - identity.fetchedAt[0]).toBeGreaterThanOrEqual(190);
  });

  it("refuses at once a token naming an unknown key that was issued before the keys were fetched", async () => {
    const known = await signingKey("k1");
    const identity = fakeIdentity([known.jwk]);
    const verifier = createSessionVerifier(identity.client, { jwksRefreshMinIntervalMs: 60_000 });
    await verifier.verify(await token(known));
    const stranger = await signingKey("k9");
    const started = Date.now();
    await expect(verifier.verify(await token(stranger, { iat: Math.floor(Date.now() / 1000) - 60 }))).rejects.toMatchObject({ code: "invalid_session" });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(identity.fetches).toBe(1);
  });

  it("refuses the tokens of a revoked session, cached or not, and only those", async () => {
    const key = await signingKey("k1");
    const verifier = createSessionVerifier(fakeIdentity([key.jwk]).client);
    const seen = await token(key, { sid: "ses_a" });
    await expect(verifier.verify(seen)).resolves.toMatchObject({ sessionId: "ses_a" });
    verifier.revoke("ses_a");
    await expect(verifier.verify(seen)).rejects.toMatchObject({ status: 401, code: "session_revoked" });
    await expect(verifier.verify(await token(key, { sid: "ses_a", iat: Math.floor(Date.now() / 1000) - 1 }))).rejects.toMatchObject({
      code: "session_revoked",
    });
    await expect(verifier.verify(await token(key, { sid: "ses_b" }))).resolves.toMatchObject({ sessionId: "ses_b" });
  });
});
