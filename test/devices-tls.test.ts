// MQTT over TLS: a gateway started with MQTT_TLS_CERT_FILE / MQTT_TLS_KEY_FILE (a self-signed
// certificate made here with openssl) stores what mqtt.js (mqtts://) and mosquitto_pub
// (--cafile) publish, and refuses plain TCP.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMqttGatewayConfig } from "../services/mqtt-gateway/config.js";
import { startMqttGateway, type MqttGatewayHandle } from "../services/mqtt-gateway/service.js";
import { readStoredReadings } from "./support/bus.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";

const run = promisify(execFile);
const MOSQUITTO_PUB = "/usr/bin/mosquitto_pub";

let stack: Stack;
let dir: string;
let certFile: string;
/** A certificate of another, untrusted issuer. */
let otherCaFile: string;
let gateway: MqttGatewayHandle;

beforeAll(async () => {
  stack = await startStack();
  dir = await mkdtemp(path.join(os.tmpdir(), "waybill-mqtt-tls-"));
  certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  const selfSigned = (key: string, cert: string) =>
    run("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      key,
      "-out",
      cert,
    ]);
  otherCaFile = path.join(dir, "other.pem");
  await Promise.all([selfSigned(keyFile, certFile), selfSigned(path.join(dir, "other-key.pem"), otherCaFile)]);
  gateway = await startMqttGateway(
    loadMqttGatewayConfig({ ...stack.serviceEnv, MQTT_PORT: "0", GRPC_PORT: "0", OPS_PORT: "0", MQTT_TLS_CERT_FILE: certFile, MQTT_TLS_KEY_FILE: keyFile }),
  );
});

afterAll(async () => {
  await gateway?.stop();
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const storedPayloads = async (deviceId: string) =>
  (await readStoredReadings(stack.env.natsUrl, stack.env.topology.eventsStream, deviceId)).map((m) => m.json.reading);

describe("MQTT over TLS", () => {
  it("mqtt.js over mqtts:// with the CA publishes a message that is stored", async () => {
    expect(gateway.tls).toBe(true);
    const sensor = await issueToken(stack.env.databaseUrl, "sensor");
    const device = await mqtt.connectAsync(`mqtts://127.0.0.1:${gateway.port}`, {
      username: "tls-1",
      password: sensor.token,
      ca: await readFile(certFile),
      reconnectPeriod: 0,
      protocolVersion: 4,
      connectTimeout: 5_000,
    });
    try {
      await device.publishAsync("devices/tls-1/telemetry", JSON.stringify({ over: "mqtts" }), { qos: 1 });
    } finally {
      await device.endAsync();
    }
    // PUBACKed, so already in INGRESS.
    expect(await storedPayloads("tls-1")).toEqual([{ over: "mqtts" }]);
  });

  it("mosquitto_pub --cafile publishes over TLS; with another CA it fails", async () => {
    const sensor = await issueToken(stack.env.databaseUrl, "sensor");
    const args = [
      "-h",
      "127.0.0.1",
      "-p",
      String(gateway.port),
      "-V",
      "mqttv311",
      "-q",
      "1",
      "-u",
      "tls-2",
      "-P",
      sensor.token,
      "-t",
      "devices/tls-2/telemetry",
      "-m",
      JSON.stringify({ over: "mosquitto" }),
    ];
    await run(MOSQUITTO_PUB, ["--cafile", certFile, ...args], { timeout: 10_000 });
    await eventually(async () => ((await storedPayloads("tls-2")).length === 1 ? true : undefined));
    expect(await storedPayloads("tls-2")).toEqual([{ over: "mosquitto" }]);

    // With a CA that did not sign the gateway's certificate, the client refuses the handshake.
    const untrusted = await run(MOSQUITTO_PUB, ["--cafile", otherCaFile, ...args], { timeout: 10_000 }).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stderr).toMatch(/certificate verify failed|tls|ssl/i);
    expect(await storedPayloads("tls-2")).toHaveLength(1);
  });

  it("refuses plain TCP: no CONNACK, nothing stored", async () => {
    const sensor = await issueToken(stack.env.databaseUrl, "sensor");
    const plain = mqtt.connect(`mqtt://127.0.0.1:${gateway.port}`, {
      username: "tls-plain",
      password: sensor.token,
      reconnectPeriod: 0,
      protocolVersion: 4,
      connectTimeout: 3_000,
    });
    const outcome = await new Promise<string>((resolve) => {
      plain.once("connect", () => resolve("connected"));
      plain.once("error", () => resolve("error"));
      plain.once("close", () => resolve("closed"));
    });
    plain.end(true);
    expect(outcome).not.toBe("connected");
    const refused = await run(
      MOSQUITTO_PUB,
      [
        "-h",
        "127.0.0.1",
        "-p",
        String(gateway.port),
        "-V",
        "mqttv311",
        "-q",
        "1",
        "-u",
        "tls-plain",
        "-P",
        sensor.token,
        "-t",
        "devices/tls-plain/telemetry",
        "-m",
        "{}",
      ],
      { timeout: 10_000 },
    ).then(
      () => 0,
      (e: { code: number }) => e.code,
    );
    expect(refused).not.toBe(0);
    expect(await storedPayloads("tls-plain")).toEqual([]);
  });
});
