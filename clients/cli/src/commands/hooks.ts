// waybill hooks …: register webhooks, test them, watch their executions, rotate their secrets.
import { type Command, Option } from "commander";
import { data, type Execution, type Hook } from "@waybill/sdk";
import { action, type Context } from "../context.js";
import { UsageError } from "../errors.js";
import { examples } from "../help.js";
import { defined } from "../input.js";
import { httpUrl, positiveInt } from "../options.js";
import { cell } from "../output/printer.js";
import type { Column } from "../output/table.js";
import { collect, DEFAULT_LIST_LIMIT } from "../pagination.js";
import { confirmed } from "./confirm.js";

const hookColumns: Column<Hook>[] = [
  { header: "id", value: (h) => h.id },
  { header: "name", value: (h) => h.name, max: 30 },
  { header: "on", value: (h) => h.on },
  { header: "status", value: (h) => h.status },
  { header: "url", value: (h) => h.url, max: 50 },
  { header: "ok", value: (h) => String(h.successCount) },
  { header: "failed", value: (h) => String(h.errorCount) },
  { header: "last run", value: (h) => cell(h.lastRunAt) },
];

type Ordering = "none" | "perEntity";

/** --ordering: per-entity ordered delivery, or none. */
function orderingOption(): Option {
  return new Option(
    "--ordering <ordering>",
    "perEntity: events about one order, shipment or product arrive one at a time, in order (a failing one holds back the later ones about the same entity); none: in parallel",
  ).choices(["none", "perEntity"]);
}

