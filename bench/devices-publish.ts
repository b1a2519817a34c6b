// Benchmark: QoS 1 device readings per second stored in JetStream through the MQTT gateway
// (telemetry, stored as its device.reading event in EVENTS; PUBACK after the stream's ack), from
// concurrent mqtt.js clients, next to a bare JetStream async-publish loop storing the same
// events with the same number in flight, in the same run, and how fast the services (the
// dispatcher's event intake) take what was stored. Each of
// BENCH_RUNS runs measures both, in turns; the ratio lines give every run and the median.
// Run: npm run bench:devices   (BENCH_SECONDS, BENCH_RUNS, BENCH_CLIENTS, BENCH_WINDOW, BENCH_TOPOLOGY=split|single)
import { randomBytes } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import mqtt, { type MqttClient } from "mqtt";
import { newId } from "@waybill/platform/ids.js";
import { headers, TENANT_ID_NATS_HEADER } from "@waybill/platform/nats.js";
import { formatCpuPerRequest, snapshotCpu } from "./cpu-accounting.js";
import { waitForDrain } from "./drain.js";
import { median, ratioLine, spread } from "./ratios.js";
import { startSystem } from "./system.js";
import { createTestEnvironment } from "../test/support/environment.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const clients = Number(process.env.BENCH_CLIENTS ?? 20);
/** Unacknowledged publishes each client keeps in flight. */
const window = Number(process.env.BENCH_WINDOW ?? 16);
const token = `api-bench-${randomBytes(24).toString("base64url")}`;

interface Result {
  messages: number;
  perSecond: number;
}

