// The broker's session rules with identity, the registry and the bus stubbed out: revocations
// that race a connect, and re-validation after a revocation gap.
import net from "node:net";
import mqtt, { type MqttClient } from "mqtt";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import type { TokenPrincipal, TokenResolver } from "@waybill/contracts/identity-client/token-resolver.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { createLogger } from "@waybill/platform/logger.js";
import type { Bus } from "@waybill/platform/nats.js";
import { createDeviceBroker, type DeviceBroker } from "./broker.js";

const principal = (tokenId: string): TokenPrincipal => ({ kind: "token", tenantId: "ten_a", credentialId: tokenId, tokenType: "sensor", expiresAtMs: 0 });

interface Harness {
  devices: DeviceBroker;
  port: number;
  answers: Map<string, () => Promise<TokenPrincipal>>;
  stop(): Promise<void>;
}

const running: Harness[] = [];
const clients: MqttClient[] = [];

async function start(): Promise<Harness> {
  const answers = new Map<string, () => Promise<TokenPrincipal>>();
  const tokens: TokenResolver = {
    resolve: (token) => (answers.get(token) ?? (() => Promise.reject(appError("invalid_token", "unknown token"))))(),
    forget: () => {},
    forgetAll: () => {},
  };
  const devices = await createDeviceBroker({
    bus: {} as Bus,
    tokens,
    presence: { connected: async () => {}, disconnected: async () => {} },
    lastSeen: { seen: () => {}, flush: async () => {}, stop: async () => {} },
    metrics: new Registry(),
    logger: createLogger("test", "silent"),
  });
  const server = net.createServer(devices.broker.handle as (socket: net.Socket) => void);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const harness: Harness = {
    devices,
    port: (server.address() as net.AddressInfo).port,
    answers,
    async stop() {
      await new Promise<void>((resolve) => devices.broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  running.push(harness);
  return harness;
}

afterEach(async () => {
  for (const c of clients.splice(0)) await c.endAsync(true).catch(() => {});
  for (const h of running.splice(0)) await h.stop();
});

function connect(h: Harness, token: string): Promise<MqttClient> {
  const promise = mqtt.connectAsync(`mqtt://127.0.0.1:${h.port}`, {
    username: "dev-1",
    password: token,
    reconnectPeriod: 0,
    protocolVersion: 4,
    connectTimeout: 5_000,
  });
  void promise.then(
    (c) => clients.push(c),
    () => {},
  );
  return promise;
}

const closed = (c: MqttClient) => new Promise<void>((resolve) => (c.connected ? c.once("close", () => resolve()) : resolve()));

describe("revocations racing a connect", () => {
  it("refuses a connect whose token is revoked while identity is being asked", async () => {
    const h = await start();
    let answer!: () => void;
    // Revoke once identity has been asked (a fixed wait lost that race on a busy machine).
    const asked = new Promise<void>((askedNow) => {
      h.answers.set("sensor-racing", () => {
        askedNow();
        return new Promise((resolve) => (answer = () => resolve(principal("tok_race"))));
      });
    });
    const connecting = connect(h, "sensor-racing");
    await asked;
    h.devices.revoke("tok_race");
    answer();
    await expect(connecting).rejects.toThrow(/Bad username or password/i);
  });

  it("closes a session whose token is revoked after the check but before the broker registered it", async () => {
    const h = await start();
    h.answers.set("sensor-late", async () => principal("tok_late"));
    // aedes's step between authentication and registration: revoke exactly there.
    const persistence = (h.devices.broker as unknown as { persistence: { cleanSubscriptions(c: unknown): Promise<unknown> } }).persistence;
    const original = persistence.cleanSubscriptions.bind(persistence);
    persistence.cleanSubscriptions = async (c) => {
      h.devices.revoke("tok_late");
      return original(c);
    };
    const device = mqtt.connect(`mqtt://127.0.0.1:${h.port}`, {
      username: "dev-1",
      password: "sensor-late",
      reconnectPeriod: 0,
      protocolVersion: 4,
      connectTimeout: 5_000,
    });
    clients.push(device);
    const closedInTime = await Promise.race([
      new Promise((resolve) => device.once("close", () => resolve(true))),
      new Promise((resolve) => setTimeout(() => resolve(false), 3_000)),
    ]);
    expect(closedInTime).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(device.connected).toBe(false);
    expect(h.devices.broker.connectedClients).toBe(0);
  });
});

describe("re-validation after a revocation gap", () => {
  it("closes sessions identity now refuses and keeps the rest, also when identity is unreachable", async () => {
    const h = await start();
    const valid = { current: true };
    h.answers.set("sensor-revoked", async () => (valid.current ? principal("tok_revoked") : Promise.reject(appError("invalid_token", "revoked"))));
    h.answers.set("sensor-fine", async () => principal("tok_fine"));
    h.answers.set("sensor-unknown", async () => (valid.current ? principal("tok_unknown") : Promise.reject(appError("upstream_unavailable", "down"))));
    const revoked = await connect(h, "sensor-revoked");
    const fine = await connect(h, "sensor-fine");
    const unknown = await connect(h, "sensor-unknown");

    valid.current = false;
    const closing = closed(revoked);
    expect(await h.devices.revalidate()).toBe(1);
    await closing;
    await new Promise((r) => setTimeout(r, 100));
    expect(fine.connected).toBe(true);
    expect(unknown.connected).toBe(true);
  });
});
