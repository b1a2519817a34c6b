// waybill hooks retry | recover: deliver again one execution's event, or every missed one in a window.
import type { Command } from "commander";
import { data } from "@waybill/sdk";
import { action } from "../../context.js";
import { examples } from "../../help.js";
import { isoTime } from "../../options.js";

export function registerHookRedelivery(hooks: Command): void {
  examples(
    hooks
      .command("retry")
      .description("Deliver an execution's event again now (a manual attempt)")
      .argument("<id>", "hook id")
      .argument("<execution>", "execution id (exe_…)")
      .action(
        action(async (context, id: string, executionId: string) => {
          const answer = await context.wait(
            "Queueing the retry",
            data(context.api().POST("/hooks/{id}/executions/{executionId}/retry", { params: { path: { id, executionId } } })),
          );
          // The API answers { hookId, executionId, eventId, queued }; an older one answered 202 without JSON.
          const queued = { hookId: id, executionId, queued: true, ...(answer && typeof answer === "object" ? answer : {}) } as Record<string, unknown>;
          const event = typeof queued.eventId === "string" ? ` (event ${queued.eventId})` : "";
          context.print.result(
            `${context.print.c.green("✓")} Retry of ${executionId}${event} queued; watch it with \`waybill hooks executions ${id} --follow\`.`,
            queued,
          );
        }),
      ),
    "waybill hooks retry hook_01j… exe_01j…",
  );

  examples(
    hooks
      .command("recover")
      .description("After an outage at the receiver: redeliver every event of the hook's kind since a time that never reached it")
      .argument("<id>", "hook id")
      .requiredOption("--since <time>", "start of the window, ISO 8601 (e.g. 2026-11-23T08:00:00Z)", isoTime)
      .option("--until <time>", "end of the window, ISO 8601 (default: now)", isoTime)
      .action(
        action(async (context, id: string, options: { since: string; until?: string }) => {
          const body = { since: options.since, ...(options.until ? { until: options.until } : {}) };
          const recovered = await context.wait("Queueing the recovery", data(context.api().POST("/hooks/{id}/recover", { params: { path: { id } }, body })));
          const more = recovered.truncated ? " More remain in the window: run it again from the last one delivered." : "";
          context.print.result(
            `${context.print.c.green("✓")} ${recovered.queued} events queued for redelivery; watch them with \`waybill hooks executions ${id} --follow\`.${more}`,
            { hookId: id, ...recovered },
          );
        }),
      ),
    "waybill hooks recover hook_01j… --since 2026-11-23T08:00:00Z",
    "waybill hooks recover hook_01j… --since 2026-11-23T08:00:00Z --until 2026-11-23T12:00:00Z --json",
  );
}
