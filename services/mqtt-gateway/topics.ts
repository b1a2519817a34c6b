// Device topic rules (API.md, "Devices over MQTT"): a device publishes only under
// devices/<its id>/… and subscribes only to devices/<its id>/commands/#.
import { DEVICE_CHANNELS, type DeviceChannel } from "@waybill/contracts/devices/messages.js";

export { DEVICE_ID_PATTERN } from "@waybill/contracts/limits/devices.js";
const LEVEL_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The levels below devices/<deviceId>/ of a topic the device may publish to, or undefined. */
export function publishableLevels(deviceId: string, topic: string): string[] | undefined {
  const levels = topic.split("/");
  if (levels.length < 3 || levels[0] !== "devices" || levels[1] !== deviceId) return undefined;
  const rest = levels.slice(2);
  // Levels become NATS subject tokens, so they must be plain words.
  return rest.every((level) => LEVEL_PATTERN.test(level)) ? rest : undefined;
}

export function maySubscribe(deviceId: string, topicFilter: string): boolean {
  const prefix = `devices/${deviceId}/commands`;
  // Wildcards below the fixed prefix can only match inside the device's own subtree.
  return topicFilter === prefix || topicFilter.startsWith(`${prefix}/`);
}

/**
 * The channel a message below devices/<id>/ is stored on, or undefined when no consumer takes
 * it (devices/<id>/foo, devices/<id>/telemetry/x, commands): such messages are dropped, not
 * stored where nothing would ever read them.
 */
export function storedChannel(levels: readonly string[]): DeviceChannel | undefined {
  return levels.length === 1 && (DEVICE_CHANNELS as readonly string[]).includes(levels[0]) ? (levels[0] as DeviceChannel) : undefined;
}
