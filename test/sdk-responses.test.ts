// The SDK reads every success the API (or an older one) can answer without a JSON parse error:
// a 202 in text/plain ("Accepted", the retry answer before CONTRACTS.md §2), the 202 JSON answer,
// a 204, an empty JSON body with and without Content-Length; refusals still throw their problem.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWaybillClient, data, WaybillApiError } from "../clients/sdk/src/index.js";

type Answer = { status: number; type?: string; body?: string; chunked?: boolean };
let answer: Answer;
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    request.resume();
    const headers: Record<string, string> = answer.type ? { "content-type": answer.type } : {};
    if (!answer.chunked && answer.status !== 204) headers["content-length"] = String(Buffer.byteLength(answer.body ?? ""));
    response.writeHead(answer.status, headers);
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const retry = () =>
  data(
    createWaybillClient({ baseUrl, token: "api-x" }).POST("/hooks/{id}/executions/{executionId}/retry", {
      params: { path: { id: "hook_1", executionId: "exe_1" } },
    }),
  );

describe("SDK success bodies", () => {
  it("gives no data for a non-JSON 2xx instead of throwing a parse error", async () => {
    answer = { status: 202, type: "text/plain; charset=utf-8", body: "Accepted" };
    await expect(retry()).resolves.toBeUndefined();
    answer = { status: 202, type: "text/html", body: "<p>Accepted</p>", chunked: true };
    await expect(retry()).resolves.toBeUndefined();
    answer = { status: 200, body: "ok" };
    await expect(retry()).resolves.toBeUndefined();
  });

  it("parses the JSON answer, and gives no data for a 204 or an empty JSON body", async () => {
    const queued = { hookId: "hook_1", executionId: "exe_1", eventId: "evt_1", queued: true };
    answer = { status: 202, type: "application/json", body: JSON.stringify(queued) };
    await expect(retry()).resolves.toEqual(queued);
    answer = { status: 202, type: "application/problem+json; charset=utf-8", body: JSON.stringify(queued), chunked: true };
    await expect(retry()).resolves.toEqual(queued);
    answer = { status: 204 };
    await expect(retry()).resolves.toBeUndefined();
    answer = { status: 202, type: "application/json", body: "" };
    await expect(retry()).resolves.toBeUndefined();
    answer = { status: 202, type: "application/json", body: "", chunked: true };
    await expect(retry()).resolves.toBeUndefined();
  });

  it("still throws a refusal as its problem, JSON or not", async () => {
    answer = { status: 409, type: "application/problem+json", body: JSON.stringify({ status: 409, code: "hook_paused", title: "Conflict", detail: "paused" }) };
    await expect(retry()).rejects.toMatchObject({ status: 409, code: "hook_paused" });
    answer = { status: 502, type: "text/plain", body: "Bad Gateway" };
    const error = await retry().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaybillApiError);
    expect(error).toMatchObject({ status: 502, code: "http_502", detail: "Bad Gateway" });
  });
});
