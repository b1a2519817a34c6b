// Waits until the system has worked off what an earlier phase left behind, so that the next
// phase of a benchmark is measured on an idle system: every durable consumer of the run's
// streams has nothing pending and nothing unacknowledged.
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Topology } from "@waybill/platform/nats.js";
import { deliveriesStreamName } from "../services/dispatcher/deliveries-stream.js";

export async function waitForDrain(nc: NatsConnection, topology: Topology, timeoutMs = 300_000): Promise<number> {
  const jsm = await jetstreamManager(nc);
  const streams = [topology.eventsStream, topology.ingressStream, deliveriesStreamName(topology)];
  const started = performance.now();
  let lastReport = -1;
  for (;;) {
    let backlog = 0;
    const each: string[] = [];
    for (const stream of streams) {
      for await (const consumer of jsm.consumers.list(stream)) {
        if (!consumer) continue; // deleted while the list was paged
        backlog += consumer.num_pending + consumer.num_ack_pending;
        if (consumer.num_pending + consumer.num_ack_pending > 0) each.push(`${consumer.name} ${consumer.num_pending}+${consumer.num_ack_pending}`);
      }
    }
    // BENCH_DRAIN_VERBOSE=1: which consumer holds the backlog, once a second.
    if (process.env.BENCH_DRAIN_VERBOSE && each.length > 0 && Math.floor((performance.now() - started) / 1000) !== lastReport) {
      lastReport = Math.floor((performance.now() - started) / 1000);
      process.stderr.write(`  drain ${lastReport} s: ${each.join(", ")}\n`);
    }
    if (backlog === 0) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`still ${backlog} messages pending after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
