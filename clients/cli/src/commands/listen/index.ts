// waybill listen: the tenant's events as they happen. Without --forward-to each is printed (one
// line, or NDJSON with --json); with it each is POSTed to a local receiver exactly as a delivery,
// signed with the profile's listen secret (--print-secret shows it for scripts).
import type { Command } from "commander";
import { listenSecret } from "../../config/listen-secret.js";
import { action, type Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { examples } from "../../help.js";
import { liveEvents } from "../../live-events.js";
import { httpUrl, list } from "../../options.js";
import { eventSummary } from "../../output/event-summary.js";
import { generateSecret, isSecret, listenHookId } from "../../signing.js";
import { stopOnSignals } from "../../stop-signal.js";
import { closeForwardConnections, forward, type ForwardResult } from "./forward.js";

interface ListenOptions {
  forwardTo?: string;
  events?: string[];
  secret?: string;
  after?: string;
  printSecret?: boolean;
}

const EVENT_ID = /^evt_[0-9a-z]{26}$/i;

function forwardLine(context: Context, kind: string, id: string, result: ForwardResult): string {
  const { c } = context.print;
  const time = new Date().toISOString().slice(11, 19);
  const text = `${result.status ?? ""} ${result.statusText}`.trim();
  const answer = result.status === null ? c.red(`error: ${result.error}`) : result.status >= 200 && result.status < 300 ? c.green(text) : c.red(text);
  return `${c.dim(time)}  ${c.cyan(kind.padEnd(24))} ${id}  → ${answer}  ${c.dim(`${result.durationMs} ms`)}`;
}

export function registerListen(program: Command): void {
  examples(
    program
      .command("listen")
      .description("Print the tenant's events as they happen, or forward them to a local URL signed like real deliveries")
      .option("--forward-to <url>", "POST each event to this local receiver, e.g. http://localhost:3000/webhooks", httpUrl)
      .option("--events <kinds>", "only these event kinds, comma-separated (see `waybill event-kinds`); all when absent", list)
      .option("--on <kinds>", "the same as --events", list)
      .option("--secret <whsec>", "sign with this secret instead of the profile's listen secret")
      .option("--after <event id>", "first replay the events after this one (evt_…), e.g. the last one a previous run handled")
      .option("--print-secret", "print the signing secret forwards are signed with, and exit (for configuring a receiver in a script)")
      .action(
        action(async (context, options: ListenOptions & { on?: string[] }) => {
          if (options.secret && !isSecret(options.secret)) throw new UsageError("--secret must look like whsec_…");
          if (options.after && !EVENT_ID.test(options.after)) throw new UsageError("--after must be an event id (evt_…)");
          const secret = options.secret ?? (await listenSecret(context.profileName, generateSecret));
          if (options.printSecret) {
            context.print.result(secret, { secret, hookId: listenHookId(secret) });
            return;
          }
          await listen(context, { ...options, events: [...(options.events ?? []), ...(options.on ?? [])] }, secret);
        }),
      ),
    "waybill listen                                   # print every event",
    "waybill listen --events order.created,order.status.changed --json   # NDJSON, one event a line",
    "waybill listen --forward-to http://localhost:3000/webhooks",
    "waybill listen --forward-to http://localhost:3000/webhooks --json   # NDJSON: ready, then one line per forward",
    "export WAYBILL_WEBHOOK_SECRET=$(waybill listen --print-secret)",
  );
}

async function listen(context: Context, options: ListenOptions, secret: string): Promise<void> {
  const { print } = context;
  const kinds = [...new Set(options.events ?? [])];
  const hookId = listenHookId(secret);
  const target = options.forwardTo;
  // Before Ready: a Ctrl-C sent the moment that line is read must find the handler.
  const stop = stopOnSignals();
  const what = kinds.length ? kinds.join(", ") : "every event";
  let handled = 0;
  let lastEventId = options.after;
  try {
    const events = liveEvents(context, {
      kinds,
      after: options.after,
      stop,
      onReady: () => {
        if (target)
          print.line(`Ready. Signing secret: ${secret} (hook id ${hookId}); forwarding ${what} to ${target}. Ctrl-C to stop.`, {
            type: "ready",
            secret,
            hookId,
            forwardTo: target,
            kinds,
          });
        // Printing: stdout holds only events (NDJSON with --json), so Ready goes to stderr.
        else print.note(`Ready; printing ${what}. Ctrl-C to stop.`);
      },
    });
    for await (const { id, kind, event, raw } of events) {
      lastEventId = id;
      handled += 1;
      if (!target) {
        print.line(eventSummary(event, print.c), event);
        continue;
      }
      const result = await forward(target, hookId, secret, raw);
      print.line(forwardLine(context, kind, id, result), {
        type: "forwarded",
        eventId: id,
        kind,
        status: result.status,
        durationMs: result.durationMs,
        ...(result.error ? { error: result.error } : {}),
      });
    }
  } finally {
    stop.release();
    closeForwardConnections();
  }
  const verb = target ? "forwarding" : "printing";
  print.note(`Stopped after ${verb} ${handled} event${handled === 1 ? "" : "s"}${lastEventId ? `; resume with --after ${lastEventId}` : ""}.`);
}
