// What the two restart scenarios share: the whole system as `npm start` runs it (one real process,
// so a crash shows as its exit), a bounded load of order creations from a few clients, and the
// tally of what was answered 201 against what the hook received.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { request, type Answer } from "./support/http.js";
import { runTs, type Child } from "./support/processes.js";
import type { TestReceiver } from "./webhooks-fixtures.js";

export interface System {
  env: TestEnvironment;
  launcher: Child;
  call(path: string, init?: { method?: string; json?: unknown }): Promise<Answer>;
  stop(): Promise<void>;
}

/** `npm start` against the given servers (the test's own), with a bootstrap token. */
export async function startSystem(servers: { databaseUrl?: string; natsUrl?: string }, extraEnv: Record<string, string> = {}): Promise<System> {
  const env = await createTestEnvironment(servers);
  const token = `api-${randomBytes(32).toString("base64url")}`;
  const launcher = runTs("services/launcher/main.ts", {
    ...env.env,
    HTTP_PORT: "0",
    MQTT_PORT: "0",
    BOOTSTRAP_API_TOKEN: token,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    LOG_LEVEL: "warn",
    ...extraEnv,
  });
  const [, base] = await launcher.waitForOutput(/HTTP API: +(http:\/\/\S+\/v1)/, 60_000);
  await launcher.waitForOutput(/Press Ctrl-C to stop\./, 60_000);
  return {
    env,
    launcher,
    call: (path, init = {}) => request(`${base}${path}`, { token, ...init }),
    async stop() {
      if (launcher.process.exitCode === null && launcher.process.signalCode === null) {
        launcher.process.kill("SIGTERM");
        await launcher.exited(30_000).catch(() => launcher.process.kill("SIGKILL"));
      }
      await env.cleanup().catch(() => {});
    },
  };
}

export interface LoadTally {
  /** Ids of the orders answered 201. */
  created: string[];
  /** Answers that were not 201, by status and problem code, with their Retry-After when given. */
  refused: Map<string, number>;
  /** Refusals that carried no Retry-After. */
  withoutRetryAfter: number;
  /** Requests that got no HTTP answer at all (connection refused or reset). */
  unanswered: number;
}

/** `clients` loops creating orders until `until()` says stop (creating the product they order first). */
export async function orderLoad(call: System["call"], customerId: string, clients: number, until: () => boolean): Promise<LoadTally> {
  const product = await call("/products", { json: { sku: `LOAD-${randomBytes(4).toString("hex")}`, name: "Load product" } });
  if (product.status !== 201) throw new Error(`could not create the load's product: ${product.status} ${JSON.stringify(product.body)}`);
  const productId = product.body.id as string;
  const tally: LoadTally = { created: [], refused: new Map(), withoutRetryAfter: 0, unanswered: 0 };
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!until()) {
        try {
          const answer = await call("/orders", {
            json: { shortId: `ORD-${randomBytes(5).toString("hex")}`, customerId, currency: "EUR", orderItems: [{ productId, quantity: 1, price: "2.50" }] },
          });
          if (answer.status === 201) tally.created.push(answer.body.id);
          else {
            const key = `${answer.status} ${answer.body?.code ?? ""}`.trim();
            tally.refused.set(key, (tally.refused.get(key) ?? 0) + 1);
            if (!answer.headers.get("retry-after")) tally.withoutRetryAfter += 1;
            await new Promise((r) => setTimeout(r, 50));
          }
        } catch {
          tally.unanswered += 1;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    }),
  );
  return tally;
}

/** Ids of orders answered 201 whose order.created the receiver has not received. */
export function undelivered(created: string[], receiver: TestReceiver): string[] {
  const received = new Set(receiver.received.map((r) => r.json?.orderId));
  return created.filter((id) => !received.has(id));
}

/**
 * Where each undelivered order's order.created stands, for the failure message: still in the
 * orders outbox, in the dispatcher's event log, its delivery queued in the dispatcher's outbox,
 * and the executions recorded for it.
 */
export async function whereAreThey(databaseUrl: string, orderIds: string[]): Promise<unknown[]> {
  if (orderIds.length === 0) return [];
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const out: unknown[] = [];
    for (const id of orderIds) {
      const inOrdersOutbox = await client.query("SELECT id, created_at FROM orders.outbox WHERE event->>'orderId' = $1", [id]);
      const logged = await client.query("SELECT id, received_at FROM dispatcher.event_log WHERE event->>'orderId' = $1 AND kind = 'order.created'", [id]);
      const eventIds = logged.rows.map((r) => r.id as string);
      const queued = await client.query("SELECT id, subject, created_at FROM dispatcher.outbox WHERE event::text LIKE ANY($1)", [
        eventIds.map((e) => `%${e}%`),
      ]);
      const executions = await client.query(
        "SELECT id, trigger, attempt, outcome, status_code, error, next_attempt_at, requested_at FROM dispatcher.executions WHERE event_id = ANY($1)",
        [eventIds],
      );
      out.push({ id, inOrdersOutbox: inOrdersOutbox.rows, logged: logged.rows, queuedDeliveries: queued.rows, executions: executions.rows });
    }
    return out;
  } finally {
    await client.end();
  }
}
