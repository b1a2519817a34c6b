// What a hook's fields may be, shared by the dispatcher's own checks and the edge's request
// schemas, so that both refuse the same input with the same words.
import { isEventKind } from "../events/catalog.js";
import { appError } from "../errors/catalog.js";
import type { FieldError } from "@waybill/platform/errors.js";

/** The longest a receiver may be given to answer (WEBHOOK_TIMEOUT_MS is capped by it; the edge waits this long for a test delivery). */
export const MAX_WEBHOOK_TIMEOUT_MS = 60_000;
export const MAX_HOOK_NAME_LENGTH = 200;
export const MAX_HOOK_URL_LENGTH = 2048;
export const HOOK_STATUSES = ["active", "paused"] as const;
export type HookStatus = (typeof HOOK_STATUSES)[number];
/** `perEntity`: the events about one order, shipment, product… reach the hook one at a time, in order. */
export const HOOK_ORDERINGS = ["none", "perEntity"] as const;
export type HookOrdering = (typeof HOOK_ORDERINGS)[number];

/** No surrounding white space, no control characters (as the other services' names). */
export const HOOK_NAME = /^[^\s\x00-\x1f\x7f-\x9f](?:[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f])?$/;

/** Why `url` cannot be a hook's target, or undefined when it can. */
export function hookUrlProblem(url: string): string | undefined {
  if (url.length > MAX_HOOK_URL_LENGTH) return `at most ${MAX_HOOK_URL_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute http(s) URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "must be an http or https URL";
  if (!parsed.hostname) return "must name a host";
  // Credentials in the URL would be stored and shown in the clear; the signature authenticates.
  if (parsed.username || parsed.password) return "must not carry a user name or password";
  return undefined;
}

export interface HookFieldValues {
  name?: string;
  url?: string;
  on?: string;
  status?: string;
  ordering?: string;
}

/** Checks the fields present; throws one AppError listing every problem. */
export function checkHookFields(fields: HookFieldValues): void {
  const errors: FieldError[] = [];
  if (fields.name !== undefined && !(fields.name.length <= MAX_HOOK_NAME_LENGTH && HOOK_NAME.test(fields.name))) {
    errors.push({ path: "name", message: `1 to ${MAX_HOOK_NAME_LENGTH} characters, no surrounding spaces or control characters` });
  }
  if (fields.url !== undefined) {
    const problem = hookUrlProblem(fields.url);
    if (problem) errors.push({ path: "url", message: problem });
  }
  if (fields.on !== undefined && !isEventKind(fields.on)) errors.push({ path: "on", message: "not an event kind (see GET /v1/event-kinds)" });
  if (fields.status !== undefined && !(HOOK_STATUSES as readonly string[]).includes(fields.status)) {
    errors.push({ path: "status", message: `one of ${HOOK_STATUSES.join(", ")}` });
  }
  if (fields.ordering !== undefined && !(HOOK_ORDERINGS as readonly string[]).includes(fields.ordering)) {
    errors.push({ path: "ordering", message: `one of ${HOOK_ORDERINGS.join(", ")}` });
  }
  if (errors.length > 0) throw appError("validation_failed", "The hook is not valid.", { errors });
}
