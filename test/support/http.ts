// HTTP helpers for tests: the client (http-client.ts) and assertions on its answers.
import { expect } from "vitest";
import type { Answer } from "./http-client.js";

export { eventually, request, type Answer } from "./http-client.js";

export function expectProblem(answer: Answer, status: number, code: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.headers.get("content-type")).toContain("application/problem+json");
  expect(answer.body).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String), type: expect.stringContaining(code) });
}
