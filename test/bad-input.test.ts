// Bad input gets the documented problem+json answer, never a 5xx.
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request, expectProblem } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";

let stack: Stack;
let ordersUrl: string;
beforeAll(async () => {
  stack = await startStack();
  ordersUrl = `${stack.baseUrl}/orders`;
  // Orders name an existing customer of their tenant.
  // ... and existing products of their tenant.
  valid.orderItems[0].productId = (
    await request(`${stack.baseUrl}/products`, {
      token: stack.token,
      json: { sku: `SKU-${Math.random().toString(36).slice(2, 10)}`, name: "Widget", price: "1.00", currency: "EUR" },
    })
  ).body.id;
  valid.customerId = (await request(`${stack.baseUrl}/customers`, { token: stack.token, json: { name: "Bad Input Customer" } })).body.id;
});
afterAll(async () => {
  await stack?.stop();
});

const valid = {
  shortId: "BAD-0",
  customerId: "cus_01jc0000000000000000000000",
  currency: "EUR",
  orderItems: [{ productId: "prd_01jc0000000000000000000001", quantity: 1, price: "1.00" }],
};

describe("request bodies", () => {
  it("answers 400 invalid_json to a body that is not JSON", async () => {
    const answer = await request(ordersUrl, { token: stack.token, body: '{"shortId": "x",', headers: { "content-type": "application/json" } });
    expectProblem(answer, 400, "invalid_json");
  });

  it("answers 422 with one entry per missing field", async () => {
    const answer = await request(ordersUrl, { token: stack.token, json: {} });
    expectProblem(answer, 422, "validation_failed");
    const paths = answer.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["shortId", "customerId", "currency", "orderItems"]));
  });

  it("answers 422 naming each mistyped field", async () => {
    const answer = await request(ordersUrl, {
      token: stack.token,
      json: { ...valid, shortId: 42, currency: "EURO", orderItems: [{ productId: "p", quantity: "two", price: "abc" }] },
    });
    expectProblem(answer, 422, "validation_failed");
    const paths = answer.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["shortId", "currency", "orderItems.0.quantity", "orderItems.0.price"]));
  });

  it("answers 422 to a price finer than the currency allows, and to an unknown currency", async () => {
    const fine = await request(ordersUrl, { token: stack.token, json: { ...valid, orderItems: [{ ...valid.orderItems[0], price: "1.005" }] } });
    expectProblem(fine, 422, "validation_failed");
    expect(fine.body.errors[0].path).toBe("orderItems.0.price");
    const unknown = await request(ordersUrl, { token: stack.token, json: { ...valid, currency: "XYZ" } });
    expectProblem(unknown, 422, "validation_failed");
  });

  it("says which date format it expects, and gives one error for a currency that is not a code", async () => {
    const answer = await request(ordersUrl, { token: stack.token, json: { ...valid, dueDate: "tomorrow", currency: "euro" } });
    expectProblem(answer, 422, "validation_failed");
    const due = answer.body.errors.filter((e: { path: string }) => e.path === "dueDate");
    expect(due).toHaveLength(1);
    expect(due[0].message).toContain("2026-12-01");
    expect(due[0].message).toContain("ISO 8601");
    const currency = answer.body.errors.filter((e: { path: string }) => e.path === "currency");
    expect(currency).toHaveLength(1);
    expect(currency[0].message).toMatch(/3-letter ISO 4217/);
  });

  it("answers 422 to JSON that is not an object, and to unknown fields", async () => {
    expectProblem(await request(ordersUrl, { token: stack.token, json: [1, 2] }), 422, "validation_failed");
    expectProblem(await request(ordersUrl, { token: stack.token, json: "text" }), 422, "validation_failed");
    expectProblem(await request(ordersUrl, { token: stack.token, json: { ...valid, status: "completed" } }), 422, "validation_failed");
  });

  it("answers 422 to a POST without a body", async () => {
    expectProblem(await request(ordersUrl, { method: "POST", token: stack.token }), 422, "validation_failed");
  });

  it("answers 413 to a 2 MiB body, declared or chunked", async () => {
    const big = JSON.stringify({ ...valid, padding: "x".repeat(2 * 1024 * 1024) });
    expectProblem(await request(ordersUrl, { token: stack.token, body: big, headers: { "content-type": "application/json" } }), 413, "payload_too_large");
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const response = await fetch(ordersUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect((await response.json()).code).toBe("payload_too_large");
  });

  it("answers 415 to a body that is not application/json", async () => {
    const answer = await request(ordersUrl, { token: stack.token, body: JSON.stringify(valid), headers: { "content-type": "text/plain" } });
    expectProblem(answer, 415, "unsupported_media_type");
    const form = await request(ordersUrl, { token: stack.token, body: "shortId=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expectProblem(form, 415, "unsupported_media_type");
  });

  it("answers 415 unsupported_content_encoding to a gzip or unknown Content-Encoding, and accepts identity", async () => {
    const body = gzipSync(JSON.stringify({ ...valid, shortId: "BAD-GZIP" }));
    const gzip = await fetch(ordersUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json", "content-encoding": "gzip" },
      body,
    });
    expect(gzip.status).toBe(415);
    expect(gzip.headers.get("accept-encoding")).toBe("identity");
    expect(await gzip.json()).toMatchObject({ status: 415, code: "unsupported_content_encoding" });
    const bogus = await request(ordersUrl, { token: stack.token, json: { ...valid, shortId: "BAD-BOGUS" }, headers: { "content-encoding": "bogus" } });
    expectProblem(bogus, 415, "unsupported_content_encoding");
    const identity = await request(ordersUrl, { token: stack.token, json: { ...valid, shortId: "BAD-IDENTITY" }, headers: { "content-encoding": "Identity" } });
    expect(identity.status).toBe(201);
  });

  it("answers 400 to a malformed query parameter", async () => {
    expectProblem(await request(`${stack.baseUrl}/products?limit=0`, { token: stack.token }), 400, "invalid_query");
    expectProblem(await request(`${stack.baseUrl}/products?limit=abc`, { token: stack.token }), 400, "invalid_query");
    expectProblem(await request(`${stack.baseUrl}/products?cursor=%%%`, { token: stack.token }), 400, "invalid_cursor");
  });
});

