// waybill listen --forward-to URL: streams the tenant's events (GET /v1/events/stream) and POSTs
// each to a local receiver exactly as a delivery would look, signed with a secret printed on the
// first line. One line per forward; the stream resumes after the last event when it drops.
import type { Command } from "commander";
import { streamEvents, WaybillApiError, type StreamedEvent } from "@waybill/sdk";
import { action, type Context } from "../context.js";
import { UsageError } from "../errors.js";
import { examples } from "../help.js";
import { httpUrl, list } from "../options.js";
import { deliveryHeaders, generateSecret, isSecret, listenHookId } from "../signing.js";
import { VERSION } from "../version.js";

/** How long the local receiver may take to answer one forward. */
export const FORWARD_TIMEOUT_MS = 30_000;

interface ListenOptions {
  forwardTo: string;
  on?: string[];
  secret?: string;
  after?: string;
}

interface ForwardResult {
  status: number | null;
  statusText: string;
  durationMs: number;
  error?: string;
}

async function forward(url: string, hookId: string, secret: string, event: StreamedEvent): Promise<ForwardResult> {
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: "POST",
      body: event.raw,
      headers: { ...deliveryHeaders(hookId, secret, event.raw), "User-Agent": `waybill-cli/${VERSION} (listen)` },
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      redirect: "manual",
    });
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status, statusText: response.statusText, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    const cause = (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message;
    return { status: null, statusText: "", durationMs: Math.round(performance.now() - started), error: cause };
  }
}

function forwardLine(context: Context, event: StreamedEvent, result: ForwardResult): string {
  const { c } = context.print;
  const time = new Date().toISOString().slice(11, 19);
  const answer =
    result.status === null
      ? c.red(`error: ${result.error}`)
      : result.status >= 200 && result.status < 300
        ? c.green(`${result.status} ${result.statusText}`.trim())
        : c.red(`${result.status} ${result.statusText}`.trim());
  return `${c.dim(time)}  ${c.cyan(event.kind.padEnd(24))} ${event.id}  → ${answer}  ${c.dim(`${result.durationMs} ms`)}`;
}

export function registerListen(program: Command): void {
  examples(
    program
      .command("listen")
      .description("Forward the tenant's events as they happen to a local URL, signed like real deliveries")
      .requiredOption("--forward-to <url>", "the local receiver, e.g. http://localhost:3000/webhooks", httpUrl)
      .option("--on <kind...>", "only these event kinds (repeat or separate with commas); all when absent", list)
      .option("--secret <whsec>", "sign with this secret instead of a new one (keeps your receiver's configuration across runs)")
      .option("--after <event id>", "first replay the events after this one (evt_…), e.g. the last one a previous run forwarded")
      .action(
        action(async (context, options: ListenOptions) => {
          if (options.secret && !isSecret(options.secret)) throw new UsageError("--secret must look like whsec_…");
          if (options.after && !/^evt_[0-9a-z]{26}$/i.test(options.after)) throw new UsageError("--after must be an event id (evt_…)");
          const api = context.api(); // refuses early without a credential
          const secret = options.secret ?? generateSecret();
          const hookId = listenHookId(secret);
          const kinds = options.on ?? [];
          const { print } = context;
          const stop = new AbortController();
          const onSignal = () => stop.abort();
          // Before Ready is printed: a Ctrl-C sent the moment that line is read must find the
          // handler, or it kills the process (a test saw exit code null once in hundreds of runs).
          process.once("SIGINT", onSignal);
          process.once("SIGTERM", onSignal);
          let forwarded = 0;
          let lastEventId = options.after;
          try {
            print.line(
              `Ready. Signing secret: ${secret} (hook id ${hookId}); forwarding ${kinds.length ? kinds.join(", ") : "every event"} to ${options.forwardTo}. Ctrl-C to stop.`,
              { type: "ready", secret, hookId, forwardTo: options.forwardTo, kinds },
            );
            const events = streamEvents({
              baseUrl: api.baseUrl,
              token: context.token,
              kinds,
              lastEventId: options.after,
              signal: stop.signal,
              onStatus: (status) => {
                if (status.state === "open")
                  print.note(print.c.dim(lastEventId ? `Connected; resuming after ${lastEventId}.` : "Connected; waiting for events."));
                if (status.state === "dropped")
                  print.note(print.c.yellow(`Stream dropped${status.error ? ` (${(status.error as Error).message})` : ""}; reconnecting…`));
              },
            });
            for await (const event of events) {
              const result = await forward(options.forwardTo, hookId, secret, event);
              lastEventId = event.id;
              forwarded += 1;
              print.line(forwardLine(context, event, result), {
                type: "forwarded",
                eventId: event.id,
                kind: event.kind,
                status: result.status,
                durationMs: result.durationMs,
                ...(result.error ? { error: result.error } : {}),
              });
            }
          } catch (error) {
            if (error instanceof WaybillApiError) throw error;
            if (!stop.signal.aborted) throw error;
          } finally {
            process.off("SIGINT", onSignal);
            process.off("SIGTERM", onSignal);
          }
          print.note(`Stopped after forwarding ${forwarded} event${forwarded === 1 ? "" : "s"}${lastEventId ? `; resume with --after ${lastEventId}` : ""}.`);
        }),
      ),
    "waybill listen --forward-to http://localhost:3000/webhooks",
    "waybill listen --forward-to http://localhost:3000/webhooks --on order.created --on order.status.changed",
    "waybill listen --forward-to http://localhost:3000/webhooks --json   # NDJSON, one object per line",
  );
}
