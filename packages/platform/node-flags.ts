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
// --no-allocation-site-pretenuring: V8 otherwise learns, per place in the code that allocates, that
// its objects often outlive one young-generation collection, and from then on allocates them in the
// old generation directly. A service's per-request objects live for one request, a little longer
// under load (a delivery waits its turn in its hook's lane), so they die there, and until the next
// full collection every dead one keeps alive whatever young object it pointed to, which is promoted
// too. In the dispatcher under bench:webhooks load that promoted 12–15 % of all it allocated (118–151
// MB of about 1 GB per 40,000 deliveries), scavenges took 500 ms of pauses and as much again on the
// helper threads; without pretenuring it promotes 2 % (21 MB), pauses 203 ms, and its CPU per
// delivery fell from 0.16–0.21 to 0.14 ms (`--trace-gc-nvp` beside `npm run bench:webhooks`).
export const NODE_FLAGS: readonly string[] = Object.freeze(["--initial-old-space-size=128", "--no-allocation-site-pretenuring"]);