describe("credentials", () => {
  it("answers 401 with WWW-Authenticate when no token is sent", async () => {
    const answer = await request(ordersUrl, { json: valid });
    expectProblem(answer, 401, "missing_credentials");
    expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("answers 401 to a malformed Authorization header", async () => {
    expectProblem(await request(ordersUrl, { json: valid, headers: { authorization: "Basic dXNlcjpwYXNz" } }), 401, "invalid_authorization_header");
  });

  it("answers 401 to an unknown token and to something that is not a token", async () => {
    expectProblem(await request(ordersUrl, { json: valid, token: `api-${"A".repeat(43)}` }), 401, "invalid_token");
    expectProblem(await request(ordersUrl, { json: valid, token: "not-a-token" }), 401, "invalid_token");
  });

  it("answers 401 to expired and revoked tokens", async () => {
    const expired = await issueToken(stack.env.databaseUrl, "api", { expiresAt: new Date(Date.now() - 1000) });
    expectProblem(await request(ordersUrl, { json: valid, token: expired.token }), 401, "token_expired");
    const revoked = await issueToken(stack.env.databaseUrl, "api", { revoked: true });
    expectProblem(await request(ordersUrl, { json: valid, token: revoked.token }), 401, "token_revoked");
  });

  it("answers 403 token_type_forbidden to a sensor token, which may only publish device data", async () => {
    const sensor = await issueToken(stack.env.databaseUrl, "sensor");
    expectProblem(await request(ordersUrl, { json: { ...valid, shortId: "BAD-SENSOR" }, token: sensor.token }), 403, "token_type_forbidden");
    expectProblem(await request(`${stack.baseUrl}/products`, { token: sensor.token }), 403, "token_type_forbidden");
  });

  it("lets cli and machine tokens create orders", async () => {
    for (const type of ["cli", "machine"] as const) {
      const { token } = await issueToken(stack.env.databaseUrl, type);
      const answer = await request(ordersUrl, { json: { ...valid, shortId: `BAD-OK-${type}` }, token });
      expect(answer.status).toBe(201);
    }
  });
});

describe("routes", () => {
  it("answers 404 problem+json to an unknown path and 405 to a wrong method", async () => {
    expectProblem(await request(`${stack.baseUrl}/nowhere`, { token: stack.token }), 404, "route_not_found");
    const wrong = await request(`${stack.baseUrl}/products`, { method: "DELETE", token: stack.token });
    expectProblem(wrong, 405, "method_not_allowed");
    // RFC 9110: a 405 says which methods the resource does answer.
    expect(wrong.headers.get("allow")?.split(/,\s*/).sort()).toEqual(["GET", "HEAD", "POST"]);
  });
});
