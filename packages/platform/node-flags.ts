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
//
// --no-allocation-site-pretenuring: V8 otherwise starts allocating the objects of a place in the
// code directly in the old generation once many of them have outlived a young-generation
// collection. While the dispatcher still kept its in-flight deliveries in Sets and Maps (see
// slot-set.ts for what that did), its traced bench:webhooks runs were in a heavy-promotion state
// 5 times of 5 without this flag and 1 time of 3 with it (`--trace-gc-nvp`). Measured again after
// the slot sets removed that state's cause (one traced run each, four full collections forced):
// with pretenuring on, 2-3.5 MB were promoted per scavenge after the later full collections and
// 69 MB in all, against 0-1.1 MB and 49 MB with this flag; throughput alike. Service start-up is
// the same with or without it (module load 1.1-1.3 s either way).
export const NODE_FLAGS: readonly string[] = Object.freeze(["--initial-old-space-size=128", "--no-allocation-site-pretenuring"]);
