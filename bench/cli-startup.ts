// npm run bench:cli — start-up of the `waybill` client as users install it: packs clients/cli,
// installs the tarball into an empty prefix (test/support/cli-package.ts), then times
// `waybill --version` from there RUNS times (after one unmeasured run that warms the file cache)
// and prints each time, the median and the ratio line (lower is better; target <= 300 ms).
import { spawnSync } from "node:child_process";
import { outsideEnv, packAndInstall } from "../test/support/cli-package.js";
import { median } from "./ratios.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const TARGET_MS = 300;

const installed = await packAndInstall();
try {
  const env = outsideEnv();
  const once = (): number => {
    const started = performance.now();
    const result = spawnSync(installed.bin, ["--version"], { cwd: installed.cwd, env, encoding: "utf8" });
    const ms = performance.now() - started;
    if (result.status !== 0) throw new Error(`waybill --version exited ${result.status}: ${result.stderr}`);
    return ms;
  };
  once();
  const times = Array.from({ length: RUNS }, once);
  console.log(`waybill --version from ${installed.prefix}: ${times.map((t) => t.toFixed(0)).join(", ")} ms`);
  console.log(`median ${median(times).toFixed(0)} ms, min ${Math.min(...times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms over ${RUNS} runs`);
  console.log(`ratio cli startup ms: ${median(times).toFixed(0)} (target <= ${TARGET_MS})`);
} finally {
  await installed.remove();
}
