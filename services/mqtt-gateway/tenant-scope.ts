// Inside the broker every client id and topic lives under its tenant, so devices of two tenants
// that chose the same device id (or client id) never share a session, a subscription or a
// message. Devices keep seeing exactly the topics of API.md: the broker scopes what comes in
// (publish, subscribe) and unscopes what goes out (authorizeForward).

/** Where dropped device messages go: no subscription can match it, so nothing is forwarded. */
export const DROPPED_TOPIC = "$waybill/dropped";

const SEPARATOR = "/";

/** The broker-internal client id: one namespace per tenant and device. */
export function scopedClientId(tenantId: string, deviceId: string, clientId: string): string {
  return [tenantId, deviceId, clientId].join(SEPARATOR);
}

/** The broker-internal form of a device-visible topic or filter. */
export function scopedTopic(tenantId: string, topic: string): string {
  return `${tenantId}${SEPARATOR}${topic}`;
}

/** The device-visible form of a topic of this tenant, or undefined when it belongs to no, or another, tenant. */
export function unscopedTopic(tenantId: string, topic: string): string | undefined {
  const prefix = `${tenantId}${SEPARATOR}`;
  return topic.startsWith(prefix) ? topic.slice(prefix.length) : undefined;
}
