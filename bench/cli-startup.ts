// npm run bench:cli — start-up of the `waybill` client as users install it: packs clients/cli,
// installs the tarball into an empty prefix (test/support/cli-package.ts), then times
// `waybill --version` from there RUNS times (after one unmeasured run that warms the file cache)
// and prints each time, the median and the ratio line (lower is better; target <= 300 ms). The
// yardstick, in turns with it: `node -e 0`, Node's own start-up on the same machine at the same
// moment (on the shared 2-core machines it swings with the load, and so does the client's).
import { spawnSync } from "node:child_process";
import { outsideEnv, packAndInstall } from "../test/support/cli-package.js";
import { median } from "./ratios.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const TARGET_MS = 300;

const installed = await packAndInstall();
try {
  const env = outsideEnv();
  const timed = (file: string, args: string[]): number => {
    const started = performance.now();
    const result = spawnSync(file, args, { cwd: installed.cwd, env, encoding: "utf8" });
    const ms = performance.now() - started;
    if (result.status !== 0) throw new Error(`${file} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
    return ms;
  };
  timed(installed.bin, ["--version"]);
  const times: number[] = [];
  const bare: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    times.push(timed(installed.bin, ["--version"]));
    bare.push(timed(process.execPath, ["-e", "0"]));
  }
  const line = (values: number[]) =>
    `${values.map((t) => t.toFixed(0)).join(", ")} ms; median ${median(values).toFixed(0)}, min ${Math.min(...values).toFixed(0)}, max ${Math.max(...values).toFixed(0)}`;
  console.log(`waybill --version from ${installed.prefix}: ${line(times)}`);
  console.log(`node -e 0 (yardstick, in turns): ${line(bare)}`);
  console.log(`ratio cli startup ms: ${median(times).toFixed(0)} (target <= ${TARGET_MS})`);
} finally {
  await installed.remove();
}
