// Ed25519 keys that sign session JWTs. One key signs at a time; it is replaced when it is older
// than SESSION_KEY_ROTATE_EVERY, on demand (admin `rotate-session-key`), or when it no longer
// opens (IDENTITY_SECRET_KEY changed). A replaced key is retired: its public half stays in the
// JWK Set the edge verifies with until every access JWT it signed has expired, then it is deleted.
// Every replica re-reads the keys periodically under one lock, so they agree on the signing key.
// Private keys are sealed at rest under IDENTITY_SECRET_KEY, bound to their key id.
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type JWK, type CryptoKey } from "jose";
import { withAdvisoryLock } from "@waybill/platform/locks.js";
import type { Pool, PoolClient } from "@waybill/platform/db.js";
import type { SealedBox } from "@waybill/platform/sealed-box.js";
import { SESSION_ALGORITHM } from "@waybill/contracts/identity/sessions.js";

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
}

export interface SessionKeyPolicy {
  /** A signing key older than this is replaced. */
  rotateEveryMs: number;
  /**
   * How long a retired key stays published: the longest an access JWT lives, plus the time the
   * other replicas may still sign with it before they re-read the keys, plus a margin.
   */
  keepRetiredMs: number;
}

export interface SessionKeys {
  current: SigningKey;
  jwks: { keys: JWK[] };
  /** Stored keys that were signing but do not open (another IDENTITY_SECRET_KEY sealed them). */
  unopened: string[];
  /** Keys this call retired (a new key took over). */
  retired: string[];
  /** Retired keys this call deleted: every JWT they signed has expired. */
  dropped: string[];
}

/** Slack on top of the longest access JWT before a retired key is dropped (clock skew, edges' key refresh). */
export const RETIRED_KEY_MARGIN_MS = 60_000;

export function sessionKeyPolicy(settings: { rotateEveryMs: number; accessTtlSeconds: number; checkIntervalMs: number }): SessionKeyPolicy {
  return {
    rotateEveryMs: settings.rotateEveryMs,
    keepRetiredMs: settings.accessTtlSeconds * 1000 + settings.checkIntervalMs + RETIRED_KEY_MARGIN_MS,
  };
}

interface KeyRow {
  kid: string;
  private_pem: string | null;
  private_sealed: string | null;
  public_jwk: JWK;
  retired_at: Date | null;
  /** Older than rotateEveryMs. */
  due: boolean;
}

const LOCK = "waybill:identity:signing-keys";

async function createKey(client: PoolClient, box: SealedBox): Promise<KeyRow & { pem: string }> {
  const { publicKey, privateKey } = await generateKeyPair(SESSION_ALGORITHM, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  const pem = await exportPKCS8(privateKey);
  const row = {
    kid,
    private_pem: null,
    private_sealed: box.seal(pem, kid),
    public_jwk: { ...jwk, kid, alg: SESSION_ALGORITHM, use: "sig" },
    retired_at: null,
    due: false,
  };
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

/**
 * Reads the keys, drops retired ones whose tokens have all expired, and replaces the signing key
 * when it is due (or `rotateNow`), or when none opens. Answers the key to sign with and the JWK Set.
 */
export async function loadSessionKeys(pool: Pool, box: SealedBox, policy: SessionKeyPolicy, options: { rotateNow?: boolean } = {}): Promise<SessionKeys> {
  return withAdvisoryLock(pool, LOCK, async (client) => {
    const { rows: dropped } = await client.query<{ kid: string }>(
      "DELETE FROM signing_keys WHERE retired_at <= now() - make_interval(secs => $1) RETURNING kid",
      [policy.keepRetiredMs / 1000],
    );
    const { rows } = await client.query<KeyRow>(
      `SELECT kid, private_pem, private_sealed, public_jwk, retired_at, created_at <= now() - make_interval(secs => $1) AS due
         FROM signing_keys ORDER BY created_at DESC`,
      [policy.rotateEveryMs / 1000],
    );
    const plain = new Map(rows.filter((r) => r.private_pem !== null).map((r) => [r.kid, r.private_pem as string]));
    await sealPlainKeys(client, rows, box);
    const unopened: string[] = [];
    let current: { row: KeyRow; pem: string } | undefined;
    for (const row of rows) {
      if (row.retired_at !== null) continue;
      const pem = plain.get(row.kid) ?? tryOpen(box, row);
      if (pem === undefined) unopened.push(row.kid);
      else current ??= { row, pem };
    }
    // None opens (first start, or the sealing key changed), or it is due: a new key signs from
    // now on; the public halves of the others stay published until their tokens have expired.
    if (!current || current.row.due || options.rotateNow) {
      const created = await createKey(client, box);
      current = { row: created, pem: created.pem };
      rows.unshift(created);
    }
    const { rows: retired } = await client.query<{ kid: string }>(
      "UPDATE signing_keys SET retired_at = now() WHERE retired_at IS NULL AND kid <> $1 RETURNING kid",
      [current.row.kid],
    );
    return {
      current: { kid: current.row.kid, privateKey: await importPKCS8(current.pem, SESSION_ALGORITHM) },
      jwks: { keys: rows.map((r) => r.public_jwk) },
      unopened,
      retired: retired.map((r) => r.kid),
      dropped: dropped.map((r) => r.kid),
    };
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