/** Runs `lanes` loops that each keep `window` sends in flight until the time is up. */
async function measure(lanes: number, durationMs: number, send: (lane: number) => Promise<unknown>): Promise<Result> {
  let messages = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: lanes * window }, async (_, i) => {
      while (performance.now() < deadline) {
        await send(i % lanes);
        messages++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { messages, perSecond: messages / elapsed };
}

const env = await createTestEnvironment();
const system = await startSystem({ ...env.env, BOOTSTRAP_API_TOKEN: token, RATE_LIMIT_REQUESTS: "100000000" });
const devices: MqttClient[] = [];
const nc = await connect({ servers: env.natsUrl });
try {
  const created = await fetch(`${system.baseUrl}/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: "bench sensors", type: "sensor" }),
  });
  if (created.status !== 201) throw new Error(`could not create the sensor token: ${created.status} ${await created.text()}`);
  const sensor = ((await created.json()) as { token: string }).token;
  for (let i = 0; i < clients; i++) {
    devices.push(await mqtt.connectAsync(system.mqttUrl, { username: `bench-${i}`, password: sensor, protocolVersion: 4, reconnectPeriod: 0 }));
  }
  const reading = (n: number) => JSON.stringify({ temperature: 4.5, humidity: 61, battery: 88, n });
  let n = 0;
  const viaGateway = (lane: number) => devices[lane].publishAsync(`devices/bench-${lane}/telemetry`, reading(n++), { qos: 1 });

  // The bare loop stores what the gateway stores, a device.reading event under the same subject
  // in the same stream, deduplicated by a message id: the services then take both phases'
  // events alike, so each phase runs beside the same downstream work.
  const js = jetstream(nc);
  const event = (lane: number) => {
    const receivedAt = new Date().toISOString();
    return JSON.stringify({
      id: newId("evt"),
      kind: "device.reading",
      time: receivedAt,
      transactionId: "txn_bench",
      deviceId: `bare-${lane}`,
      reading: JSON.parse(reading(n++)),
      receivedAt,
    });
  };
  // One header set for all (the tenant, which the dispatcher requires): the cheapest publish.
  const tenantHeader = headers();
  tenantHeader.set(TENANT_ID_NATS_HEADER, "ten_bench");
  const bare = (lane: number) =>
    js.publish(env.topology.eventSubject("ten_bench", "device.reading"), event(lane), { msgID: `bare-${n}-${lane}`, headers: tenantHeader });

  process.stdout.write(
    `devices-publish: ${clients} mqtt.js clients × ${window} in flight, QoS 1, ${seconds} s per subject and run, ${runs} runs, loopback, ${process.env.BENCH_TOPOLOGY ?? "split"} topology\n`,
  );
  await measure(clients, 2_000, viaGateway);
  await measure(clients, 2_000, bare);
  // Each phase starts on an idle system: the telemetry the gateway stored is still being turned
  // into device.reading events when its phase ends, and that work must not slow the next phase.
  // CPU per message of every process, over the phase and the drain after it (the work it caused).
  const roots = { ...system.pids, "load generator": process.pid };
  const phase = async (send: (lane: number) => Promise<unknown>) => {
    await waitForDrain(nc, env.topology);
    const before = snapshotCpu(roots);
    const result = await measure(clients, seconds * 1000, send);
    const drainMs = await waitForDrain(nc, env.topology);
    return { result, drainMs, cpu: formatCpuPerRequest(before, snapshotCpu(roots), result.messages, "message") };
  };
  const line = (label: string, r: Result) => `${label.padEnd(48)} ${r.perSecond.toFixed(0).padStart(8)} msg/s  (${r.messages} messages)\n`;
  const perRun = {
    gateway: [] as number[],
    bare: [] as number[],
    vsBare: [] as number[],
    processed: [] as number[],
    endToEnd: [] as number[],
    drainS: [] as number[],
  };
  for (let i = 1; i <= runs; i++) {
    process.stdout.write(`-- run ${i} of ${runs}\n`);
    const baselinePhase = await phase(bare);
    const gatewayPhase = await phase(viaGateway);
    const [baseline, gateway, drainMs] = [baselinePhase.result, gatewayPhase.result, gatewayPhase.drainMs];
    process.stdout.write(`${line("mqtt.js QoS 1 → gateway → JetStream EVENTS", gateway)}${gatewayPhase.cpu}\n`);
    process.stdout.write(`${line("bare JetStream async publish (same stream)", baseline)}${baselinePhase.cpu}\n`);
    // End to end: every reading the gateway stored had been taken by the services only when the
    // drain ended, so the rate they sustain is the messages over the phase and its drain.
    const processedPerSecond = gateway.messages / (seconds + drainMs / 1000);
    process.stdout.write(
      `after the gateway phase the services took ${(drainMs / 1000).toFixed(1)} s more to take the stored readings (${processedPerSecond.toFixed(0)} readings/s processed end to end)\n`,
    );
    perRun.gateway.push(gateway.perSecond);
    perRun.bare.push(baseline.perSecond);
    perRun.vsBare.push(gateway.perSecond / baseline.perSecond);
    perRun.processed.push(processedPerSecond);
    perRun.endToEnd.push(processedPerSecond / gateway.perSecond);
    perRun.drainS.push(drainMs / 1000);
  }
  process.stdout.write(`-- summary over ${runs} runs: median (min–max)\n`);
  process.stdout.write(
    `gateway msg/s ${spread(perRun.gateway)}; bare JetStream publish ${spread(perRun.bare)}; processed end to end ${spread(perRun.processed)} readings/s, drain after the gateway phase ${spread(perRun.drainS, 1)} s\n`,
  );
  const runsOf = (values: number[]) => `runs: ${values.map((r) => r.toFixed(2)).join(", ")}`;
  process.stdout.write(ratioLine("gateway / bare JetStream publish", median(perRun.vsBare), 0.8, runsOf(perRun.vsBare)));
  process.stdout.write(ratioLine("readings processed / ingested", median(perRun.endToEnd), 0.8, runsOf(perRun.endToEnd)));
} finally {
  for (const device of devices) await device.endAsync(true).catch(() => {});
  await nc.close();
  await system.stop();
  await env.cleanup();
}
