// waybill events list | get | tail, and waybill event-kinds.
import type { Command } from "commander";
import { examples } from "../../help.js";
import { registerEventKinds } from "./kinds.js";
import { registerEventReads } from "./list.js";
import { registerEventTail } from "./tail.js";

export function registerEvents(program: Command): void {
  const events = examples(
    program.command("events").description("The tenant's event log: list, get one, tail as they happen"),
    "waybill events list --kind order.created",
    "waybill events tail",
  );
  registerEventReads(events);
  registerEventTail(events);
  registerEventKinds(program);
}
