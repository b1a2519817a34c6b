// Publishes outbox rows this process committed, from memory, the moment they commit, and then
// deletes them from the table in batches. Publishing waits for nothing: a lone event is on NATS
// one acknowledgement after its commit. Rows that come while a batch is out go together in the
// next. A row whose publish fails stays in the table for the relay's next read of it; a row
// whose delete fails is read and published again later, which JetStream deduplicates by its id.
import type { Logger } from "./logger.js";
import { headers, publishDurable, type Bus } from "./nats.js";
import type { OutboxRow } from "./outbox-signal.js";
import type { Pool } from "./db.js";
import { preparedStatement } from "./prepared.js";

const DELETE_PUBLISHED = preparedStatement("outbox_delete_published", "DELETE FROM outbox WHERE id = ANY($1::text[])");

/** Publishes rows in order: sent back to back on one connection, acknowledgements awaited together. */
export async function publishRows(bus: Bus, rows: readonly OutboxRow[]): Promise<void> {
  await Promise.all(
    rows.map((row) => {
      const h = headers();
      for (const [k, v] of Object.entries(row.headers)) h.set(k, v);
      return publishDurable(bus, row.subject, JSON.stringify(row.event), { msgId: row.id, headers: h });
    }),
  );
}

export interface CommittedPublisherOptions {
  pool: Pool;
  bus: Bus;
  logger: Logger;
  schema: string;
  /** Rows per publish batch. */
  batchSize: number;
  /** How long rows that came during a publish wait for company before the next batch. */
  lingerMs: number;
  /** Called after publishing a batch and before deleting it; tests use it to simulate a crash. */
  afterPublish?: (ids: string[]) => Promise<void>;
  onPublished?: (count: number) => void;
  /** Rows were deleted (for the relay's vacuum accounting). */
  onDeleted?: (count: number) => void;
  /** Rows are left in the table (their publish or delete failed): the relay reads them later. */
  onLeftInTable: () => void;
}

export interface CommittedPublisher {
  /** Rows that committed: publishes them, then deletes them. */
  take(rows: readonly OutboxRow[]): void;
  /** Ids taken and not yet deleted, which a read of the table must leave alone. */
  inHand(): string[];
  /** Resolves when everything taken so far is published and deleted (or left in the table). */
  settled(): Promise<void>;
}

export function createCommittedPublisher(options: CommittedPublisherOptions): CommittedPublisher {
  const { pool, bus, logger, schema } = options;
  const queue: OutboxRow[] = [];
  const held = new Map<string, number>(); // id → how many takes hold it (a message may be queued twice)
  let toDelete: string[] = [];
  let publishing: Promise<void> | undefined;
  let deleting: Promise<void> | undefined;

  const hold = (id: string) => held.set(id, (held.get(id) ?? 0) + 1);
  const release = (ids: readonly string[]) => {
    for (const id of ids) {
      const count = (held.get(id) ?? 1) - 1;
      if (count > 0) held.set(id, count);
      else held.delete(id);
    }
  };

  async function publishQueued(): Promise<void> {
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, options.batchSize);
        const ids = batch.map((row) => row.id);
        try {
          await publishRows(bus, batch);
          if (options.afterPublish) await options.afterPublish(ids);
        } catch (error) {
          logger.warn({ err: (error as Error).message, schema, rows: ids.length }, "outbox rows not published; the relay retries them");
          release(ids);
          options.onLeftInTable();
          continue;
        }
        options.onPublished?.(batch.length);
        toDelete.push(...ids);
        if (!deleting) deleting = deletePublished();
        // Rows that came meanwhile are a busy writer: wait a moment for more, so the next batch
        // (and what consumes it downstream) is not one row at a time.
        if (queue.length > 0 && queue.length < options.batchSize) await new Promise((r) => setTimeout(r, options.lingerMs));
      }
    } finally {
      publishing = undefined;
    }
  }

  async function deletePublished(): Promise<void> {
    try {
      while (toDelete.length > 0) {
        const ids = toDelete;
        toDelete = [];
        try {
          await pool.query(DELETE_PUBLISHED([ids]));
          options.onDeleted?.(ids.length);
        } catch (error) {
          logger.warn({ err: (error as Error).message, schema, rows: ids.length }, "published outbox rows not deleted; the relay deletes them");
          options.onLeftInTable();
        } finally {
          release(ids);
        }
      }
    } finally {
      deleting = undefined;
    }
  }

  return {
    take(rows) {
      if (rows.length === 0) return;
      for (const row of rows) hold(row.id);
      queue.push(...rows);
      if (!publishing) publishing = publishQueued();
    },
    inHand: () => [...held.keys()],
    async settled() {
      while (publishing || deleting) await Promise.all([publishing, deleting]);
    },
  };
}
