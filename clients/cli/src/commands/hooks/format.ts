// How hooks and their executions look on a terminal: table columns, the record, the once-shown secret.
import { Option } from "commander";
import type { Execution, Hook } from "@waybill/sdk";
import type { Context } from "../../context.js";
import { cell } from "../../output/printer.js";
import type { Column } from "../../output/table.js";

export type Ordering = "none" | "perEntity";

export const hookColumns: Column<Hook>[] = [
  { header: "id", value: (h) => h.id },
  { header: "name", value: (h) => h.name, max: 30 },
  { header: "on", value: (h) => h.on },
  { header: "status", value: (h) => h.status },
  { header: "url", value: (h) => h.url, max: 50 },
  { header: "ok", value: (h) => String(h.successCount) },
  { header: "failed", value: (h) => String(h.errorCount) },
  { header: "last run", value: (h) => cell(h.lastRunAt) },
];

/** --ordering: per-entity ordered delivery, or none. */
export function orderingOption(): Option {
  return new Option(
    "--ordering <ordering>",
    "perEntity: events about one order, shipment or product arrive one at a time, in order (a failing one holds back the later ones about the same entity); none: in parallel",
  ).choices(["none", "perEntity"]);
}

export function hookFields(context: Context, hook: Hook): [string, string][] {
  const status = hook.status === "active" ? context.print.c.green(hook.status) : context.print.c.yellow(hook.status);
  return [
    ["id", hook.id],
    ["name", hook.name],
    ["url", hook.url],
    ["on", hook.on],
    ["status", status],
    ["ordering", hook.ordering === "perEntity" ? "per entity (one at a time, in order)" : "none"],
    ["deliveries", `${hook.successCount} succeeded, ${hook.errorCount} failed`],
    ["last run", cell(hook.lastRunAt)],
    ["created", hook.createdAt],
    ["updated", hook.updatedAt],
  ];
}

export function outcome(context: Context, execution: Execution): string {
  const text = execution.statusCode !== null ? String(execution.statusCode) : (execution.error ?? "failed");
  return execution.outcome === "succeeded" ? context.print.c.green(text) : context.print.c.red(text);
}

export const executionColumns = (context: Context): Column<Execution>[] => [
  { header: "id", value: (e) => e.id },
  { header: "requested", value: (e) => e.requestedAt },
  { header: "event", value: (e) => e.eventKind },
  { header: "trigger", value: (e) => e.trigger },
  { header: "attempt", value: (e) => String(e.attempt) },
  { header: "status", value: (e) => outcome(context, e) },
  { header: "duration", value: (e) => `${e.durationMs} ms` },
  { header: "response", value: (e) => cell(e.responseBody ?? e.error), max: 40 },
];

/** One execution as a line (for --follow). */
export function executionLine(context: Context, e: Execution): string {
  const { c } = context.print;
  return `${c.dim(e.requestedAt)}  ${e.id}  ${c.cyan(e.eventKind.padEnd(24))} ${e.trigger.padEnd(7)} #${e.attempt}  → ${outcome(context, e)}  ${c.dim(`${e.durationMs} ms`)}`;
}

export function printSecret(context: Context, secret: string, value: unknown): void {
  if (context.print.json) {
    context.print.result("", value);
    return;
  }
  context.print.result(`\n${context.print.c.bold("Signing secret:")} ${secret}`);
  context.print.note(context.print.c.yellow("⚠ This secret is shown only now and will not be shown again: store it where your receiver can read it."));
}
