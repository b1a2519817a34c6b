// `npm run chaos`: kill -9 every service in turn, restart NATS, restart PostgreSQL, all under
// steady load, then reconcile deliveries against what committed. Prints the report; exits 1 when
// anything was lost, delivered without committing, inconsistent or left unacknowledged.
import { Command, InvalidArgumentError } from "commander";
import { formatReport, reportPassed, runChaos } from "./run-chaos.js";

const seconds = (value: string) => {
  const n = Number(value);
  if (!(n > 0)) throw new InvalidArgumentError("a number of seconds above 0");
  return n;
};
const { phase, down } = new Command("chaos")
  .description("Faults under load, then a reconciliation of deliveries against committed state")
  .option("--phase <seconds>", "load before the first fault and after each", seconds, 10)
  .option("--down <seconds>", "how long a restarted NATS or PostgreSQL stays down", seconds, 2)
  .parse()
  .opts<{ phase: number; down: number }>();

const report = await runChaos({ phaseMs: phase * 1000, downMs: down * 1000, log: (line) => process.stderr.write(`chaos: ${line}\n`) });
process.stdout.write(`${formatReport(report)}\n`);
process.exit(reportPassed(report) ? 0 : 1);
