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
// old generation directly, where a service's per-request objects die; until the next full
// collection each dead one keeps alive whatever young object it pointed to, which is promoted in
// turn. The dispatcher under bench:webhooks load falls into a state where 12-17 % of what it
// allocates is promoted (scavenges then cost it 500-740 ms of pauses per 40,000 deliveries, and
// as much on helper threads); in the others it promotes 2 % and pauses about 200 ms. Without this
// flag 5 runs of 5 were in that state, with it 1 run of 3 (`--trace-gc-nvp` beside
// `npm run bench:webhooks`), so it made the state rarer; its cause was found later, in sets whose
// replaced hash tables kept what passed through them (slot-set.ts).
export const NODE_FLAGS: readonly string[] = Object.freeze(["--initial-old-space-size=128", "--no-allocation-site-pretenuring"]);
