// waybill shipments …: create for an order, list, show, change status, record delivery.
import type { Command } from "commander";
import { Option } from "commander";
import { data, type Shipment } from "@waybill/sdk";
import { action, type Context } from "../context.js";
import { UsageError } from "../errors.js";
import { examples } from "../help.js";
import { defined } from "../input.js";
import { isoTime, positiveInt } from "../options.js";
import type { Column } from "../output/table.js";
import { collect, DEFAULT_LIST_LIMIT } from "../pagination.js";

export const SHIPMENT_STATUSES = ["pending", "inTransit", "delivered", "exception"] as const;

const shipmentColumns: Column<Shipment>[] = [
  { header: "id", value: (s) => s.id },
  { header: "order", value: (s) => s.orderId },
  { header: "carrier", value: (s) => s.carrier },
  { header: "tracking", value: (s) => s.trackingNumber },
  { header: "status", value: (s) => s.status },
  { header: "created", value: (s) => s.createdAt },
];

function shipmentFields(context: Context, s: Shipment): [string, string][] {
  return [
    ["id", s.id],
    ["order", s.orderId],
    ["carrier", s.carrier],
    ["tracking", s.trackingNumber],
    ["status", context.print.c.cyan(s.status)],
    ["delivered", s.deliveredAt ? `${s.deliveredAt}${s.receivedBy ? ` (received by ${s.receivedBy})` : ""}` : "-"],
    ...((s.timeline ?? []) as Record<string, unknown>[]).map(
      (step, i) => [`step ${i + 1}`, [step.at, step.status, step.location, step.note].filter(Boolean).join("  ")] as [string, string],
    ),
    ["created", s.createdAt],
  ];
}

export function registerShipments(program: Command): void {
  const shipments = examples(
    program.command("shipments").description("Shipments: create for an order, list, show, status, deliver"),
    "waybill shipments create ord_01j… --carrier DHL --tracking-number 00340434",
  );

  examples(
    shipments
      .command("create")
      .description("Create a shipment for an order")
      .argument("<order>", "order id (ord_…)")
      .requiredOption("--carrier <name>", "carrier")
      .requiredOption("--tracking-number <number>", "the carrier's tracking number")
      .action(
        action(async (context, orderId: string, options: { carrier: string; trackingNumber: string }) => {
          const shipment = await context.wait(
            "Creating the shipment",
            data(
              context.api().POST("/orders/{id}/shipments", {
                params: { path: { id: orderId } },
                body: { carrier: options.carrier, trackingNumber: options.trackingNumber },
              }),
            ),
          );
          context.print.item(shipment, shipmentFields(context, shipment));
        }),
      ),
    "waybill shipments create ord_01j… --carrier DHL --tracking-number 00340434",
  );

  examples(
    shipments
      .command("list")
      .description("List shipments, newest first")
      .option("--order <id>", "only this order's shipments")
      .addOption(new Option("--status <status>", "only shipments in this status").choices(SHIPMENT_STATUSES))
      .option("--limit <n>", "at most this many", positiveInt, DEFAULT_LIST_LIMIT)
      .action(
        action(async (context, options: { order?: string; status?: (typeof SHIPMENT_STATUSES)[number]; limit: number }) => {
          const api = context.api();
          const filter = defined({ orderId: options.order, status: options.status });
          const items = await context.wait(
            "Loading shipments",
            collect(options.limit, (query) => data(api.GET("/shipments", { params: { query: { ...query, ...filter } } }))),
          );
          context.print.list(items, shipmentColumns, "No shipments.");
        }),
      ),
    "waybill shipments list --order ord_01j…",
  );

  examples(
    shipments
      .command("get")
      .description("Show a shipment with its timeline")
      .argument("<id>", "shipment id (shp_…)")
      .action(
        action(async (context, id: string) => {
          const shipment = await context.wait("Loading the shipment", data(context.api().GET("/shipments/{id}", { params: { path: { id } } })));
          context.print.item(shipment, shipmentFields(context, shipment));
        }),
      ),
    "waybill shipments get shp_01j…",
  );

  examples(
    shipments
      .command("status")
      .description("Change a shipment's status (pending → inTransit → delivered, exception)")
      .argument("<id>", "shipment id")
      .argument("<status>", `one of ${SHIPMENT_STATUSES.join(", ")}`)
      .option("--location <text>", "where it is")
      .option("--note <text>", "a note for the timeline")
      .action(
        action(async (context, id: string, status: string, options: { location?: string; note?: string }) => {
          if (!(SHIPMENT_STATUSES as readonly string[]).includes(status)) throw new UsageError(`status must be one of ${SHIPMENT_STATUSES.join(", ")}`);
          const body = { status: status as (typeof SHIPMENT_STATUSES)[number], ...defined({ location: options.location, note: options.note }) };
          const shipment = await context.wait("Changing the status", data(context.api().POST("/shipments/{id}/status", { params: { path: { id } }, body })));
          context.print.result(`${context.print.c.green("✓")} Shipment ${shipment.id} is ${shipment.status}.`, shipment);
        }),
      ),
    "waybill shipments status shp_01j… inTransit --location Leipzig",
  );

  examples(
    shipments
      .command("deliver")
      .description("Record a shipment's delivery")
      .argument("<id>", "shipment id")
      .option("--received-by <name>", "who took it")
      .option("--delivered-at <iso>", "when (now when absent)", isoTime)
      .option("--note <text>", "a note")
      .action(
        action(async (context, id: string, options: { receivedBy?: string; deliveredAt?: string; note?: string }) => {
          const shipment = await context.wait(
            "Recording the delivery",
            data(
              context.api().POST("/shipments/{id}/delivery", {
                params: { path: { id } },
                body: defined({ receivedBy: options.receivedBy, deliveredAt: options.deliveredAt, note: options.note }),
              }),
            ),
          );
          context.print.result(`${context.print.c.green("✓")} Shipment ${shipment.id} delivered.`, shipment);
        }),
      ),
    "waybill shipments deliver shp_01j… --received-by 'J. Doe'",
  );
}
