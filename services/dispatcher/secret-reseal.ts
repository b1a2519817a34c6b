// Re-sealing hook secrets under the current WEBHOOK_SECRET_KEY after a key rotation, in batches,
// while deliveries go on: a secret keeps its value, only the key sealing it changes, so nothing a
// receiver checks changes. A secret rotated through the API while its batch is under way is left
// alone (the update applies only to the sealed value that was read). One replica at a time.
import type { Pool, Queryable } from "@waybill/platform/db.js";
import type { Logger } from "@waybill/platform/logger.js";
import { recordSecretKey } from "./secret-key-check.js";
import { secretNotSealedWithSql, type SecretBox } from "./secrets.js";

export interface ResealBatch {
  /** Re-sealed under the current key. */
  resealed: number;
  /** Open with no configured key (sealed under a key that is neither current nor previous). */
  unopenable: string[];
  /** The last hook id looked at; undefined when nothing was left. */
  lastId?: string;
}

/** Hooks whose secret is not sealed with the current key yet. */
export async function countNotResealed(db: Queryable, box: SecretBox): Promise<number> {
  const { rows } = await db.query<{ count: string }>(`SELECT count(*) AS count FROM hooks WHERE ${secretNotSealedWithSql("$1")}`, [box.fingerprint]);
  return Number(rows[0].count);
}

/** Re-seals up to `limit` secrets of hooks after `afterId` (in id order) that the current key did not seal. */
export async function resealBatch(db: Queryable, box: SecretBox, limit: number, afterId = ""): Promise<ResealBatch> {
  const { rows } = await db.query<{ id: string; secret_sealed: string }>(
    `SELECT id, secret_sealed FROM hooks WHERE ${secretNotSealedWithSql("$1")} AND id > $2 ORDER BY id LIMIT $3`,
    [box.fingerprint, afterId, limit],
  );
  const ids: string[] = [];
  const before: string[] = [];
  const after: string[] = [];
  const unopenable: string[] = [];
  for (const row of rows) {
    let secret: string;
    try {
      secret = box.open(row.secret_sealed, row.id);
    } catch {
      unopenable.push(row.id);
      continue;
    }
    ids.push(row.id);
    before.push(row.secret_sealed);
    after.push(box.seal(secret, row.id));
  }
  let resealed = 0;
  if (ids.length > 0) {
    const result = await db.query(
      `UPDATE hooks h SET secret_sealed = u.after
         FROM unnest($1::text[], $2::text[], $3::text[]) AS u(id, before, after)
        WHERE h.id = u.id AND h.secret_sealed = u.before`,
      [ids, before, after],
    );
    resealed = result.rowCount ?? 0;
  }
  return { resealed, unopenable, lastId: rows.at(-1)?.id };
}

export interface ResealPass {
  resealed: number;
  unopenable: string[];
  /** False when another replica held the lock: nothing was done. */
  ran: boolean;
}

export interface ResealOptions {
  batchSize: number;
  /** Pause between batches, so a large store is re-sealed without crowding out deliveries. */
  pauseMs: number;
  onBatch?(progress: { resealed: number; unopenable: number; lastId: string }): void;
  /** Checked between batches. */
  stopped?: () => boolean;
}

const LOCK = "waybill:dispatcher:secret-reseal";

/** One pass over every hook, under a lock only one replica holds (the others skip the pass). */
export async function resealAll(pool: Pool, box: SecretBox, options: ResealOptions): Promise<ResealPass> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(hashtext($1)) AS locked", [LOCK]);
    if (!rows[0].locked) return { resealed: 0, unopenable: [], ran: false };
    try {
      let afterId = "";
      let resealed = 0;
      const unopenable: string[] = [];
      for (;;) {
        const batch = await resealBatch(client, box, options.batchSize, afterId);
        if (batch.lastId === undefined) break;
        afterId = batch.lastId;
        resealed += batch.resealed;
        unopenable.push(...batch.unopenable);
        options.onBatch?.({ resealed, unopenable: unopenable.length, lastId: afterId });
        if (options.stopped?.()) break;
        if (options.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
      }
      // Every secret now opens with the current key alone: the key check records it, so a start
      // without WEBHOOK_SECRET_KEY_PREVIOUS is accepted (also after a re-seal by the command).
      if (!options.stopped?.() && (await countNotResealed(client, box)) === 0) await recordSecretKey(client, box.fingerprint);
      return { resealed, unopenable, ran: true };
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [LOCK]);
    }
  } finally {
    client.release();
  }
}

export interface SecretKeyStatus {
  hooks: number;
  /** Sealed with the current key. */
  current: number;
  /** Not yet, but they open with a configured key: the re-seal will take them. */
  pending: number;
  /** Open with no configured key. */
  unopenable: string[];
}

/** Where every hook's secret stands, for the verify command. */
export async function secretKeyStatus(db: Queryable, box: SecretBox): Promise<SecretKeyStatus> {
  const { rows: total } = await db.query<{ count: string }>("SELECT count(*) AS count FROM hooks");
  const { rows } = await db.query<{ id: string; secret_sealed: string }>(`SELECT id, secret_sealed FROM hooks WHERE ${secretNotSealedWithSql("$1")}`, [
    box.fingerprint,
  ]);
  const unopenable: string[] = [];
  for (const row of rows) {
    try {
      box.open(row.secret_sealed, row.id);
    } catch {
      unopenable.push(row.id);
    }
  }
  const hooks = Number(total[0].count);
  return { hooks, current: hooks - rows.length, pending: rows.length - unopenable.length, unopenable };
}

export interface ResealingDeps {
  pool: Pool;
  box: SecretBox;
  logger: Logger;
  batchSize: number;
  pauseMs: number;
  /**
   * How often a pass looks for hooks left to re-seal. The first pass comes one interval after the
   * start, not at once: in a rolling update, replicas still on the old configuration cannot open
   * secrets sealed under the new key, so the rollout should be over before secrets move to it.
   */
  intervalMs: number;
}

/** Re-seals in the background, a pass every interval; stop() waits for the pass under way. */
export function startSecretResealing(deps: ResealingDeps): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const pass = async () => {
    const result = await resealAll(deps.pool, deps.box, { batchSize: deps.batchSize, pauseMs: deps.pauseMs, stopped: () => stopped });
    if (result.resealed > 0) deps.logger.info({ resealed: result.resealed }, "re-sealed hook secrets under the current WEBHOOK_SECRET_KEY");
    if (result.unopenable.length > 0)
      deps.logger.warn(
        { unopenable: result.unopenable.length, hookIds: result.unopenable.slice(0, 10) },
        "hook secrets that open with neither WEBHOOK_SECRET_KEY nor WEBHOOK_SECRET_KEY_PREVIOUS: their deliveries fail until the hooks' secrets are rotated",
      );
  };
  const run = () => {
    running = running.then(pass).catch((error: Error) => deps.logger.warn({ err: error.message }, "re-sealing hook secrets failed; trying again later"));
  };
  const timer = setInterval(run, deps.intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
