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
  return fc
    .oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      shaped,
      shaped.map((text) => text.slice(0, Math.max(1, Math.floor(text.length / 2)))),
      fc.string({ maxLength: 200 }),
    )
    .map((raw) => ({ raw }));
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

// Near-valid bodies: the right shape, mostly valid values with extremes mixed in (huge,
// negative and many-decimal amounts, quantities at every bound, long and unicode strings, odd
// currencies), so they pass the edge's schemas and reach the services' own rules and the
// database's column limits, where a 500 hides (an order total past numeric(19, 4) was one).
const CURRENCIES = ["EUR", "USD", "JPY", "BHD", "KWD", "CLF", "UYW", "XAU", "XXX"];

/** Mostly `valid`, sometimes `extreme`: every field near its limits without every body failing. */
const mostly = <T>(valid: fc.Arbitrary<T>, extreme: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: extreme, weight: 1 });
const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: min, maxLength: max });
const decimal = (wholeDigits: number, fractionDigits: number, negative = false) =>
  fc
    .tuple(fc.boolean(), digits(1, wholeDigits), fc.option(digits(1, fractionDigits), { nil: undefined }))
    .map(([minus, whole, fraction]) => `${negative && minus ? "-" : ""}${whole}${fraction === undefined ? "" : `.${fraction}`}`);

const amount: fc.Arbitrary<unknown> = mostly<unknown>(
  fc.oneof(decimal(15, 2), fc.constantFrom("999999999999999.99", "999999999999999", "0", "0.00", "0.01"), fc.integer({ min: 0, max: 1_000_000 })),
  fc.oneof(
    decimal(17, 8, true),
    fc.constantFrom("999999999999999.999", "999999999999999.9999", "-0", "-0.01", "0.001", " 1.00", "1e3", "1_000"),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(1e15, 999999999999999.9, 0.1 + 0.2, -1, Number.MAX_SAFE_INTEGER, 5e-324),
  ),
);
const quantity: fc.Arbitrary<number> = mostly(
  fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom(1, 999_999, 1_000_000)),
  fc.oneof(fc.constantFrom(0, -1, 1_000_001, 2 ** 31 - 1, 2 ** 31, 1_000_000_000, 1_000_000_001, 1.5), fc.integer({ min: -(2 ** 31), max: 2 ** 31 })),
);
/** A trimmed text of letters from many scripts (astral, combining, right-to-left) and inner spaces. */
const word = (maxLength: number) =>
  fc
    .string({ unit: fc.constantFrom(..."aZ09-_.", "é", "ß", "中", "ب", "😀", "e\u0301", "\u200d", " "), minLength: 1, maxLength })
    .map((t) => `x${t}x`.slice(0, maxLength));
const text = (maxLength: number): fc.Arbitrary<string> =>
  mostly(
    word(maxLength),
    fc.oneof(
      fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
      fc.constantFrom("x".repeat(maxLength), "x".repeat(maxLength + 1), "😀".repeat(maxLength), " padded ", "\u202eevil", "a\u0000b", "line\nbreak", "\t", ""),
      fc.integer({ min: maxLength - 2, max: maxLength * 3 }).map((n) => "y".repeat(n)),
    ),
  );
