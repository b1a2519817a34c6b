// Dead letters: where a consumer puts a message it gives up on, instead of redelivering it for
// ever (one bad message must not hold up its stream) or dropping it silently (nothing is lost).
// A message is given up on when it can never succeed (PoisonMessage: invalid) or when it has
// failed CONSUMER_MAX_DELIVER deliveries. `npm run dead-letters` lists and replays them.
import type { JsMsg } from "@nats-io/jetstream";
import { Counter, type Registry } from "prom-client";
import type { Pool } from "./db.js";
import { headers as natsHeaders, type Bus } from "./nats.js";

export const DEAD_LETTERS_METRIC = "waybill_dead_letters_total";

/** Thrown by a handler for a message that can never be handled (malformed, invalid): no retries. */
export class PoisonMessage extends Error {
  override readonly name = "PoisonMessage";
}

export interface DeadLetters {
  record(consumer: string, stream: string, message: JsMsg, error: string): Promise<void>;
}

export function createDeadLetters(pool: Pool, registry: Registry): DeadLetters {
  const counter =
    (registry.getSingleMetric(DEAD_LETTERS_METRIC) as Counter<"consumer"> | undefined) ??
    new Counter({ name: DEAD_LETTERS_METRIC, help: "Messages given up on and kept as dead letters", labelNames: ["consumer"], registers: [registry] });
  return {
    async record(consumer, stream, message, error) {
      const headers: Record<string, string> = {};
      for (const [key, values] of message.headers ?? []) headers[key] = values[0];
      await pool.query(
        "INSERT INTO dead_letters (consumer, stream, subject, message_id, headers, payload, error, deliveries) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        [
          consumer,
          stream,
          message.subject,
          message.headers?.get("Nats-Msg-Id") || null,
          headers,
          message.string(),
          error.slice(0, 4_000),
          message.info.deliveryCount,
        ],
      );
      counter.inc({ consumer });
    },
  };
}

export interface DeadLetter {
  id: string;
  consumer: string;
  subject: string;
  messageId: string | null;
  error: string;
  deliveries: number;
  deadAt: Date;
  replayedAt: Date | null;
}

export async function listDeadLetters(pool: Pool, options: { includeReplayed?: boolean; limit?: number } = {}): Promise<DeadLetter[]> {
  const { rows } = await pool.query(
    `SELECT id::text, consumer, subject, message_id AS "messageId", error, deliveries, dead_at AS "deadAt", replayed_at AS "replayedAt"
       FROM dead_letters WHERE $1 OR replayed_at IS NULL ORDER BY id DESC LIMIT $2`,
    [options.includeReplayed ?? false, options.limit ?? 100],
  );
  return rows as DeadLetter[];
}

/**
 * Publishes the dead letter again to its subject with its headers, so its consumer takes it once
 * more (idempotently: under its own message id), and marks it replayed.
 */
export async function replayDeadLetter(pool: Pool, bus: Bus, id: string): Promise<DeadLetter> {
  const { rows } = await pool.query<{ subject: string; headers: Record<string, string>; payload: string }>(
    "SELECT subject, headers, payload FROM dead_letters WHERE id = $1",
    [id],
  );
  if (rows.length === 0) throw new Error(`no dead letter ${id}`);
  const h = natsHeaders();
  for (const [key, value] of Object.entries(rows[0].headers)) if (key !== "Nats-Msg-Id") h.set(key, value);
  const original = rows[0].headers["Nats-Msg-Id"];
  // A new message id: JetStream would drop a republish under the old one within its duplicate window.
  await bus.js.publish(rows[0].subject, rows[0].payload, { headers: h, msgID: `${original ?? "dead-letter"}:replay:${id}` });
  const { rows: updated } = await pool.query(
    `UPDATE dead_letters SET replayed_at = now() WHERE id = $1
     RETURNING id::text, consumer, subject, message_id AS "messageId", error, deliveries, dead_at AS "deadAt", replayed_at AS "replayedAt"`,
    [id],
  );
  return updated[0] as DeadLetter;
}
