// waybill hooks …: register webhooks, test them, watch their executions, rotate their secrets.
import type { Command } from "commander";
import { examples } from "../../help.js";
import { registerHookCreate } from "./create.js";
import { registerHookDelete } from "./delete.js";
import { registerHookExecutions } from "./executions.js";
import { registerHookReads } from "./read.js";
import { registerHookRedelivery } from "./redeliver.js";
import { registerHookRotate } from "./secret.js";
import { registerHookTest } from "./test.js";
import { registerHookUpdates } from "./update.js";

export function registerHooks(program: Command): void {
  const hooks = examples(
    program.command("hooks").description("Webhooks: register, test, pause, rotate, watch executions"),
    "waybill hooks create --name shop --url https://shop.example.com/hooks --on order.created",
    "waybill hooks list",
    "waybill hooks executions hook_01j… --follow",
  );
  registerHookCreate(hooks);
  registerHookReads(hooks);
  registerHookUpdates(hooks);
  registerHookRotate(hooks);
  registerHookTest(hooks);
  registerHookExecutions(hooks);
  registerHookRedelivery(hooks);
  registerHookDelete(hooks);
}
