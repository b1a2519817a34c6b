// waybill hooks executions: a hook's delivery attempts; --follow keeps printing new ones as they
// are recorded (polling, since executions have no stream), --status keeps only one outcome.
import { type Command, Option } from "commander";
import { data, type Execution, type WaybillClient } from "@waybill/sdk";
import { action, type Context } from "../../context.js";
import { examples } from "../../help.js";
import { positiveInt } from "../../options.js";
import { collect, DEFAULT_LIST_LIMIT } from "../../pagination.js";
import { stopOnSignals, untilStopped } from "../../stop-signal.js";
import { executionColumns, executionLine } from "./format.js";

type Outcome = "succeeded" | "failed";

interface ExecutionsOptions {
  limit: number;
  status?: Outcome;
  follow?: boolean;
  interval: number;
}

export function registerHookExecutions(hooks: Command): void {
  examples(
    hooks
      .command("executions")
      .description("List a hook's delivery attempts, newest first (status code, duration, attempt, response); --follow prints new ones as they happen")
      .argument("<id>", "hook id")
      .option("--limit <n>", "at most this many (with --follow: shown before following)", positiveInt)
      .addOption(new Option("--status <outcome>", "only attempts with this outcome").choices(["succeeded", "failed"]))
      .option("-f, --follow", "keep printing new attempts, oldest first, until Ctrl-C (NDJSON with --json)")
      .option("--interval <seconds>", "with --follow: how often to look for new attempts", positiveInt, 2)
      .action(
        action(async (context, id: string, options: ExecutionsOptions) => {
          const api = context.api();
          if (options.follow) return follow(context, api, id, options);
          const items = await context.wait("Loading executions", recent(api, id, options.limit ?? DEFAULT_LIST_LIMIT, options.status));
          context.print.list(items, executionColumns(context), options.status ? `No ${options.status} executions.` : "No executions yet.");
        }),
      ),
    "waybill hooks executions hook_01j…",
    "waybill hooks executions hook_01j… --status failed --follow",
    "waybill hooks executions hook_01j… --json --limit 500",
  );
}

/** The newest `limit` attempts (after the outcome filter, applied here: the API has none). */
async function recent(api: WaybillClient, id: string, limit: number, status: Outcome | undefined): Promise<Execution[]> {
  const page = (query: { limit: number; cursor?: string }) => data(api.GET("/hooks/{id}/executions", { params: { path: { id }, query } }));
  if (!status) return collect(limit, page);
  const kept: Execution[] = [];
  let cursor: string | undefined;
  // Read pages until enough of the wanted outcome; bounded so a hook with only the other outcome ends.
  for (let pages = 0; kept.length < limit && pages < 50; pages++) {
    const answer = await page({ limit: 100, ...(cursor ? { cursor } : {}) });
    kept.push(...answer.data.filter((e) => e.outcome === status));
    if (!answer.nextCursor || answer.data.length === 0) break;
    cursor = answer.nextCursor;
  }
  return kept.slice(0, limit);
}

async function follow(context: Context, api: WaybillClient, id: string, options: ExecutionsOptions): Promise<void> {
  const stop = stopOnSignals();
  const print = (e: Execution) => context.print.line(executionLine(context, e), e);
  const seen = new Set<string>();
  const first = await recent(api, id, options.limit ?? 10, options.status);
  for (const e of first.reverse()) {
    seen.add(e.id);
    print(e);
  }
  // Attempts already there but filtered out must not show up later as new.
  for (const e of await collect(100, (query) => data(api.GET("/hooks/{id}/executions", { params: { path: { id }, query } })))) seen.add(e.id);
  context.print.note(context.print.c.dim(`Following ${id}${options.status ? ` (${options.status} only)` : ""}; Ctrl-C to stop.`));
  await untilStopped(stop, options.interval * 1000, async () => {
    const latest = await data(api.GET("/hooks/{id}/executions", { params: { path: { id }, query: { limit: 100 } } }));
    const fresh = latest.data.filter((e) => !seen.has(e.id)).reverse();
    for (const e of fresh) {
      seen.add(e.id);
      if (!options.status || e.outcome === options.status) print(e);
    }
  });
}
