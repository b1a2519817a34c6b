// Hooks and their executions: request and response schemas (API.md "Webhooks").
import { z } from "zod";
import { resourceId, timestamp } from "./common.js";
import { HOOK_NAME, HOOK_ORDERINGS, HOOK_STATUSES, hookUrlProblem, MAX_HOOK_NAME_LENGTH, MAX_HOOK_URL_LENGTH } from "@waybill/contracts/limits/hooks.js";
import { EVENT_KINDS } from "@waybill/contracts/events/catalog.js";

const name = z.string().min(1).max(MAX_HOOK_NAME_LENGTH).regex(HOOK_NAME, "no surrounding spaces or control characters");
const url = z
  .string()
  .max(MAX_HOOK_URL_LENGTH)
  .superRefine((value, ctx) => {
    const problem = hookUrlProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .describe("Absolute http(s) URL the signed deliveries are POSTed to, without user name or password")
  .meta({ format: "uri", pattern: "^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@]+([/?#].*)?$" });
const on = z.enum(EVENT_KINDS as [string, ...string[]]).describe("The event kind this hook receives (GET /event-kinds)");
const status = z.enum(HOOK_STATUSES).describe("A paused hook receives nothing; events meanwhile are not queued for it");

const ordering = z
  .enum(HOOK_ORDERINGS)
  .describe(
    "perEntity: the events about one order, shipment, product, customer or device reach this hook one at a time, in the order they occurred " +
      "(a failing one holds back later events about the same entity until it succeeds or its retries run out; other entities proceed). Default none.",
  );

export const createHookBody = z.object({ name, url, on, ordering: ordering.optional() }).strict();

const instant = z.iso.datetime({ offset: true, message: "an ISO 8601 date-time such as 2026-11-23T08:00:00Z" });
export const recoverHookBody = z
  .object({ since: instant, until: instant.optional().describe("the end of the window (exclusive); now when absent") })
  .strict()
  .refine((b) => !b.until || Date.parse(b.since) < Date.parse(b.until), { message: "since must be before until", path: ["since"] });
export const recoverHookOutput = z.object({
  queued: z.number().int().describe("events queued for redelivery"),
  truncated: z.boolean().describe("more events than one call queues were in the window: recover again from the last one"),
});

/** The answer of a retry (202): which event is queued again for which hook. */
export const retryExecutionOutput = z.object({
  hookId: resourceId("hook"),
  executionId: resourceId("exe").describe("the execution retried"),
  eventId: resourceId("evt").describe("the event queued for one more delivery (trigger manual)"),
  queued: z.literal(true),
});

export const updateHookBody = z
  .object({ name: name.optional(), url: url.optional(), on: on.optional(), status: status.optional(), ordering: ordering.optional() })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "send at least one of name, url, on, status, ordering")
  .meta({ minProperties: 1 });

export const hookOutput = z.object({
  id: resourceId("hook"),
  name: z.string(),
  url: z.string(),
  on: z.string(),
  status: z.enum(HOOK_STATUSES),
  ordering: z.enum(HOOK_ORDERINGS),
  successCount: z.number().int().describe("Attempts that succeeded"),
  errorCount: z.number().int().describe("Attempts that failed"),
  lastRunAt: z.string().nullable().describe("Time of the last attempt"),
  disabledReason: z
    .string()
    .nullable()
    .describe("Why Waybill paused the hook (every delivery failed for WEBHOOK_DISABLE_AFTER); null otherwise. Resuming clears it."),
  createdAt: timestamp,
  updatedAt: timestamp,
});

const secret = {
  secret: z.string().describe('"whsec_" + base64; shown only in this answer. Signs X-Service-Signature.'),
  secretLastRotatedAt: z.string(),
};

export const createdHookOutput = hookOutput.extend(secret);

export const rotatedSecretOutput = z.object(secret);

export const executionOutput = z.object({
  id: resourceId("exe"),
  hookId: resourceId("hook"),
  eventId: resourceId("evt"),
  eventKind: z.string(),
  trigger: z.enum(["event", "retry", "test", "manual", "recover"]),
  attempt: z.number().int(),
  url: z.string(),
  requestedAt: timestamp,
  durationMs: z.number().int(),
  outcome: z.enum(["succeeded", "failed"]),
  statusCode: z.number().int().nullable(),
  responseBody: z.string().nullable().describe("The first 4 KiB of the receiver's answer"),
  responseHeaders: z
    .record(z.string(), z.string())
    .describe(
      'The answer\'s headers, names in lower case, repeated ones joined with ", "; without those about the connection (Connection, Keep-Alive, Transfer-Encoding, Upgrade)',
    ),
  error: z.string().nullable().describe('Why the attempt failed without an answer, e.g. "blocked address"'),
  nextAttemptAt: z.string().nullable().describe("When the next attempt is due; null when none will follow"),
});
