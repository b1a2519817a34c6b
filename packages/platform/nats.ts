// NATS JetStream: connection, the streams every service relies on and the mechanism by which a
// service declares its own (all declared idempotently in code), and publishing with Nats-Msg-Id so a re-publish is deduplicated by the server.
import { connect, headers, nanos, type MsgHdrs, type NatsConnection } from "@nats-io/transport-node";
import {
  jetstream,
  jetstreamManager,
  type ConsumerConfig,
  type JetStreamClient,
  type JetStreamManager,
  type StreamConfig,
  type StreamUpdateConfig,
  RetentionPolicy,
  StorageType,
  DiscardPolicy,
} from "@nats-io/jetstream";
import { currentContext } from "./context.js";
import type { Logger } from "./logger.js";
import { ackInboxOf, type AckedPublish } from "./jetstream-acks.js";
import { endPublishSpan, publishSpan, rememberPublisher } from "./nats-tracing.js";

export type { NatsConnection, JetStreamClient, JetStreamManager, MsgHdrs };
/** nanos, RetentionPolicy and DiscardPolicy: for a service's StreamDeclaration. */
export { headers, nanos, RetentionPolicy, DiscardPolicy };

export const TRANSACTION_ID_NATS_HEADER = "transactionId";
export const TRACEPARENT_NATS_HEADER = "traceparent";
export const TENANT_ID_NATS_HEADER = "tenantId";

const DAY_MS = 24 * 60 * 60 * 1000;
export const EVENTS_MAX_AGE_MS = 90 * DAY_MS;
export const INGRESS_MAX_AGE_MS = 7 * DAY_MS;
export const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;
/** Reconnect attempts come this often, plus up to NATS_RECONNECT_JITTER_MS so a fleet does not retry in step. */
export const NATS_RECONNECT_WAIT_MS = 500;
export const NATS_RECONNECT_JITTER_MS = 500;
/** A server that answers no ping for NATS_MAX_PINGS_OUT intervals is taken as gone (a half-open connection). */
export const NATS_PING_INTERVAL_MS = 20_000;
export const NATS_MAX_PINGS_OUT = 3;

/**
 * Names of streams and subjects. `prefix` keeps test runs apart on one server; production
 * uses the canonical names (EVENTS, events.<tenantId>.<kind>, …). The platform names the streams
 * every service shares (EVENTS, INGRESS); a stream one service owns is named by that service
 * through streamName and subject (the dispatcher's DELIVERIES, identity's REVOCATIONS).
 */
export interface Topology {
  eventsStream: string;
  ingressStream: string;
  eventSubject(tenantId: string, kind: string): string;
  eventsWildcard: string;
  ingressSubject(tenantId: string, ...tokens: string[]): string;
  ingressWildcard: string;
  /** A stream's name with this installation's prefix: streamName("DELIVERIES"). */
  streamName(base: string): string;
  /** A subject with this installation's prefix: subject("deliveries", hookId). */
  subject(...tokens: string[]): string;
}

export function createTopology(prefix = ""): Topology {
  const subjectPrefix = prefix ? `${prefix.toLowerCase()}.` : "";
  const subject = (...tokens: string[]) => `${subjectPrefix}${tokens.join(".")}`;
  return Object.freeze({
    eventsStream: `${prefix}EVENTS`,
    ingressStream: `${prefix}INGRESS`,
    eventSubject: (tenantId: string, kind: string) => subject("events", tenantId, kind),
    eventsWildcard: subject("events", ">"),
    ingressSubject: (tenantId: string, ...tokens: string[]) => subject("ingress", tenantId, ...tokens),
    ingressWildcard: subject("ingress", ">"),
    streamName: (base: string) => `${prefix}${base}`,
    subject,
  });
}

/** Copies of each stream's data kept by the NATS cluster (`npm start` runs one server). */
export const DEFAULT_STREAM_REPLICAS = 1;

/** A stream as its owner declares it; storage, replicas and the duplicate window are the platform's. */
export type StreamSpec = Partial<StreamConfig> & { name: string };
/** A stream a service owns, declared by that service for a topology (see BusOptions.streams). */
export type StreamDeclaration = (topology: Topology) => StreamSpec;

