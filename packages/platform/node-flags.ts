// The flags every service's Node process starts with: the image's ENTRYPOINT, `npm start`, and the
// tests and benchmarks that run services as processes (node-flags.test.ts holds them together).
//
// --initial-old-space-size: V8 then runs no full collection while the old generation (with the
// ArrayBuffers allocated since the last one) stays under this size. Left to itself, V8 sizes that
// budget from the live heap, about 20 MB in a service, and counts in it every ArrayBuffer
// allocated since the last full collection, though a service's socket reads and answer buffers
// (200–300 KB per list page of 100 orders) die young. Under list load the orders service then
// ran a full collection every 70–150 ms: a fifth to a third of its CPU (perf), pauses of 5–12 ms
// each, and its CPU per page of 100 orders swung 0.33–0.64 ms with their count. With 128 MB it
// ran none in 70 s at 1,100 pages a second and spent 0.30 ms per page. A service's heap may grow
// to about that size before it is collected: the Kubernetes requests count it.
export const NODE_FLAGS: readonly string[] = Object.freeze(["--initial-old-space-size=128"]);
