// The `waybill` command tree: global connection and output options, then one group per resource.
import { Command } from "commander";
import { registerAuth } from "./commands/auth.js";
import { registerCustomers } from "./commands/customers.js";
import { registerEvents } from "./commands/events.js";
import { registerHooks } from "./commands/hooks.js";
import { registerInventory } from "./commands/inventory.js";
import { registerListen } from "./commands/listen.js";
import { registerOrders } from "./commands/orders.js";
import { registerProducts } from "./commands/products.js";
import { registerShipments } from "./commands/shipments.js";
import { registerTokens } from "./commands/tokens.js";
import { examples } from "./help.js";
import { VERSION } from "./version.js";

export function buildProgram(): Command {
  const program = new Command("waybill")
    .description("The command-line client of the Waybill API: webhooks, tokens, orders, stock and live events")
    .version(VERSION, "-v, --version")
    .option("--url <url>", "the server (env WAYBILL_URL; default http://127.0.0.1:8080)")
    .option("--token <token>", "the credential (env WAYBILL_TOKEN; default the profile's)")
    .option("--profile <name>", "the stored profile to use (env WAYBILL_PROFILE; default \"default\")")
    .option("--json", "print machine-readable JSON (NDJSON for listen)")
    .option("--no-color", "no colours (also when NO_COLOR is set or output is not a terminal)")
    // Settings below are inherited by every subcommand created after them.
    .exitOverride()
    .showHelpAfterError("(add --help for usage)")
    .enablePositionalOptions(false);
  examples(
    program,
    "waybill login",
    "waybill hooks create --name shop --url https://shop.example.com/hooks --on order.created",
    "waybill hooks test hook_01j…",
    "waybill listen --forward-to http://localhost:3000/webhooks",
  );
  registerAuth(program);
  registerHooks(program);
  registerTokens(program);
  registerOrders(program);
  registerCustomers(program);
  registerProducts(program);
  registerInventory(program);
  registerShipments(program);
  registerEvents(program);
  registerListen(program);
  return program;
}