/** The streams every service relies on: the events all of them announce, and what devices send. */
export const SHARED_STREAMS: readonly StreamDeclaration[] = [
  (topology) => ({
    name: topology.eventsStream,
    subjects: [topology.eventsWildcard],
    retention: RetentionPolicy.Limits,
    max_age: nanos(EVENTS_MAX_AGE_MS),
    discard: DiscardPolicy.Old,
  }),
  (topology) => ({
    name: topology.ingressStream,
    subjects: [topology.ingressWildcard],
    retention: RetentionPolicy.Limits,
    max_age: nanos(INGRESS_MAX_AGE_MS),
  }),
];

/** The configuration of the shared streams and of `owned` (a service's own), with `replicas` copies each. */
export function streamConfigs(topology: Topology, replicas = DEFAULT_STREAM_REPLICAS, owned: readonly StreamDeclaration[] = []): StreamSpec[] {
  const common = { storage: StorageType.File, num_replicas: replicas, duplicate_window: nanos(DUPLICATE_WINDOW_MS) };
  return [...SHARED_STREAMS, ...owned].map((declare) => ({ ...common, ...declare(topology) }));
}

export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  topology: Topology;
  /** The streams this process owns besides the shared ones; ensureStreams creates them too. */
  streams: readonly StreamDeclaration[];
  close(): Promise<void>;
}

export interface BusOptions {
  url: string;
  name: string;
  topology: Topology;
  logger: Logger;
  /** Streams the service owns besides the shared ones (created and kept by ensureStreams). */
  streams?: readonly StreamDeclaration[];
  /** Credentials of a NATS user (deploy/ runs NATS with accounts); absent for an open server. */
  user?: string;
  pass?: string;
}

