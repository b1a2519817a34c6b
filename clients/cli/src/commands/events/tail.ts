// waybill events tail: prints the tenant's events as they happen until Ctrl-C.
import type { Command } from "commander";
import { action } from "../../context.js";
import { UsageError } from "../../errors.js";
import { examples } from "../../help.js";
import { liveEvents } from "../../live-events.js";
import { list } from "../../options.js";
import { eventSummary } from "../../output/event-summary.js";
import { stopOnSignals } from "../../stop-signal.js";

export function registerEventTail(events: Command): void {
  examples(
    events
      .command("tail")
      .description("Print events as they happen, one line each (NDJSON with --json), until Ctrl-C")
      .option("--kind <kinds>", "only these kinds, comma-separated or repeated", list)
      .option("--after <event id>", "first the events after this one (evt_…)")
      .action(
        action(async (context, options: { kind?: string[]; after?: string }) => {
          if (options.after && !/^evt_[0-9a-z]{26}$/i.test(options.after)) throw new UsageError("--after must be an event id (evt_…)");
          const kinds = options.kind ?? [];
          const stop = stopOnSignals();
          try {
            const onReady = () => context.print.note(`Ready; printing ${kinds.length ? kinds.join(", ") : "every event"}. Ctrl-C to stop.`);
            for await (const { event } of liveEvents(context, { kinds, after: options.after, stop, onReady }))
              context.print.line(eventSummary(event, context.print.c), event);
          } finally {
            stop.release();
          }
        }),
      ),
    "waybill events tail",
    "waybill events tail --kind order.created,order.status.changed --json",
  );
}
