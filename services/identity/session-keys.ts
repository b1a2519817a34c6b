// Ed25519 keys that sign session JWTs. Identity creates one on first start (under a lock, so
// replicas agree on it) and signs with the newest it can open; the edge verifies with the public
// JWK Set. Private keys are sealed at rest under IDENTITY_SECRET_KEY, bound to their key id.
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type JWK, type CryptoKey } from "jose";
import { withAdvisoryLock } from "@waybill/platform/locks.js";
import type { Pool, PoolClient } from "@waybill/platform/db.js";
import type { SealedBox } from "@waybill/platform/sealed-box.js";
import { SESSION_ALGORITHM } from "@waybill/contracts/identity/sessions.js";

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

export interface SessionKeys {
  current: SigningKey;
  jwks: { keys: JWK[] };
  /** Stored keys this start could not open (another IDENTITY_SECRET_KEY sealed them). */
  unopened: string[];
}

interface KeyRow {
  kid: string;
  private_pem: string | null;
  private_sealed: string | null;
  public_jwk: JWK;
}

async function createKey(client: PoolClient, box: SealedBox): Promise<KeyRow & { pem: string }> {
  const { publicKey, privateKey } = await generateKeyPair(SESSION_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  const pem = await exportPKCS8(privateKey);
  const row = { kid, private_pem: null, private_sealed: box.seal(pem, kid), public_jwk: { ...jwk, kid, alg: SESSION_ALGORITHM, use: "sig" } };
  await client.query("INSERT INTO signing_keys (kid, private_sealed, public_jwk) VALUES ($1, $2, $3)", [row.kid, row.private_sealed, row.public_jwk]);
  return { ...row, pem };
}

/** Seals keys stored in the clear by earlier versions, then clears the plain copy. */
async function sealPlainKeys(client: PoolClient, rows: KeyRow[], box: SealedBox): Promise<void> {
  for (const row of rows) {
    if (row.private_pem === null) continue;
    row.private_sealed = box.seal(row.private_pem, row.kid);
    await client.query("UPDATE signing_keys SET private_sealed = $2, private_pem = NULL WHERE kid = $1", [row.kid, row.private_sealed]);
    row.private_pem = null;
  }
}

export async function loadSessionKeys(pool: Pool, box: SealedBox): Promise<SessionKeys> {
  return withAdvisoryLock(pool, "waybill:identity:signing-keys", async (client) => {
    const { rows } = await client.query<KeyRow>("SELECT kid, private_pem, private_sealed, public_jwk FROM signing_keys ORDER BY created_at DESC");
    const plain = new Map(rows.filter((r) => r.private_pem !== null).map((r) => [r.kid, r.private_pem as string]));
    await sealPlainKeys(client, rows, box);
    const unopened: string[] = [];
    let current: { kid: string; pem: string } | undefined;
    for (const row of rows) {
      const pem = plain.get(row.kid) ?? tryOpen(box, row);
      if (pem === undefined) unopened.push(row.kid);
      else current ??= { kid: row.kid, pem };
    }
    // None opens (first start, or the sealing key changed): a new key signs from now on; the
    // public halves of the old ones stay published, so sessions they signed verify until expiry.
    const jwks = rows.map((r) => r.public_jwk);
    if (!current) {
      const created = await createKey(client, box);
      current = { kid: created.kid, pem: created.pem };
      jwks.unshift(created.public_jwk);
    }
    return { current: { kid: current.kid, privateKey: await importPKCS8(current.pem, SESSION_ALGORITHM) }, jwks: { keys: jwks }, unopened };
  });
}

function tryOpen(box: SealedBox, row: KeyRow): string | undefined {
  if (row.private_sealed === null) return undefined;
  try {
    return box.open(row.private_sealed, row.kid);
  } catch {
    return undefined;
  }
}
