// The SDK is what the CLI and the console use: its generated types must match the document the
// edge serves, and refusals must come back as typed errors carrying the problem.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWaybillClient, data, WaybillApiError, WaybillConnectionError } from "@waybill/sdk";
import { generateSdk } from "../scripts/gen-sdk.js";
import { startStack, type Stack } from "./support/stack.js";

const sdkDir = path.resolve(import.meta.dirname, "../clients/sdk");

describe("generated SDK", () => {
  it("is up to date with the served OpenAPI document (run `npm run gen:sdk` when this fails)", async () => {
    const out = await mkdtemp(path.join(os.tmpdir(), "waybill-sdk-"));
    try {
      await generateSdk(out);
      for (const file of ["openapi.json", "src/schema.ts"]) {
        const [fresh, committed] = await Promise.all([readFile(path.join(out, file), "utf8"), readFile(path.join(sdkDir, file), "utf8")]);
        expect(committed, `clients/sdk/${file} is stale`).toBe(fresh);
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});

describe("SDK against the real system", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("sends the credential and returns typed data", async () => {
    const api = createWaybillClient({ baseUrl: stack.baseUrl, token: stack.token });
    const customer = await data(api.POST("/customers", { body: { name: "Ada Lovelace", email: "ada@example.com" } }));
    expect(customer.id).toMatch(/^cus_/);
    const again = await data(api.GET("/customers/{id}", { params: { path: { id: customer.id } } }));
    expect(again.name).toBe("Ada Lovelace");
  });

  it("throws a WaybillApiError with the problem's status, code, detail and errors", async () => {
    const api = createWaybillClient({ baseUrl: stack.baseUrl, token: stack.token });
    const missing = await api.GET("/orders/{id}", { params: { path: { id: "ord_01J0000000000000000000000" } } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(WaybillApiError);
    expect(missing).toMatchObject({ status: 404, code: "order_not_found" });
    const invalid = await api.POST("/customers", { body: { name: "" } as never }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(WaybillApiError);
    const problem = invalid as WaybillApiError;
    expect(problem.status).toBe(422);
    expect(problem.code).toBe("validation_failed");
    expect(problem.errors.map((e) => e.path)).toContain("name");
    const anonymous = createWaybillClient({ baseUrl: stack.baseUrl });
    await expect(anonymous.GET("/orders")).rejects.toMatchObject({ status: 401, code: "missing_credentials" });
  });

  it("reports an unreachable server as a WaybillConnectionError", async () => {
    const api = createWaybillClient({ baseUrl: "http://127.0.0.1:1", token: "api-x" });
    const error = await api.GET("/orders").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaybillConnectionError);
    expect((error as Error).message).toContain("could not reach http://127.0.0.1:1/v1");
  });
});
