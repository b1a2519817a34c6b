// Exit statuses and how each failure is told: 0 success, 1 the API refused, could not be reached
// or there is no credential, 2 the command line was wrong. Only main.ts turns errors into an exit
// status; with --json a failure is one JSON object on stderr instead of text.
import { WaybillApiError, WaybillConnectionError } from "@waybill/sdk";

export const EXIT_OK = 0;
export const EXIT_REFUSED = 1;
export const EXIT_USAGE = 2;

/** The command was used wrongly (missing option, bad file, bad value …). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** No credential to call the API with: a state of the machine, not a mistake on the command line. */
export class NotLoggedInError extends Error {
  readonly hint = "run `waybill login`, or pass --token / set WAYBILL_TOKEN";
  constructor(message = "not logged in") {
    super(message);
    this.name = "NotLoggedInError";
  }
}

/** A failure with a hint of the command's own (login's 401 is a wrong password, not a stale login). */
export function withHint<E extends Error>(error: E, hint: string): E {
  return Object.assign(error, { hint });
}

const hintOf = (error: unknown): string | undefined =>
  error && typeof error === "object" && typeof (error as { hint?: unknown }).hint === "string" ? (error as { hint: string }).hint : undefined;

export function exitCodeFor(error: unknown): number {
  return error instanceof UsageError ? EXIT_USAGE : EXIT_REFUSED;
}

export interface ErrorReport {
  code: string;
  message: string;
  status?: number;
  errors?: { path: string; message: string }[];
  hint?: string;
  requestId?: string;
  retryAfterSeconds?: number;
}

/** What went wrong, as data: the --json form, and the source of the text form. */
export function reportOf(error: unknown): ErrorReport {
  const hint = hintOf(error);
  if (error instanceof WaybillApiError) {
    return {
      code: error.code,
      status: error.status,
      message: error.detail || error.title,
      ...(error.errors.length ? { errors: error.errors.map((e) => ({ path: e.path, message: e.message })) } : {}),
      ...(hint ? { hint } : error.status === 401 ? { hint: "log in again with `waybill login`, or pass --token / WAYBILL_TOKEN" } : {}),
      ...(error.requestId ? { requestId: error.requestId } : {}),
      ...(error.retryAfterSeconds ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    };
  }
  if (error instanceof WaybillConnectionError) return { code: error.code, message: error.message, hint: hint ?? "check --url / WAYBILL_URL" };
  if (error instanceof UsageError) return { code: "usage", message: error.message, ...(hint ? { hint } : {}) };
  if (error instanceof NotLoggedInError) return { code: "not_logged_in", message: error.message, hint: error.hint };
  return { code: "failed", message: error instanceof Error ? error.message : String(error), ...(hint ? { hint } : {}) };
}

/** The lines printed on stderr for a failure: the problem's code first, then what to do. */
export function describeError(error: unknown): string[] {
  const report = reportOf(error);
  const lines =
    report.status !== undefined
      ? [`error: ${report.code} (HTTP ${report.status}): ${report.message}`]
      : [`error: ${report.code === "usage" || report.code === "failed" || report.code === "not_logged_in" ? "" : `${report.code}: `}${report.message}`];
  for (const field of report.errors ?? []) lines.push(`  ${field.path || "(body)"}: ${field.message}`);
  if (report.hint) lines.push(`hint: ${report.hint}`);
  if (report.retryAfterSeconds) lines.push(`hint: retry in ${report.retryAfterSeconds} s`);
  if (report.requestId) lines.push(`request id: ${report.requestId}`);
  return lines;
}