const currency: fc.Arbitrary<string> = mostly(
  fc.constantFrom(...CURRENCIES),
  fc.oneof(fc.string({ unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"), minLength: 3, maxLength: 3 }), fc.constantFrom("eur", "EURO", "€", "ÉUR", "")),
);

function nearValidWrites(): { name: string; method: string; path: string; body: fc.Arbitrary<Record<string, unknown>> }[] {
  // Unknown products are refused (422 unknown_product) and an order has up to 8 lines: rarer per
  // line than other extremes, so that whole orders still reach the success path.
  const productId = fc.oneof(
    { arbitrary: fc.constant(realIds.products ?? "prd_fuzz"), weight: 19 },
    { arbitrary: fc.oneof(fc.constant("prd_01jc0000000000000000000000"), text(100)), weight: 1 },
  );
  const line = fc.record({ productId, quantity, price: amount });
  return [
    {
      name: "create an order",
      method: "POST",
      path: "/orders",
      body: fc.record(
        {
          shortId: mostly(fc.string({ unit: fc.constantFrom(..."ABCXYZ019._-"), minLength: 8, maxLength: 64 }), text(64)),
          customerId: mostly(fc.constant(realIds.customers ?? "cus_fuzz"), text(100)),
          currency,
          dueDate: mostly(
            fc.constantFrom("2027-01-01", "2027-01-01T00:00:00Z", "9999-12-31T23:59:59.999+14:00"),
            fc.oneof(fc.constantFrom("0001-01-01", "2027-02-30", "2027-01-01T24:00:00Z"), text(40)),
          ),
          orderItems: mostly(fc.array(line, { minLength: 1, maxLength: 8 }), fc.oneof(fc.constant([]), fc.array(line, { minLength: 495, maxLength: 505 }))),
        },
        { requiredKeys: ["shortId", "customerId", "currency", "orderItems"] },
      ),
    },
    {
      name: "create a product",
      method: "POST",
      path: "/products",
      body: fc.record({ sku: text(100), name: text(200), price: amount, currency, lowStockThreshold: quantity }, { requiredKeys: ["sku", "name"] }),
    },
    {
      name: "change a product",
      method: "PUT",
      path: `/products/${realIds.products ?? "prd_fuzz"}`,
      body: fc.record(
        {
          name: text(200),
          price: fc.oneof(amount, fc.constant(null)),
          currency: fc.oneof(currency, fc.constant(null)),
          lowStockThreshold: fc.oneof(quantity, fc.constant(null)),
        },
        { requiredKeys: [] },
      ),
    },
    {
      name: "adjust stock",
      method: "POST",
      path: "/inventory/adjustments",
      body: fc.oneof(
        fc.record(
          { productId, location: text(64), delta: fc.tuple(quantity, fc.boolean()).map(([q, minus]) => (minus ? -q : q)), reason: text(500) },
          { requiredKeys: ["productId", "delta", "reason"] },
        ),
        fc.record({ productId, location: text(64), setTo: quantity, reason: text(500) }, { requiredKeys: ["productId", "setTo", "reason"] }),
      ),
    },
    {
      name: "create a customer",
      method: "POST",
      path: "/customers",
      body: fc.record(
        {
          name: text(200),
          email: mostly(fc.emailAddress(), text(300)),
          address: fc.record({ line1: text(200), city: text(100), country: mostly(fc.constantFrom("DE", "US"), text(3)) }),
        },
        { requiredKeys: ["name"] },
      ),
    },
  ];
}

describe("write endpoints under near-valid input with extreme values", () => {
  it.each(["create an order", "create a product", "change a product", "adjust stock", "create a customer"])(
    "%s: never 5xx; problem+json with a code or a success",
    async (name) => {
      const write = nearValidWrites().find((w) => w.name === name)!;
      let successes = 0;
      await fc.assert(
        fc.asyncProperty(write.body, async (body) => {
          const answer = await request(`${stack.baseUrl}${write.path}`, { method: write.method, token: stack.token, json: body });
          const shown = JSON.stringify(body).slice(0, 2000);
          expect(answer.status, `${write.method} ${write.path} with ${shown}: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
          if (answer.status >= 400) {
            expect(answer.headers.get("content-type"), shown).toContain("application/problem+json");
            expect(answer.body.code, shown).toEqual(expect.any(String));
          } else {
            successes++;
            expect(answer.status, shown).toBeGreaterThanOrEqual(200);
            expect(answer.headers.get("content-type"), shown).toContain("application/json");
            expect(answer.body.id, shown).toEqual(expect.any(String));
          }
        }),
        { numRuns: 80 },
      );
      // Near-valid means some of them are valid: the property reached the success path as well.
      expect(successes, name).toBeGreaterThan(0);
    },
  );
});
