// Exit statuses and how each failure is told: 0 success, 1 the API refused (or could not be
// reached), 2 the command line was wrong. Only main.ts turns errors into an exit status.
import { WaybillApiError, WaybillConnectionError } from "@waybill/sdk";

export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;

/** The command was used wrongly (missing option, bad file, no credential …). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export function exitCodeFor(error: unknown): number {
  return error instanceof UsageError ? EXIT_USAGE : EXIT_REFUSED;
}

/** The lines printed on stderr for a failure: the problem's code first, then what to do. */
export function describeError(error: unknown): string[] {
  if (error instanceof WaybillApiError) {
    const lines = [`error: ${error.code} (HTTP ${error.status}): ${error.detail || error.title}`];
    for (const field of error.errors) lines.push(`  ${field.path || "(body)"}: ${field.message}`);
    if (error.status === 401) lines.push("hint: log in with `waybill login`, or pass --token / WAYBILL_TOKEN");
    if (error.retryAfterSeconds) lines.push(`hint: retry in ${error.retryAfterSeconds} s`);
    if (error.requestId) lines.push(`request id: ${error.requestId}`);
    return lines;
  }
  if (error instanceof WaybillConnectionError) return [`error: ${error.code}: ${error.message}`, "hint: check --url / WAYBILL_URL"];
  if (error instanceof UsageError) return [`error: ${error.message}`];
  return [`error: ${error instanceof Error ? error.message : String(error)}`];
}