export async function connectBus(options: BusOptions): Promise<Bus> {
  const nc = await connect({
    servers: options.url.split(","),
    ...(options.user ? { user: options.user, pass: options.pass } : {}),
    name: options.name,
    // A long-running service never gives up on the bus: reconnect for ever, jittered.
    maxReconnectAttempts: -1,
    reconnectTimeWait: NATS_RECONNECT_WAIT_MS,
    reconnectJitter: NATS_RECONNECT_JITTER_MS,
    reconnectJitterTLS: NATS_RECONNECT_JITTER_MS,
    pingInterval: NATS_PING_INTERVAL_MS,
    maxPingOut: NATS_MAX_PINGS_OUT,
    // No stack captured for every request (each JetStream publish is one): it costs CPU per message.
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === "disconnect" || status.type === "reconnect") {
        options.logger.warn({ nats: status.type }, "nats connection status changed");
      }
    }
  })().catch(() => {});
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const bus: Bus = {
    nc,
    js,
    jsm,
    topology: options.topology,
    streams: options.streams ?? [],
    close: async () => {
      if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
  rememberPublisher(bus, options.logger);
  return bus;
}

export interface StreamPlan {
  /** The full configuration to send with the update, or undefined when nothing must change. */
  update?: StreamConfig;
  /** What was changed, for the log. */
  changes: string[];
  /** Differences the code wants but cannot or will not apply (immutable fields). */
  conflicts: string[];
}

/**
 * What an existing stream must change to serve Waybill, and nothing more: a missing subject is
 * added and too few replicas are raised. Everything else (limits, ages, more replicas, placement)
 * is the operator's and kept as found, so a restart never resets a tuned stream.
 */
export function planStreamUpdate(existing: StreamConfig, wanted: Partial<StreamConfig>): StreamPlan {
  const changes: string[] = [];
  const conflicts: string[] = [];
  const next: StreamConfig = { ...existing };
  const missing = (wanted.subjects ?? []).filter((subject) => !(existing.subjects ?? []).includes(subject));
  if (missing.length > 0) {
    next.subjects = [...(existing.subjects ?? []), ...missing];
    changes.push(`subjects +${missing.join(",")}`);
  }
  if (wanted.num_replicas !== undefined && existing.num_replicas < wanted.num_replicas) {
    next.num_replicas = wanted.num_replicas;
    changes.push(`replicas ${existing.num_replicas}->${wanted.num_replicas}`);
  }
  for (const field of ["retention", "storage"] as const) {
    if (wanted[field] !== undefined && existing[field] !== wanted[field]) conflicts.push(`${field} is ${existing[field]}, wanted ${wanted[field]}`);
  }
  return { update: changes.length > 0 ? next : undefined, changes, conflicts };
}

/**
 * Creates each stream (the shared ones and those the bus's service owns) with `replicas` copies, or raises an existing one to what Waybill needs
 * (see planStreamUpdate); replicas are never lowered.
 */
export async function ensureStreams(bus: Bus, logger: Logger, replicas = DEFAULT_STREAM_REPLICAS): Promise<void> {
  for (const config of streamConfigs(bus.topology, replicas, bus.streams)) {
    const name = config.name;
    let existing: StreamConfig;
    try {
      existing = (await bus.jsm.streams.info(name)).config;
    } catch (error) {
      if (!/not found/i.test((error as Error).message)) throw error;
      await bus.jsm.streams.add(config).catch(async (error: Error) => {
        // Another service created it first.
        if (!/already in use/i.test(error.message)) throw error;
      });
      continue;
    }
    const plan = planStreamUpdate(existing, config);
    if (plan.conflicts.length > 0) logger.warn({ stream: name, conflicts: plan.conflicts }, "stream differs in a field that cannot be updated");
    if (!plan.update) continue;
    await bus.jsm.streams.update(name, plan.update as Partial<StreamUpdateConfig>).then(
      () => logger.info({ stream: name, changes: plan.changes }, "stream updated"),
      (error: Error) => logger.warn({ stream: name, changes: plan.changes, err: error.message }, "stream could not be updated"),
    );
  }
}

/** Creates or updates a durable consumer. */
export async function ensureConsumer(bus: Bus, stream: string, config: Partial<ConsumerConfig> & { durable_name: string }): Promise<void> {
  try {
    await bus.jsm.consumers.info(stream, config.durable_name);
    await bus.jsm.consumers.update(stream, config.durable_name, config);
  } catch (error) {
    if (!/not found/i.test((error as Error).message)) throw error;
    await bus.jsm.consumers.add(stream, config);
  }
}

/** Headers for a message published inside the current operation. */
export function operationHeaders(extra: Record<string, string> = {}): MsgHdrs {
  const h = headers();
  const context = currentContext();
  if (context) {
    h.set(TRANSACTION_ID_NATS_HEADER, context.transactionId);
    h.set(TRACEPARENT_NATS_HEADER, context.traceparent);
  }
  for (const [key, value] of Object.entries(extra)) h.set(key, value);
  return h;
}

export interface PublishOptions {
  msgId: string;
  headers?: MsgHdrs;
  timeoutMs?: number;
}

/**
 * Publishes asked for within one turn of the event loop, per connection. nats.js writes what is
 * pending after each microtask that published: publishes made one handler after another (each
 * reading of a device, each committed outbox batch) left in one socket write each, a system call
 * per message. Held until the turn ends, they leave in one.
 */
const heldPublishes = new WeakMap<Bus, AckedPublish[]>();

/** Publishes to JetStream and waits for the stream's acknowledgement (jetstream-acks.ts). */
export function publishDurable(bus: Bus, subject: string, data: Uint8Array | string, options: PublishOptions): Promise<{ duplicate: boolean; seq: number }> {
  return new Promise((resolve, reject) => {
    let held = heldPublishes.get(bus);
    if (!held) {
      held = [];
      heldPublishes.set(bus, held);
      setImmediate(() => sendHeldPublishes(bus));
    }
    const span = publishSpan(bus, subject, options.msgId, options.headers);
    held.push({
      subject,
      data,
      msgId: options.msgId,
      headers: options.headers,
      timeoutMs: options.timeoutMs ?? 5_000,
      resolve: span
        ? (ack) => {
            endPublishSpan(span, ack.stream);
            resolve(ack);
          }
        : resolve,
      reject: span
        ? (error) => {
            endPublishSpan(span, undefined, error);
            reject(error);
          }
        : reject,
    });
  });
}

function sendHeldPublishes(bus: Bus): void {
  const held = heldPublishes.get(bus) ?? [];
  heldPublishes.delete(bus);
  const inbox = ackInboxOf(bus.nc);
  for (const publish of held) inbox.send(publish);
}
