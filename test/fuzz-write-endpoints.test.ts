// Property-based, in every run: random, hostile and near-valid bodies at every write endpoint the
// OpenAPI document lists never get a 5xx, every refusal is problem+json with a code and leaves the
// database as it was, and near-valid bodies also reach the success path. The long run of the same
// generators is `npm run fuzz -- --count 10000` (test/fuzz/main.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fuzzWriteEndpoints, type EndpointReport } from "./fuzz/run-fuzz.js";
import { startStack, type Stack } from "./support/stack.js";

/** Bodies per endpoint in CI; the long run takes --count. */
const COUNT = Number(process.env.FUZZ_COUNT ?? 120);

let stack: Stack;
let reports: EndpointReport[];
beforeAll(async () => {
  stack = await startStack({ extraEnv: { RATE_LIMIT_REQUESTS: "100000000", LOGIN_RATE_LIMIT_PER_MINUTE: "100000000" } });
  reports = await fuzzWriteEndpoints(
    { baseUrl: stack.baseUrl, token: stack.token, databaseUrl: stack.env.databaseUrl },
    { count: COUNT, seed: Date.now() % 100_000 },
  );
}, 600_000);
afterAll(async () => {
  await stack?.stop();
});

describe("write endpoints under generated bodies", () => {
  it("are all fuzzed, each with the full count", () => {
    const names = reports.map((r) => r.endpoint);
    for (const expected of ["POST /orders", "PUT /products/{id}", "POST /inventory/adjustments", "POST /hooks", "POST /auth/login", "POST /orders/{id}/status"])
      expect(names).toContain(expected);
    for (const r of reports) expect(r.runs, r.endpoint).toBe(COUNT);
  });

  it("never answer 5xx; every refusal is problem+json with a code and changes nothing in the database", () => {
    expect(reports.flatMap((r) => r.failures)).toEqual([]);
  });

  it("reach the success path with near-valid bodies where the body has a model", () => {
    for (const endpoint of ["POST /orders", "POST /products", "PUT /products/{id}", "POST /inventory/adjustments", "POST /customers"])
      expect(reports.find((r) => r.endpoint === endpoint)?.successes, endpoint).toBeGreaterThan(0);
  });
});
