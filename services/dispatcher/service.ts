// The dispatcher: consumes EVENTS, keeps the tenant event log, and (next) fans events out to hooks.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Counter } from "prom-client";
import { startConsumer } from "../platform/consumer.js";
import type { EventEnvelope } from "../platform/events/catalog.js";
import { TENANT_ID_NATS_HEADER } from "../platform/nats.js";
import type { ServiceHandle } from "../platform/run-main.js";
import { startRuntime } from "../platform/runtime.js";
import type { DispatcherConfig } from "./config.js";
import { listEvents, recordEvent } from "./event-log.js";
import { DispatcherServiceService, type ListEventsRequest, type ListEventsResponse } from "../gen/waybill/dispatcher/v1/dispatcher.js";
import { startGrpcServer, unary } from "../platform/grpc.js";
import { DEFAULT_PAGE_LIMIT } from "../platform/pagination.js";

export const DISPATCHER_SCHEMA = "dispatcher";
export const EVENTS_CONSUMER = "dispatcher-events";
const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

export interface DispatcherHandle extends ServiceHandle {
  grpcPort: number;
  opsPort: number;
}

export async function startDispatcher(config: DispatcherConfig): Promise<DispatcherHandle> {
  const runtime = await startRuntime({ service: "dispatcher", schema: DISPATCHER_SCHEMA, migrationsDir: MIGRATIONS_DIR, config, opsPort: config.OPS_PORT });
  try {
    const { pool, bus, logger, ops } = runtime;
    const received = new Counter({ name: "waybill_dispatcher_events_received_total", help: "Events consumed from EVENTS", labelNames: ["kind"], registers: [ops.registry] });
    const consumer = await startConsumer({
      bus,
      stream: bus.topology.eventsStream,
      durable: EVENTS_CONSUMER,
      filterSubject: bus.topology.eventsWildcard,
      logger,
      concurrency: 8,
      handle: async (message) => {
        const event = message.json<EventEnvelope>();
        const tenantId = message.headers?.get(TENANT_ID_NATS_HEADER);
        if (!tenantId) {
          logger.warn({ subject: message.subject }, "event without tenant header dropped");
          return;
        }
        const fresh = await recordEvent(pool, tenantId, event);
        if (fresh) {
          received.inc({ kind: event.kind });
          logger.info({ eventId: event.id, kind: event.kind, tenantId }, "event received");
        }
      },
    });
    runtime.defer(consumer.stop);

    const grpc = await startGrpcServer(config.BIND_HOST, config.GRPC_PORT, [
      [
        DispatcherServiceService,
        {
          listEvents: unary<ListEventsRequest, ListEventsResponse>(logger, async (request) => {
            const page = await listEvents(pool, request.tenantId, {
              kind: request.kind,
              after: request.after,
              limit: request.limit || DEFAULT_PAGE_LIMIT,
              cursor: request.cursor,
            });
            return { eventsJson: page.data.map((e) => JSON.stringify(e)), nextCursor: page.nextCursor ?? undefined };
          }),
        },
      ],
    ]);
    runtime.defer(grpc.stop);
    logger.info({ grpcPort: grpc.port }, "dispatcher started");
    return { grpcPort: grpc.port, opsPort: runtime.opsPort!, stop: runtime.stop };
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
