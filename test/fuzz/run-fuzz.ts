// Fuzzes every write endpoint the OpenAPI document lists against a running system: `count`
// generated bodies each (random, hostile and, where there is a model of the body, near-valid),
// one request at a time. A request fails the run when it is answered 5xx, when a refusal is not
// problem+json with a code, or when a refusal changed the database (db-fingerprint.ts).
import fc from "fast-check";
import { request } from "../support/http-client.js";
import { hostileBodies, nearValidWrites, randomBodies, type JsonSchema, type RealIds } from "./bodies.js";
import { changedTables, openDbFingerprint } from "./db-fingerprint.js";

export interface FuzzSystem {
  /** The API's base URL, e.g. http://127.0.0.1:8080/v1 */
  baseUrl: string;
  token: string;
  databaseUrl: string;
}

export interface EndpointReport {
  endpoint: string;
  runs: number;
  successes: number;
  refusals: number;
  /** By status, e.g. { "422": 9120, "201": 31 } */
  statuses: Record<string, number>;
  failures: string[];
}

export interface FuzzOptions {
  /** Bodies per endpoint. */
  count: number;
  seed?: number;
  /** Only endpoints whose "METHOD /path" contains this. */
  only?: string;
  onProgress?(endpoint: string, done: number, total: number): void;
}

const SAMPLE_CHUNK = 250;
/** Endpoints whose success starts more writes after the answer (a saga step, a device's stock): wait for them to settle. */
const ASYNC_EFFECTS = /\/status$|\/shipments|\/delivery$|\/devices\//;
const MAX_FAILURES_KEPT = 20;

interface WriteEndpoint {
  method: string;
  path: string;
  schema: JsonSchema | undefined;
}

/** Creates one of each resource, so paths name real ones and bodies reach the services' rules. */
async function createRealResources(system: FuzzSystem): Promise<RealIds> {
  const post = (path: string, json: unknown) => request(`${system.baseUrl}${path}`, { token: system.token, json });
  const ids: RealIds = {};
  const customer = await post("/customers", { name: "Fuzz Customer", email: "fuzz@example.com" });
  if (customer.status === 201) ids.customers = customer.body.id;
  const product = await post("/products", { sku: `FUZZ-${Date.now()}`, name: "Fuzz product", price: "2.00", currency: "EUR" });
  if (product.status === 201) ids.products = product.body.id;
  const order = await post("/orders", {
    shortId: `FUZZ-ORDER-${Date.now()}`,
    customerId: ids.customers ?? "cus_fuzz",
    currency: "EUR",
    orderItems: [{ productId: ids.products ?? "prd_fuzz", quantity: 1, price: "2.00" }],
  });
  if (order.status === 201) ids.orders = order.body.id;
  const hook = await post("/hooks", { name: "fuzz", url: "https://example.com/fuzz", on: "order.created" });
  if (hook.status === 201) ids.hooks = hook.body.id;
  return ids;
}

function writeEndpoints(document: {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
}): WriteEndpoint[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => method === "post" || method === "put")
      .map(([method, op]) => ({ path, method: method.toUpperCase(), schema: op.requestBody?.content["application/json"]?.schema })),
  );
}

function concretePath(path: string, ids: RealIds, real: boolean): string {
  const resource = path.split("/")[1] as keyof RealIds;
  return path.replace(/\{[^}]+\}/g, () => (real && ids[resource]) || "zz_00000000000000000000000000");
}

export async function fuzzWriteEndpoints(system: FuzzSystem, options: FuzzOptions): Promise<EndpointReport[]> {
  const document = (await request(`${system.baseUrl}/openapi.json`)).body;
  const ids = await createRealResources(system);
  const nearValid = nearValidWrites(ids);
  const fingerprint = await openDbFingerprint(system.databaseUrl);
  const reports: EndpointReport[] = [];
  try {
    let baseline = await fingerprint.settled();
    for (const endpoint of writeEndpoints(document)) {
      const name = `${endpoint.method} ${endpoint.path}`;
      if (options.only && !name.includes(options.only)) continue;
      const model = nearValid.find(
        (w) => w.method === endpoint.method && w.path.replace(/\/[a-z]+_[^/]+$/, "/{id}") === endpoint.path.replace(/\{[^}]+\}/, "{id}"),
      );
      const kinds: fc.Arbitrary<{ raw: string; kind: string }>[] = [
        randomBodies(endpoint.schema).map((b) => ({ ...b, kind: "random" })),
        hostileBodies(endpoint.schema).map((b) => ({ ...b, kind: "hostile" })),
      ];
      if (model) kinds.push(model.body.map((body) => ({ raw: JSON.stringify(body), kind: "near-valid" })));
      const bodies = fc.tuple(fc.oneof(...kinds), fc.boolean());
      const report: EndpointReport = { endpoint: name, runs: 0, successes: 0, refusals: 0, statuses: {}, failures: [] };
      const fail = (text: string) => {
        if (report.failures.length < MAX_FAILURES_KEPT) report.failures.push(text);
        else report.failures[MAX_FAILURES_KEPT - 1] = `… and more (last: ${text})`;
      };
      for (let done = 0; done < options.count; done += SAMPLE_CHUNK) {
        const chunk = fc.sample(bodies, { numRuns: Math.min(SAMPLE_CHUNK, options.count - done), seed: (options.seed ?? 1) + reports.length * 7919 + done });
        for (const [{ raw, kind }, real] of chunk) {
          const path = concretePath(endpoint.path, ids, real);
          const answer = await request(`${system.baseUrl}${path}`, {
            method: endpoint.method,
            token: system.token,
            body: raw,
            headers: { "content-type": "application/json" },
          });
          report.runs += 1;
          report.statuses[answer.status] = (report.statuses[answer.status] ?? 0) + 1;
          const shown = `${endpoint.method} ${path} (${kind}, ${raw.length} bytes) ${raw.slice(0, 300)} → ${answer.status} ${String(JSON.stringify(answer.body ?? null)).slice(0, 300)}`;
          if (answer.status >= 500) fail(`5xx: ${shown}`);
          if (answer.status >= 400) {
            report.refusals += 1;
            if (!answer.headers.get("content-type")?.includes("application/problem+json") || typeof answer.body?.code !== "string")
              fail(`refusal without problem+json code: ${shown}`);
            const after = await fingerprint.take();
            const changed = changedTables(baseline, after);
            if (changed.length > 0) {
              fail(`refusal changed ${changed.join(", ")}: ${shown}`);
              baseline = await fingerprint.settled();
            }
          } else {
            report.successes += 1;
            baseline = ASYNC_EFFECTS.test(endpoint.path) ? await fingerprint.settled() : await fingerprint.take();
          }
        }
        options.onProgress?.(name, Math.min(done + SAMPLE_CHUNK, options.count), options.count);
      }
      reports.push(report);
    }
  } finally {
    await fingerprint.close();
  }
  return reports;
}
