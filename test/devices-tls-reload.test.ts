// A renewed MQTT certificate without a restart: the gateway's certificate files are replaced the
// way the kubelet updates a Secret volume (new files, then one atomic rename), and new device
// connections get the new certificate while a session opened before keeps working.
import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdir, mkdtemp, readFile, rename, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { promisify } from "node:util";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMqttGatewayConfig } from "../services/mqtt-gateway/config.js";
import { type MqttGatewayHandle, startMqttGateway } from "../services/mqtt-gateway/service.js";
import { readStoredReadings } from "./support/bus.js";
import { eventually } from "./support/http.js";
import { type Stack, startStack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";

const run = promisify(execFile);

let stack: Stack;
let dir: string;
let gateway: MqttGatewayHandle;

/** A self-signed certificate for 127.0.0.1 in `folder` (cert.pem, key.pem). */
async function certificate(folder: string, name: string): Promise<Buffer> {
  await mkdir(folder, { recursive: true });
  const [cert, key] = [path.join(folder, "tls.crt"), path.join(folder, "tls.key")];
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "1",
    "-subj",
    `/CN=${name}`,
    "-addext",
    "subjectAltName=IP:127.0.0.1",
    "-keyout",
    key,
    "-out",
    cert,
  ]);
  return readFile(cert);
}

/** The certificate the gateway presents to a new connection. */
function servedCertificate(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      const served = socket.getPeerX509Certificate()?.subject ?? "";
      socket.end();
      resolve(served);
    });
    socket.once("error", reject);
  });
}

beforeAll(async () => {
  stack = await startStack();
  dir = await mkdtemp(path.join(os.tmpdir(), "waybill-mqtt-tls-reload-"));
  // As a Secret volume: tls.crt → ..data/tls.crt, ..data → the current timestamped folder.
  await certificate(path.join(dir, "..2026_01"), "first");
  await symlink("..2026_01", path.join(dir, "..data"));
  for (const file of ["tls.crt", "tls.key"]) await symlink(path.join("..data", file), path.join(dir, file));
  gateway = await startMqttGateway(
    loadMqttGatewayConfig({
      ...stack.serviceEnv,
      MQTT_PORT: "0",
      GRPC_PORT: "0",
      OPS_PORT: "0",
      MQTT_TLS_CERT_FILE: path.join(dir, "tls.crt"),
      MQTT_TLS_KEY_FILE: path.join(dir, "tls.key"),
      MQTT_TLS_RELOAD_INTERVAL_MS: "100",
    }),
  );
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("MQTT certificate renewal", () => {
  it("serves the renewed certificate to new connections without a restart; open sessions stay", async () => {
    expect(await servedCertificate(gateway.port)).toBe("CN=first");
    const sensor = await issueToken(stack.env.databaseUrl, "sensor");
    const firstCa = await readFile(path.join(dir, "tls.crt"));
    const connect = (deviceId: string, ca: Buffer) =>
      mqtt.connectAsync(`mqtts://127.0.0.1:${gateway.port}`, {
        username: deviceId,
        password: sensor.token,
        ca,
        reconnectPeriod: 0,
        protocolVersion: 4,
        connectTimeout: 5_000,
      });
    const before = await connect("renew-1", firstCa);

    // The kubelet's update: the new files in a new folder, then ..data switched in one rename.
    const renewed = await certificate(path.join(dir, "..2026_02"), "renewed");
    await symlink("..2026_02", path.join(dir, "..data_tmp"));
    await rename(path.join(dir, "..data_tmp"), path.join(dir, "..data"));

    await eventually(async () => ((await servedCertificate(gateway.port)) === "CN=renewed" ? true : undefined), 10_000);
    expect(new X509Certificate(renewed).subject).toBe("CN=renewed");
    // A device trusting the new certificate connects and publishes; one trusting only the old is refused.
    const after = await connect("renew-2", renewed);
    await after.publishAsync("devices/renew-2/telemetry", JSON.stringify({ after: "renewal" }), { qos: 1 });
    await after.endAsync();
    await expect(connect("renew-3", firstCa)).rejects.toThrow(/self.signed|certificate|verify/i);
    // The session opened before the renewal still works.
    await before.publishAsync("devices/renew-1/telemetry", JSON.stringify({ before: "renewal" }), { qos: 1 });
    await before.endAsync();
    const stored = [
      ...(await readStoredReadings(stack.env.natsUrl, stack.env.topology.eventsStream, "renew-1")),
      ...(await readStoredReadings(stack.env.natsUrl, stack.env.topology.eventsStream, "renew-2")),
    ].map((m) => m.json.reading);
    expect(stored).toEqual(expect.arrayContaining([{ after: "renewal" }, { before: "renewal" }]));
  }, 60_000);
});
