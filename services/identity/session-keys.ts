// Ed25519 keys that sign session JWTs. Identity creates one on first start (under a lock, so
// replicas agree on it) and signs with the newest; the edge verifies with the public JWK Set.
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type JWK, type CryptoKey } from "jose";
import { withAdvisoryLock } from "@waybill/platform/locks.js";
import type { Pool } from "@waybill/platform/db.js";
import { SESSION_ALGORITHM } from "@waybill/contracts/identity/sessions.js";

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

export interface SessionKeys {
  current: SigningKey;
  jwks: { keys: JWK[] };
}

export async function loadSessionKeys(pool: Pool): Promise<SessionKeys> {
  return withAdvisoryLock(pool, "waybill:identity:signing-keys", async (client) => {
    let { rows } = await client.query<{ kid: string; private_pem: string; public_jwk: JWK }>(
      "SELECT kid, private_pem, public_jwk FROM signing_keys ORDER BY created_at DESC",
    );
    if (rows.length === 0) {
      const { publicKey, privateKey } = await generateKeyPair(SESSION_ALGORITHM, { extractable: true });
      const jwk = await exportJWK(publicKey);
      const kid = await calculateJwkThumbprint(jwk);
      const row = { kid, private_pem: await exportPKCS8(privateKey), public_jwk: { ...jwk, kid, alg: SESSION_ALGORITHM, use: "sig" } };
      await client.query("INSERT INTO signing_keys (kid, private_pem, public_jwk) VALUES ($1, $2, $3)", [row.kid, row.private_pem, row.public_jwk]);
      rows = [row];
    }
    return {
      current: { kid: rows[0].kid, privateKey: await importPKCS8(rows[0].private_pem, SESSION_ALGORITHM) },
      jwks: { keys: rows.map((r) => r.public_jwk) },
    };
  });
}
