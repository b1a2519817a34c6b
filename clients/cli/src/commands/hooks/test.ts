// waybill hooks test: a signed webhook.test delivered now, with the receiver's answer.
import type { Command } from "commander";
import { data } from "@waybill/sdk";
import { action } from "../../context.js";
import { examples } from "../../help.js";
import { outcome } from "./format.js";

export function registerHookTest(hooks: Command): void {
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
}
