// Summarises V8 CPU profiles (written by `CPU_PROFILE_DIR=dir npm run bench:…`): self time per
// function and per package/folder, heaviest first, so a profile can be read without a browser.
// Run: node --conditions=@waybill/source --import tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
import { readFile } from "node:fs/promises";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function place(url: string): string {
  if (!url) return "(native)";
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) {
    const rest = url.slice(modules + "node_modules/".length).split("/");
    return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith("node:")) return url;
  const project = url.match(/\/(services|packages|clients|bench)\/(.*)$/);
  return project ? `${project[1]}/${project[2]}` : url;
}

const [file, topArg] = process.argv.slice(2);
const profile = JSON.parse(await readFile(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const isIdle = (id: number) => byId.get(id)!.callFrame.functionName === "(idle)";
const sampled = [...selfUs.values()].reduce((a, b) => a + b, 0);
// Percentages are of the busy time: idle is what the process did not spend.
const total = [...selfUs.entries()].filter(([id]) => !isIdle(id)).reduce((a, [, us]) => a + us, 0);
const functions = new Map<string, number>();
const places = new Map<string, number>();
for (const [id, us] of selfUs) {
  if (isIdle(id)) continue;
  const frame = byId.get(id)!.callFrame;
  const where = place(frame.url);
  const name = `${frame.functionName || "(anonymous)"}  ${where}${frame.url ? `:${frame.lineNumber + 1}` : ""}`;
  functions.set(name, (functions.get(name) ?? 0) + us);
  const group = !frame.url
    ? frame.functionName
    : where.startsWith("node:")
      ? where
      : where
          .split("/")
          .slice(0, where.startsWith("@") || /^(services|packages|clients)\//.test(where) ? 2 : 1)
          .join("/");
  places.set(group, (places.get(group) ?? 0) + us);
}
const top = Number(topArg ?? 25);
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
console.log(`${file}: ${(sampled / 1000).toFixed(0)} ms sampled, ${(total / 1000).toFixed(0)} ms busy; percentages of busy time`);
console.log("by package or folder:");
for (const [name, us] of [...places].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${name}`);
console.log("by function (self time):");
for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us)}  ${name}`);
