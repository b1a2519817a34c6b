// Property-based: random and malformed bodies at every write endpoint the OpenAPI document lists
// never get a 5xx, and every refusal is problem+json with a code.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let document: { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>> };
const realIds: Record<string, string> = {};

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

beforeAll(async () => {
  stack = await startStack();
  document = (await request(`${stack.edge.url}/v1/openapi.json`)).body;
  // Real resources, so that bodies also reach the services' own validation, not just 404s.
  const post = (path: string, json: unknown) => request(`${stack.baseUrl}${path}`, { token: stack.token, json });
  const customer = await post("/customers", { name: "Fuzz Customer", email: "fuzz@example.com" });
  if (customer.status === 201) realIds.customers = customer.body.id;
  const product = await post("/products", { sku: "FUZZ-1", name: "Fuzz product", price: "2.00", currency: "EUR" });
  if (product.status === 201) realIds.products = product.body.id;
  const order = await post("/orders", {
    shortId: "FUZZ-ORDER",
    customerId: realIds.customers ?? "cus_fuzz",
    currency: "EUR",
    orderItems: [{ productId: realIds.products ?? "prd_fuzz", quantity: 1, price: "2.00" }],
  });
  if (order.status === 201) realIds.orders = order.body.id;
});
afterAll(async () => {
  await stack?.stop();
});

/** Bodies: any JSON value, objects with the declared fields set to anything, or broken JSON text. */
function bodies(schema: JsonSchema | undefined): fc.Arbitrary<{ raw: string }> {
  const props = Object.keys(schema?.properties ?? {});
  const shaped = props.length
    ? fc.record(Object.fromEntries(props.map((p) => [p, fc.jsonValue()])), { requiredKeys: [] }).map((v) => JSON.stringify(v))
    : fc.constant("{}");
  return fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    shaped,
    shaped.map((text) => text.slice(0, Math.max(1, Math.floor(text.length / 2)))),
    fc.string({ maxLength: 200 }),
  ).map((raw) => ({ raw }));
}

function concretePath(path: string, real: boolean): string {
  const resource = path.split("/")[1];
  return path.replace(/\{[^}]+\}/g, () => (real && realIds[resource]) || "zz_00000000000000000000000000");
}

describe("write endpoints under random input", () => {
  it("never answer 5xx; every 4xx is problem+json with a code", async () => {
    const writes = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method]) => method === "post" || method === "put")
        .map(([method, op]) => ({ path, method: method.toUpperCase(), schema: op.requestBody?.content["application/json"]?.schema })),
    );
    expect(writes.length).toBeGreaterThan(0);
    for (const write of writes) {
      await fc.assert(
        fc.asyncProperty(bodies(write.schema), fc.boolean(), async ({ raw }, real) => {
          const answer = await request(`${stack.baseUrl}${concretePath(write.path, real)}`, {
            method: write.method,
            token: stack.token,
            body: raw,
            headers: { "content-type": "application/json" },
          });
          expect(answer.status, `${write.method} ${write.path} with ${raw}`).toBeLessThan(500);
          if (answer.status >= 400) {
            expect(answer.headers.get("content-type")).toContain("application/problem+json");
            expect(answer.body.code).toEqual(expect.any(String));
          }
        }),
        { numRuns: 60 },
      );
    }
  });
});
