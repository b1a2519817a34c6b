// Per allocation site, the bytes two sampling heap profiles hold (bench/heap-sampling.mjs): one of
// every allocation, one of what outlived minor collections, and the share kept. A site whose
// objects are kept near 100 % while they should die young points at something retaining them.
// Run: node --conditions=@waybill/source --import tsx bench/heap-sites.ts <all.heapprofile> <kept.heapprofile> [top=30]
// (the two from separate runs of the same benchmark: the shares are then approximate).
import { readFileSync } from "node:fs";

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: SamplingNode[];
}

function bytesBySite(file: string): Map<string, number> {
  const sites = new Map<string, number>();
  const stack: SamplingNode[] = [(JSON.parse(readFileSync(file, "utf8")) as { head: SamplingNode }).head];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url.replace(/.*node_modules\//, "").replace(/^file:\/\/.*?\/(services|packages|bench)\//, "$1/");
    const site = `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
    if (node.selfSize > 0) sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
    stack.push(...(node.children ?? []));
  }
  return sites;
}

const [allFile, keptFile, top = "30"] = process.argv.slice(2);
if (!allFile || !keptFile) {
  process.stderr.write("usage: heap-sites.ts <all.heapprofile> <kept.heapprofile> [top]\n");
  process.exit(2);
}
const all = bytesBySite(allFile);
const kept = bytesBySite(keptFile);
const mb = (bytes: number) => (bytes / 1e6).toFixed(2).padStart(8);
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
process.stdout.write(`every allocation ${mb(sum(all))} MB, outlived minor collections ${mb(sum(kept))} MB\n`);
for (const [site, bytes] of [...kept].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
  const allocated = all.get(site) ?? 0;
  const share = allocated > 0 ? `${Math.min(100, Math.round((bytes / allocated) * 100))} %`.padStart(6) : "     ?";
  process.stdout.write(`${mb(bytes)} MB kept of ${mb(allocated)}  ${share}  ${site}\n`);
}
