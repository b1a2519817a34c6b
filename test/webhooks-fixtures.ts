// Helpers the webhook tests share: receivers on 127.0.0.1 (node:http, ephemeral ports) that record
// every request with its raw body, and small API shortcuts for hooks.
import { expect } from "vitest";
import type { Call } from "./orders-fixtures.js";

export { startReceiver, type Answer, type ReceivedRequest, type TestReceiver } from "./support/receiver.js";

export interface CreatedHook {
  id: string;
  secret: string;
  [field: string]: any;
}

export async function createHook(call: Call, fields: { url: string; on: string; name?: string }): Promise<CreatedHook> {
  const answer = await call("/hooks", { json: { name: `hook ${fields.on}`, ...fields } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

export async function setHookStatus(call: Call, id: string, status: "active" | "paused") {
  const answer = await call(`/hooks/${id}`, { method: "PUT", json: { status } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

export async function executionsOf(call: Call, hookId: string): Promise<any[]> {
  const answer = await call(`/hooks/${hookId}/executions?limit=100`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.data;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A gate receivers can hold their answers at until the test opens it. */
export function createGate(): { passed: Promise<void>; open(): void } {
  let open!: () => void;
  const passed = new Promise<void>((resolve) => (open = resolve));
  return { passed, open };
}

/** Environment for stacks whose receivers run on 127.0.0.1. */
export const LOOPBACK_RECEIVERS = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" };
