// `npm run chaos:network`: latency, loss and a partition on the links to NATS and to PostgreSQL,
// under load (run-network-chaos.ts). Prints the report; exits 1 when anything was lost, delivered
// without committing, left unacknowledged, or a partition made the API hang. Needs root, iproute2
// and iptables.
import { Command, InvalidArgumentError } from "commander";
import { networkFaultsAvailable } from "./network-faults.js";
import { formatNetworkReport, networkReportPassed, runNetworkChaos } from "./run-network-chaos.js";

const seconds = (value: string) => {
  const n = Number(value);
  if (!(n > 0)) throw new InvalidArgumentError("a number of seconds above 0");
  return n;
};
const { phase, degraded, partition } = new Command("chaos:network")
  .description("Network faults between the services and NATS / PostgreSQL under load, then a reconciliation")
  .option("--phase <seconds>", "load before the first fault and after each", seconds, 10)
  .option("--degraded <seconds>", "how long the latency and the loss last", seconds, 15)
  .option("--partition <seconds>", "how long a partition lasts", seconds, 20)
  .parse()
  .opts<{ phase: number; degraded: number; partition: number }>();

if (!networkFaultsAvailable()) {
  process.stderr.write("chaos:network needs root, iproute2 (ip) and iptables (Debian: apt-get install iproute2 iptables)\n");
  process.exit(2);
}
const report = await runNetworkChaos({
  phaseMs: phase * 1000,
  degradedMs: degraded * 1000,
  partitionMs: partition * 1000,
  log: (line) => process.stderr.write(`chaos:network: ${line}\n`),
});
process.stdout.write(`${formatNetworkReport(report)}\n`);
process.exit(networkReportPassed(report) ? 0 : 1);
