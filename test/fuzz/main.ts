// `npm run fuzz -- --count 10000`: the long fuzz run of every write endpoint against the whole
// system started in this process (its own database and streams). Prints one line per endpoint
// and exits 1 when any request failed (5xx, a refusal that is not problem+json, or a refusal that
// changed the database).
import { Command, InvalidArgumentError } from "commander";
import { startStack } from "../support/stack.js";
import { fuzzWriteEndpoints } from "./run-fuzz.js";

const positive = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("a whole number above 0");
  return n;
};

const program = new Command("fuzz")
  .description("Fuzz every write endpoint with generated bodies (random, hostile, near-valid)")
  .option("--count <n>", "bodies per endpoint", positive, 10_000)
  .option("--seed <n>", "fast-check seed (same seed, same bodies)", positive, 42)
  .option("--only <text>", 'only endpoints whose "METHOD /path" contains this')
  .parse();
const { count, seed, only } = program.opts<{ count: number; seed: number; only?: string }>();

// Far above what the run sends, so that limits do not answer in place of validation.
const stack = await startStack({ extraEnv: { RATE_LIMIT_REQUESTS: "100000000", LOGIN_RATE_LIMIT_PER_MINUTE: "100000000" } });
const started = Date.now();
let exitCode = 0;
try {
  process.stderr.write(`fuzzing every write endpoint with ${count} bodies each (seed ${seed})\n`);
  const reports = await fuzzWriteEndpoints(
    { baseUrl: stack.baseUrl, token: stack.token, databaseUrl: stack.env.databaseUrl },
    {
      count,
      seed,
      only,
      onProgress: (endpoint, done, total) => {
        if (done === total || done % 2_500 === 0) process.stderr.write(`  ${endpoint}: ${done}/${total}\n`);
      },
    },
  );
  for (const r of reports) {
    const statuses = Object.entries(r.statuses)
      .map(([status, n]) => `${status}×${n}`)
      .join(" ");
    process.stdout.write(
      `${r.failures.length === 0 ? "ok  " : "FAIL"} ${r.endpoint}: ${r.runs} bodies, ${r.successes} accepted, ${r.refusals} refused (${statuses})\n`,
    );
    for (const failure of r.failures) process.stdout.write(`       ${failure}\n`);
  }
  const runs = reports.reduce((n, r) => n + r.runs, 0);
  const failed = reports.filter((r) => r.failures.length > 0).length;
  process.stdout.write(
    `fuzz: ${reports.length} endpoints, ${runs} requests, ${failed} endpoints with failures, 5xx ${reports.reduce((n, r) => n + Object.entries(r.statuses).reduce((m, [status, k]) => m + (Number(status) >= 500 ? k : 0), 0), 0)}, ${Math.round((Date.now() - started) / 1000)} s\n`,
  );
  exitCode = failed > 0 ? 1 : 0;
} finally {
  await stack.stop();
}
process.exit(exitCode);
