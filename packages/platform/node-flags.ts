// The flags every service's Node process starts with: the image's ENTRYPOINT, `npm start`, and the
// tests and benchmarks that run services as processes (node-flags.test.ts holds them together).
//
// --initial-old-space-size: V8 then runs no full collection while the old generation (with the
// ArrayBuffers allocated since the last one) stays under this size. Left to itself, V8 sizes that
// budget from the live heap, which is small in a service, and counts in it every ArrayBuffer
// allocated since the last full collection, though a service's socket reads and answer buffers
// (hundreds of KB per list page) die young. Under list load the orders service then ran full
// collections back to back: a large share of its CPU, pauses of several milliseconds each, and a
// CPU cost per page that varied with their count. With 128 MB it runs none under that load and
// its cost per page is steady. A service's heap may grow to about that size before it is
// collected: the Kubernetes requests count it.
export const NODE_FLAGS: readonly string[] = Object.freeze(["--initial-old-space-size=128"]);
