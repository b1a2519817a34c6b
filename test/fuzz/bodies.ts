// Generated request bodies for the write endpoints, shared by the fuzz test (a few dozen per
// endpoint in every run) and `npm run fuzz -- --count N` (the long run):
// - random: any JSON, objects with the declared fields set to anything, broken JSON text;
// - hostile: the declared shape with deep nesting, huge numbers, long and odd unicode strings and
//   prototype-pollution keys (__proto__, constructor, prototype) at every level;
// - near-valid: the right shape, mostly valid values with extremes mixed in, so they pass the
//   edge's schemas and reach the services' own rules and the database's column limits.
import fc from "fast-check";

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

/** Ids of real resources, so that bodies also reach the services' own validation, not just 404s. */
export type RealIds = Partial<Record<"customers" | "products" | "orders" | "hooks" | "shipments" | "tokens", string>>;

export /** Bodies: any JSON value, objects with the declared fields set to anything, or broken JSON text. */
function randomBodies(schema: JsonSchema | undefined): fc.Arbitrary<{ raw: string }> {
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

const POLLUTION_KEYS = ["__proto__", "constructor", "prototype"];

/** Deeply nested JSON text (built as text: JSON.stringify of such depth would itself overflow). */
const deepNesting = fc.tuple(fc.integer({ min: 100, max: 20_000 }), fc.constantFrom("[", '{"a":')).map(([depth, open]) => {
  const close = open === "[" ? "]" : "}";
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
});

const hugeNumber = fc.oneof(
  fc.constantFrom("1e308", "-1e308", "1e309", "123456789012345678901234567890", "0.000000000000000000000000001", "-0", "1E+400"),
  fc.integer({ min: 20, max: 5_000 }).map((n) => "9".repeat(n)),
);

const oddString = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.constantFrom("\u0000", "\ud800", "\udfff", "\u202e", "%00", "' OR 1=1 --", "${7*7}", "{{7*7}}", "<script>x</script>", "../../etc/passwd"),
  fc.integer({ min: 10_000, max: 300_000 }).map((n) => "z".repeat(n)),
);

/** A JSON text of `value` with a polluting key spliced in at the top level. */
const withPollution = (json: string, key: string, inner: string) =>
  json.startsWith("{") && json.length > 2 ? `{"${key}":${inner},${json.slice(1)}` : `{"${key}":${inner}}`;

/** The declared shape with hostile values and keys. */
export function hostileBodies(schema: JsonSchema | undefined): fc.Arbitrary<{ raw: string }> {
  const props = Object.keys(schema?.properties ?? {});
  const hostileValue: fc.Arbitrary<string> = fc.oneof(
    hugeNumber,
    oddString.map((s) => JSON.stringify(s)),
    deepNesting,
    fc.constantFrom("null", "true", "[]", "{}", '{"__proto__":{"isAdmin":true}}', '{"constructor":{"prototype":{"polluted":1}}}'),
  );
  const shaped = props.length
    ? fc
        .array(fc.tuple(fc.constantFrom(...props), hostileValue), { minLength: 1, maxLength: props.length + 2 })
        .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`)
    : fc.constant("{}");
  return fc
    .oneof(
      shaped,
      fc.tuple(shaped, fc.constantFrom(...POLLUTION_KEYS), hostileValue).map(([json, key, inner]) => withPollution(json, key, inner)),
      deepNesting,
      hugeNumber,
      oddString.map((s) => JSON.stringify(s)),
    )
    .map((raw) => ({ raw }));
}

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

/**
 * One body in four is clean (every field valid and the order's total far from the limit), so
 * that even a short run reaches the success path: near-valid bodies stack several 1-in-5
 * extremes and succeed only a few times in a hundred (orders under 1 in 100).
 */
const withClean = (clean: fc.Arbitrary<Record<string, unknown>>, near: fc.Arbitrary<Record<string, unknown>>) =>
  fc.oneof({ arbitrary: clean, weight: 1 }, { arbitrary: near, weight: 3 });
const cleanName = fc.string({ unit: fc.constantFrom(..."abcXYZ019 -"), minLength: 1, maxLength: 40 }).map((t) => `n${t.trim()}`);
const cleanPrice = fc.integer({ min: 0, max: 99_999 }).map((cents) => (cents / 100).toFixed(2));

export function nearValidWrites(realIds: RealIds): { name: string; method: string; path: string; body: fc.Arbitrary<Record<string, unknown>> }[] {
  const realProduct = realIds.products ?? "prd_fuzz";
  // Unknown products are refused (422 unknown_product) and an order has up to 8 lines: rarer per
  // line than other extremes, so that whole orders still reach the success path.
  const productId = fc.oneof(
    { arbitrary: fc.constant(realProduct), weight: 19 },
    { arbitrary: fc.oneof(fc.constant("prd_01jc0000000000000000000000"), text(100)), weight: 1 },
  );
  const line = fc.record({ productId, quantity, price: amount });
  return [
    {
      name: "create an order",
      method: "POST",
      path: "/orders",
      body: withClean(
        fc.record({
          shortId: fc.string({ unit: fc.constantFrom(..."ABCXYZ019"), minLength: 8, maxLength: 20 }),
          customerId: fc.constant(realIds.customers ?? "cus_fuzz"),
          currency: fc.constantFrom("EUR", "USD"),
          orderItems: fc.array(fc.record({ productId: fc.constant(realProduct), quantity: fc.integer({ min: 1, max: 100 }), price: cleanPrice }), {
            minLength: 1,
            maxLength: 5,
          }),
        }),
        fc.record(
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
      ),
    },
    {
      name: "create a product",
      method: "POST",
      path: "/products",
      body: withClean(
        fc.record({ sku: fc.uuid().map((u) => `sku-${u}`), name: cleanName, price: cleanPrice, currency: fc.constant("EUR") }),
        fc.record({ sku: text(100), name: text(200), price: amount, currency, lowStockThreshold: quantity }, { requiredKeys: ["sku", "name"] }),
      ),
    },
    {
      name: "change a product",
      method: "PUT",
      path: `/products/${realProduct}`,
      body: withClean(
        fc.record({ name: cleanName, price: cleanPrice, currency: fc.constant("EUR") }),
        fc.record(
          {
            name: text(200),
            price: fc.oneof(amount, fc.constant(null)),
            currency: fc.oneof(currency, fc.constant(null)),
            lowStockThreshold: fc.oneof(quantity, fc.constant(null)),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    {
      name: "adjust stock",
      method: "POST",
      path: "/inventory/adjustments",
      body: withClean(
        fc.record({ productId: fc.constant(realProduct), delta: fc.integer({ min: 1, max: 1000 }), reason: cleanName }),
        fc.oneof(
          fc.record(
            { productId, location: text(64), delta: fc.tuple(quantity, fc.boolean()).map(([q, minus]) => (minus ? -q : q)), reason: text(500) },
            { requiredKeys: ["productId", "delta", "reason"] },
          ),
          fc.record({ productId, location: text(64), setTo: quantity, reason: text(500) }, { requiredKeys: ["productId", "setTo", "reason"] }),
        ),
      ),
    },
    {
      name: "create a customer",
      method: "POST",
      path: "/customers",
      body: withClean(
        fc.record({ name: cleanName, email: fc.constant("buyer@example.com") }),
        fc.record(
          {
            name: text(200),
            email: mostly(fc.emailAddress(), text(300)),
            address: fc.record({ line1: text(200), city: text(100), country: mostly(fc.constantFrom("DE", "US"), text(3)) }),
          },
          { requiredKeys: ["name"] },
        ),
      ),
    },
  ];
}
