// Samples this process's allocations (V8's sampling heap profiler) and writes the profile after
// HEAP_SAMPLE_MS (default 60 s) to HEAP_SAMPLE_DIR as <all|kept>-<pid>.heapprofile. Loaded into
// every service of a benchmark with SERVICE_NODE_FLAGS=--import=./bench/heap-sampling.mjs.
// HEAP_SAMPLE_MINOR=1 keeps every allocation ("all"); otherwise the objects a minor collection
// freed leave the profile ("kept": what outlived the young generation). Compare two runs, one of
// each, with bench/heap-sites.ts. Plain JavaScript: it loads before any TypeScript loader.
import { writeFileSync } from "node:fs";
import inspector from "node:inspector";

const dir = process.env.HEAP_SAMPLE_DIR ?? "/tmp";
const all = process.env.HEAP_SAMPLE_MINOR === "1";
const session = new inspector.Session();
session.connect();
session.post("HeapProfiler.enable");
session.post("HeapProfiler.startSampling", { samplingInterval: 8192, includeObjectsCollectedByMinorGC: all, includeObjectsCollectedByMajorGC: true });
setTimeout(() => {
  session.post("HeapProfiler.stopSampling", (error, result) => {
    if (!error) writeFileSync(`${dir}/${all ? "all" : "kept"}-${process.pid}.heapprofile`, JSON.stringify(result.profile));
  });
}, Number(process.env.HEAP_SAMPLE_MS ?? 60_000)).unref();