function hookFields(context: Context, hook: Hook): [string, string][] {
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

function outcome(context: Context, execution: Execution): string {
  const text = execution.statusCode !== null ? String(execution.statusCode) : (execution.error ?? "failed");
  return execution.outcome === "succeeded" ? context.print.c.green(text) : context.print.c.red(text);
}

const executionColumns = (context: Context): Column<Execution>[] => [
  { header: "id", value: (e) => e.id },
  { header: "requested", value: (e) => e.requestedAt },
  { header: "event", value: (e) => e.eventKind },
  { header: "trigger", value: (e) => e.trigger },
  { header: "attempt", value: (e) => String(e.attempt) },
  { header: "status", value: (e) => outcome(context, e) },
  { header: "duration", value: (e) => `${e.durationMs} ms` },
  { header: "response", value: (e) => cell(e.responseBody ?? e.error), max: 40 },
];

function printSecret(context: Context, secret: string, value: unknown): void {
  if (context.print.json) {
    context.print.result("", value);
    return;
  }
  context.print.result(`\n${context.print.c.bold("Signing secret:")} ${secret}`);
  context.print.note(context.print.c.yellow("⚠ This secret is shown only now and will not be shown again: store it where your receiver can read it."));
}

export function registerHooks(program: Command): void {
  const hooks = examples(
    program.command("hooks").description("Webhooks: register, test, pause, rotate, watch executions"),
    "waybill hooks create --name shop --url https://shop.example.com/hooks --on order.created",
    "waybill hooks list",
  );

  examples(
    hooks
      .command("create")
      .description("Register a webhook; prints its signing secret once")
      .requiredOption("--name <name>", "a name for people")
      .requiredOption("--url <url>", "where the signed deliveries are POSTed (the server: `waybill --url … hooks create` or WAYBILL_URL)", httpUrl)
      .requiredOption("--on <kind>", "the event kind it receives (see `waybill event-kinds`)")
      .addOption(orderingOption())
      .action(
        action(async (context, options: { name: string; url: string; on: string; ordering?: Ordering }) => {
          const body = { name: options.name, url: options.url, on: options.on as never, ...(options.ordering ? { ordering: options.ordering } : {}) };
          const created = await context.wait("Creating the hook", data(context.api().POST("/hooks", { body })));
          if (!context.print.json) context.print.item(created, hookFields(context, created));
          printSecret(context, created.secret, created);
        }),
      ),
    "waybill hooks create --name shop --url https://shop.example.com/hooks --on order.created",
    "waybill hooks create --name erp --url https://erp.example.com/hooks --on order.status.changed --ordering perEntity",
  );

  examples(
    hooks
      .command("list")
      .description("List hooks, newest first")
      .option("--limit <n>", "at most this many", positiveInt, DEFAULT_LIST_LIMIT)
      .action(
        action(async (context, options: { limit: number }) => {
          const api = context.api();
          const items = await context.wait(
            "Loading hooks",
            collect(options.limit, (query) => data(api.GET("/hooks", { params: { query } }))),
          );
          context.print.list(items, hookColumns, "No hooks yet: create one with `waybill hooks create`.");
        }),
      ),
    "waybill hooks list",
    "waybill hooks list --json | jq '.[].id'",
  );

  examples(
    hooks
      .command("get")
      .description("Show one hook")
      .argument("<id>", "hook id (hook_…)")
      .action(
        action(async (context, id: string) => {
          const hook = await context.wait("Loading the hook", data(context.api().GET("/hooks/{id}", { params: { path: { id } } })));
          context.print.item(hook, hookFields(context, hook));
        }),
      ),
    "waybill hooks get hook_01j…",
  );

  examples(
    hooks
      .command("update")
      .description("Change a hook's name, URL, event kind or ordering")
      .argument("<id>", "hook id")
      .option("--name <name>", "new name")
      .option("--url <url>", "new URL", httpUrl)
      .option("--on <kind>", "new event kind")
      .addOption(orderingOption())
      .action(
        action(async (context, id: string, options: { name?: string; url?: string; on?: string; ordering?: Ordering }) => {
          const body = defined(options);
          if (Object.keys(body).length === 0) throw new UsageError("nothing to change: give --name, --url, --on or --ordering");
          const hook = await context.wait("Updating the hook", data(context.api().PUT("/hooks/{id}", { params: { path: { id } }, body: body as never })));
          context.print.item(hook, hookFields(context, hook));
        }),
      ),
    "waybill hooks update hook_01j… --url https://shop.example.com/v2/hooks",
  );

  for (const [verb, status, text] of [
    ["pause", "paused", "Pause a hook: it receives nothing, and events meanwhile are not queued for it"],
    ["resume", "active", "Resume a paused hook"],
  ] as const) {
    examples(
      hooks
        .command(verb)
        .description(text)
        .argument("<id>", "hook id")
        .action(
          action(async (context, id: string) => {
            const hook = await context.wait(
              `${verb === "pause" ? "Pausing" : "Resuming"} the hook`,
              data(context.api().PUT("/hooks/{id}", { params: { path: { id } }, body: { status } })),
            );
            context.print.result(`${context.print.c.green("✓")} Hook ${hook.id} is ${hook.status}.`, hook);
          }),
        ),
      `waybill hooks ${verb} hook_01j…`,
    );
  }

  examples(
    hooks
      .command("rotate")
      .description("Replace a hook's signing secret; the old one signs nothing from now on")
      .argument("<id>", "hook id")
      .action(
        action(async (context, id: string) => {
          const rotated = await context.wait("Rotating the secret", data(context.api().POST("/hooks/{id}/rotate", { params: { path: { id } } })));
          if (!context.print.json) context.print.result(`${context.print.c.green("✓")} Secret of ${id} rotated at ${rotated.secretLastRotatedAt}.`);
          printSecret(context, rotated.secret, rotated);
        }),
      ),
    "waybill hooks rotate hook_01j…",
  );

  examples(
    hooks
      .command("test")
      .description("Send a signed webhook.test event now and show the receiver's answer")
      .argument("<id>", "hook id")
      .action(
        action(async (context, id: string) => {
          const execution = await context.wait("Delivering a test event", data(context.api().POST("/hooks/{id}/test", { params: { path: { id } } })));
          const ok = execution.outcome === "succeeded";
          context.print.result(
            `${ok ? context.print.c.green("✓") : context.print.c.red("✗")} ${execution.url} ${execution.statusCode !== null ? "answered" : "failed:"} ${outcome(context, execution)} in ${execution.durationMs} ms` +
              (execution.responseBody ? `\n${context.print.c.dim(execution.responseBody.slice(0, 200))}` : ""),
            execution,
          );
        }),
      ),
    "waybill hooks test hook_01j…",
  );

  examples(
    hooks
      .command("executions")
      .description("List a hook's delivery attempts, newest first (status code, duration, attempt, response)")
      .argument("<id>", "hook id")
      .option("--limit <n>", "at most this many", positiveInt, DEFAULT_LIST_LIMIT)
      .action(
        action(async (context, id: string, options: { limit: number }) => {
          const api = context.api();
          const items = await context.wait(
            "Loading executions",
            collect(options.limit, (query) => data(api.GET("/hooks/{id}/executions", { params: { path: { id }, query } }))),
          );
          context.print.list(items, executionColumns(context), "No executions yet.");
        }),
      ),
    "waybill hooks executions hook_01j…",
    "waybill hooks executions hook_01j… --json --limit 500",
  );

  examples(
    hooks
      .command("retry")
      .description("Deliver an execution's event again now")
      .argument("<id>", "hook id")
      .argument("<execution>", "execution id (exe_…)")
      .action(
        action(async (context, id: string, executionId: string) => {
          await context.wait("Queueing the retry", context.api().POST("/hooks/{id}/executions/{executionId}/retry", { params: { path: { id, executionId } } }));
          context.print.result(`${context.print.c.green("✓")} Retry of ${executionId} queued; watch it with \`waybill hooks executions ${id}\`.`, {
            hookId: id,
            executionId,
            queued: true,
          });
        }),
      ),
    "waybill hooks retry hook_01j… exe_01j…",
  );

  examples(
    hooks
      .command("recover")
      .description("After an outage at the receiver: redeliver every event of the hook's kind since a time that never reached it")
      .argument("<id>", "hook id")
      .requiredOption("--since <time>", "start of the window, ISO 8601 (e.g. 2026-11-23T08:00:00Z)")
      .option("--until <time>", "end of the window, ISO 8601 (default: now)")
      .action(
        action(async (context, id: string, options: { since: string; until?: string }) => {
          const { data } = await context.wait(
            "Queueing the recovery",
            context
              .api()
              .POST("/hooks/{id}/recover", { params: { path: { id } }, body: { since: options.since, ...(options.until ? { until: options.until } : {}) } }),
          );
          const more = data!.truncated ? " More remain in the window: run it again from the last one delivered." : "";
          context.print.result(
            `${context.print.c.green("✓")} ${data!.queued} events queued for redelivery; watch them with \`waybill hooks executions ${id}\`.${more}`,
            { hookId: id, ...data },
          );
        }),
      ),
    "waybill hooks recover hook_01j… --since 2026-11-23T08:00:00Z",
    "waybill hooks recover hook_01j… --since 2026-11-23T08:00:00Z --until 2026-11-23T12:00:00Z --json",
  );

  examples(
    hooks
      .command("delete")
      .description("Delete a hook (asks first on a terminal)")
      .argument("<id>", "hook id")
      .option("-y, --yes", "do not ask")
      .action(
        action(async (context, id: string, options: { yes?: boolean }) => {
          if (!(await confirmed(context, `Delete hook ${id}? It will receive nothing more.`, options.yes))) return;
          await context.wait("Deleting the hook", context.api().DELETE("/hooks/{id}", { params: { path: { id } } }));
          context.print.result(`${context.print.c.green("✓")} Hook ${id} deleted.`, { id, deleted: true });
        }),
      ),
    "waybill hooks delete hook_01j…",
    "waybill hooks delete hook_01j… --yes",
  );
}
