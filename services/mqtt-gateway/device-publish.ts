// aedes' authorizePublish for devices: topic rules, payload validation (a malformed message is
// acknowledged and dropped with a reason), and QoS 1 publishes acknowledged only after the bus
// stored them (ingress-publisher.ts), under the same message id when a persistent session resends.
import type { AuthorizePublishHandler, Client, PublishPacket } from "aedes";
import { Counter, type Registry } from "prom-client";
import type { Logger } from "@waybill/platform/logger.js";
import type { Bus } from "@waybill/platform/nats.js";
import { deviceRefOf, isExpired, type DeviceSession, type DeviceSessions } from "./device-sessions.js";
import { DROP_REASONS, parseDevicePayload, type DropReason } from "./ingress.js";
import { publishDeviceMessage } from "./ingress-publisher.js";
import { devicePublishSpan, inSpan } from "./device-publish-span.js";
import { endWith } from "@waybill/platform/tracing.js";
import type { LastSeenWriter } from "./last-seen.js";
import { createRetransmissions } from "./retransmissions.js";
import { DROPPED_TOPIC, scopedTopic } from "./tenant-scope.js";
import { publishableLevels, storedChannel } from "./topics.js";

export interface DevicePublishDeps {
  bus: Bus;
  sessions: DeviceSessions;
  lastSeen: LastSeenWriter;
  metrics: Registry;
  logger: Logger;
}

export function createDevicePublishHandler(deps: DevicePublishDeps): AuthorizePublishHandler {
  const { bus, sessions, logger } = deps;
  const retransmissions = createRetransmissions();
  const dropped = new Counter({
    name: "waybill_mqtt_messages_dropped_total",
    help: "Device messages acknowledged but not stored, by reason",
    labelNames: ["reason"],
    registers: [deps.metrics],
  });
  // Every reason shows from the start (at 0), so dashboards and alerts can name them.
  for (const reason of DROP_REASONS) dropped.inc({ reason }, 0);
  const stored = new Counter({
    name: "waybill_mqtt_messages_stored_total",
    help: "Device messages stored durably (INGRESS, or EVENTS as device.reading events for telemetry)",
    registers: [deps.metrics],
  });

  const drop = (packet: PublishPacket, session: DeviceSession, reason: DropReason, detail: string) => {
    dropped.inc({ reason });
    logger.warn({ deviceId: session.deviceId, topic: packet.topic, reason, detail }, "device message dropped");
    // Acknowledged, so the device does not resend what can never be taken, but forwarded nowhere.
    packet.topic = DROPPED_TOPIC;
  };

  return (client: Client | null, packet: PublishPacket, done: (error?: Error | null) => void) => {
    if (!client) {
      // A will left behind by a session that is gone: no tenant to scope it to, so it goes nowhere.
      packet.topic = DROPPED_TOPIC;
      return done(null);
    }
    const session = sessions.get(client);
    if (!session) return done(new Error("not authenticated"));
    if (isExpired(session.principal)) return done(new Error("token expired"));
    const levels = publishableLevels(session.deviceId, packet.topic);
    if (!levels) return done(new Error("publish not allowed on this topic"));
    const ref = deviceRefOf(session);
    deps.lastSeen.seen(ref);
    // Nothing reads retained device messages; keeping them would only grow memory.
    packet.retain = false;
    const channel = storedChannel(levels);
    if (!channel) {
      drop(packet, session, "unknown_channel", `no consumer takes ${packet.topic}`);
      return done(null);
    }
    const parsed = parseDevicePayload(packet.payload, channel);
    if (!parsed.ok) {
      drop(packet, session, parsed.reason, parsed.detail);
      return done(null);
    }

    const deviceTopic = packet.topic;
    packet.topic = scopedTopic(ref.tenantId, deviceTopic);
    const attempt =
      packet.qos > 0 && packet.messageId !== undefined
        ? { clientId: client.id, packetId: packet.messageId, topic: deviceTopic, payload: packet.payload }
        : undefined;
    // A persistent session resends an unacknowledged publish under the same packet id.
    const messageId = attempt && retransmissions.messageIdFor(attempt, !client.clean || packet.dup);
    const span = devicePublishSpan(logger, ref, channel, packet.qos);
    const store = () =>
      endWith(
        span,
        inSpan(span, () => publishDeviceMessage(bus, { ...ref, channel, payload: parsed.value, payloadText: parsed.text, messageId })),
      );
    // Stamped and stored once the session's device.connected is committed, so that a reading
    // sent right after CONNACK is never timed before (nor sent out before) its session's start.
    const write = session.connectedSettled ? store() : (session.connected ?? Promise.resolve()).then(store);
    if (packet.qos === 0) {
      write.then(
        () => void stored.inc(),
        (error: Error) => logger.warn({ err: error.message }, "QoS 0 device message lost"),
      );
      return done(null);
    }
    // QoS 1/2: no PUBACK before the store confirmed; on failure the connection closes and
    // the device resends the unacknowledged message after reconnecting.
    write.then(
      () => {
        stored.inc();
        // On a closed connection the PUBACK is lost: keep the id for the resend that follows.
        if (attempt) {
          if (client.closed) retransmissions.unacknowledged(attempt);
          else retransmissions.acknowledged(attempt);
        }
        done(null);
      },
      (error: Error) => {
        if (attempt) retransmissions.unacknowledged(attempt);
        logger.warn({ err: error.message, deviceId: session.deviceId }, "device message not stored; withholding acknowledgement");
        done(error);
      },
    );
  };
}
