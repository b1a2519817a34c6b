// waybill trigger <kind>: causes a real event of that kind through the API (creating whatever it
// needs), prints what it created and the events that followed. Every request of one trigger
// carries one X-Transaction-Id, so its events are found in GET /v1/events by that id.
import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { createWaybillClient, data, type EventRecord, type WaybillClient } from "@waybill/sdk";
import { action, type Context } from "../../context.js";
import { UsageError, withHint } from "../../errors.js";
import { examples } from "../../help.js";
import { positiveInt } from "../../options.js";
import { collect } from "../../pagination.js";
import { sleep } from "../../stop-signal.js";
import { VERSION } from "../../version.js";
import { createFixtures, type Fixtures, isForbidden } from "./fixtures.js";
import { NOT_TRIGGERABLE, RECIPES } from "./recipes.js";

interface TriggerOptions {
  list?: boolean;
  deviceToken?: string;
  timeout: number;
}

const ALPHANUMERIC = "0123456789abcdefghijklmnopqrstuvwxyz";
/** Ids GET /v1/events?entityId= takes: those an event's payload names an entity by. */
const ENTITY_ID = /^(ord|shp|prd|cus|hook)_[0-9a-z]{26}$/;
const newTransactionId = () => `txn_${[...randomBytes(26)].map((b) => ALPHANUMERIC[b % 36]).join("")}`;

export function registerTrigger(program: Command): void {
  examples(
    program
      .command("trigger")
      .description("Cause a real event of a kind, creating what it needs (an order for order.created …); prints what it created and the event ids")
      .argument("[kind]", "the event kind (see --list)")
      .option("--list", "list the kinds it can cause, what each does, and why the others cannot be")
      .option("--device-token <token>", "for device.reading: the sensor (or machine/api) token the reading is sent with")
      .option("--timeout <seconds>", "how long to wait for the events to be recorded", positiveInt, 15)
      .action(
        action(async (context, kind: string | undefined, options: TriggerOptions) => {
          if (options.list) return printKinds(context);
          if (!kind) throw new UsageError("give an event kind, e.g. `waybill trigger order.created` (`waybill trigger --list` shows them)");
          if (Object.hasOwn(NOT_TRIGGERABLE, kind)) throw new UsageError(`${kind} cannot be triggered through the API: it comes from ${NOT_TRIGGERABLE[kind]}`);
          if (!Object.hasOwn(RECIPES, kind)) throw new UsageError(`unknown event kind "${kind}"; \`waybill trigger --list\` shows the kinds`);
          await trigger(context, kind, options);
        }),
      ),
    "waybill trigger --list",
    "waybill trigger order.created",
    "waybill trigger inventory.low --json",
    "waybill trigger device.reading --device-token sensor-…",
  );
}

function printKinds(context: Context): void {
  const rows = [
    ...Object.entries(RECIPES).map(([kind, recipe]) => ({ kind, triggerable: true, how: recipe.does, needs: recipe.needs })),
    ...Object.entries(NOT_TRIGGERABLE).map(([kind, why]) => ({ kind, triggerable: false, how: `not through the API: ${why}`, needs: null })),
  ];
  context.print.list(rows, [
    { header: "kind", value: (r) => r.kind },
    { header: "what trigger does", value: (r) => r.how, max: 110 },
  ]);
}

async function trigger(context: Context, kind: string, options: TriggerOptions): Promise<void> {
  const recipe = RECIPES[kind];
  const transactionId = newTransactionId();
  const headers = { "x-transaction-id": transactionId };
  const api = context.api(headers);
  const deviceApi = options.deviceToken
    ? createWaybillClient({ baseUrl: context.url, token: options.deviceToken, headers: { "user-agent": `waybill-cli/${VERSION}`, ...headers } })
    : undefined;
  const fixtures = createFixtures(api, transactionId.slice(4, 12).toUpperCase());
  // A minute back: the server's clock may differ from this machine's; the transaction id decides.
  const since = new Date(Date.now() - 60_000).toISOString();
  const { print } = context;
  if (!print.json) print.note(print.c.dim(`Triggering ${kind}: ${recipe.does} (transaction ${transactionId})`));
  try {
    await context.wait(`Triggering ${kind}`, recipe.run(fixtures, { deviceApi }));
  } catch (error) {
    if (isForbidden(error) && !(error as { hint?: string }).hint) {
      const credential = kind === "device.reading" && deviceApi ? "--device-token" : "the credential in use";
      throw withHint(error, `trigger ${kind} needs a token that ${recipe.needs}; ${credential} may not`);
    }
    throw error;
  }
  const events = await context.wait("Waiting for the events", eventsOf(api, fixtures, transactionId, kind, since, options.timeout * 1000));
  const target = events.find((e) => e.kind === kind);
  const value = { kind, transactionId, created: fixtures.created, events: events.map((e) => ({ id: e.id, kind: e.kind })), eventId: target?.id ?? null };
  if (!print.json) {
    const width = Math.max(...fixtures.created.map((c) => c.what.length), 8);
    print.result(["Created:", ...fixtures.created.map((c) => `  ${c.what.padEnd(width)}  ${c.id}`)].join("\n"));
    print.result(["Events:", ...events.map((e) => `  ${e.id}  ${e.kind}`)].join("\n"));
  }
  if (!target) throw new Error(`no ${kind} event was recorded within ${options.timeout} s (transaction ${transactionId})`);
  print.result(`${print.c.green("✓")} ${kind}: ${target.id}`, value);
}

/**
 * The events of the trigger: those of its transaction, or naming what it created (an event
 * applied later, such as a device reading, may carry a transaction of its own). Waits until
 * one of `kind` is recorded, then briefly for the rest of the chain.
 */
async function eventsOf(api: WaybillClient, fixtures: Fixtures, transactionId: string, kind: string, since: string, timeoutMs: number): Promise<EventRecord[]> {
  const entities = fixtures.created.filter((c) => !c.shared && ENTITY_ID.test(c.id)).map((c) => c.id);
  const devices = [...new Set(fixtures.created.filter((c) => c.what === "device reading").map((c) => c.id))];
  // A device reading names the trigger's tag in its payload.
  const tagged = (e: EventRecord) => (e.reading as { trigger?: unknown } | undefined)?.trigger === fixtures.tag;
  const deadline = Date.now() + timeoutMs;
  let settleUntil: number | undefined;
  for (;;) {
    const lists = await Promise.all([
      eventsWhere(api, { transactionId }),
      ...entities.map((entityId) => eventsWhere(api, { entityId })),
      ...devices.map(async (deviceId) => (await eventsWhere(api, { deviceId, after: since })).filter(tagged)),
    ]);
    const found = [...new Map(lists.flat().map((e) => [e.id, e])).values()].sort((a, b) => (a.id < b.id ? -1 : 1));
    if (settleUntil === undefined && found.some((e) => e.kind === kind)) settleUntil = Date.now() + 500;
    if ((settleUntil !== undefined && Date.now() >= settleUntil) || Date.now() >= deadline) return found;
    await sleep(250);
  }
}

/** The events of one server-side filter (a few pages at most: one trigger causes a handful). */
async function eventsWhere(
  api: WaybillClient,
  filter: { transactionId?: string; entityId?: string; deviceId?: string; after?: string },
): Promise<EventRecord[]> {
  return collect(1_000, (query) => data(api.GET("/events", { params: { query: { ...query, ...filter } } })));
}
