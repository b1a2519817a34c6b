// The `waybill` command tree: global connection and output options, then one group per resource.
import { Command } from "commander";
import { registerLogin } from "./commands/auth/login.js";
import { registerLogout } from "./commands/auth/logout.js";
import { registerWhoami } from "./commands/auth/whoami.js";
import { registerCompletion } from "./commands/completion.js";
import { registerCustomers } from "./commands/customers.js";
import { registerEvents } from "./commands/events/index.js";
import { registerHooks } from "./commands/hooks/index.js";
import { registerInventory } from "./commands/inventory.js";
import { registerListen } from "./commands/listen/index.js";
import { registerOpen } from "./commands/open.js";
import { registerOrders } from "./commands/orders/index.js";
import { registerProducts } from "./commands/products.js";
import { registerShipments } from "./commands/shipments.js";
import { registerTokens } from "./commands/tokens.js";
import { registerTrigger } from "./commands/trigger/index.js";
import { addGlobalOptions, addGlobalOptionsToLeaves } from "./global-options.js";
import { examples } from "./help.js";
import { VERSION } from "./version.js";

export interface ProgramOptions {
  /** --json was given: command-line mistakes are told as JSON on stderr too. */
  jsonErrors?: boolean;
}

export function buildProgram(options: ProgramOptions = {}): Command {
  const program = new Command("waybill")
    .description("The command-line client of the Waybill API: webhooks, tokens, orders, stock and live events")
    .version(VERSION, "-v, --version")
    // Settings below are inherited by every subcommand created after them.
    .exitOverride()
    .showHelpAfterError(options.jsonErrors ? false : "(add --help for usage)")
    // Options before a command are the program's; after it, the command's (see global-options.ts).
    .enablePositionalOptions();
  if (options.jsonErrors)
    program.configureOutput({
      outputError: (text, write) => write(`${JSON.stringify({ error: { code: "usage", message: text.replace(/^error: /, "").trim() } })}\n`),
    });
  addGlobalOptions(program);
  examples(
    program,
    "waybill login",
    "waybill trigger order.created",
    "waybill listen",
    "waybill hooks create --name shop --url https://shop.example.com/hooks --on order.created",
    "waybill hooks test hook_01j…",
    "waybill listen --forward-to http://localhost:3000/webhooks",
    "waybill open orders ord_01j…",
    "source <(waybill completion bash)",
  );
  registerLogin(program);
  registerLogout(program);
  registerWhoami(program);
  registerHooks(program);
  registerTokens(program);
  registerOrders(program);
  registerCustomers(program);
  registerProducts(program);
  registerInventory(program);
  registerShipments(program);
  registerEvents(program);
  registerListen(program);
  registerTrigger(program);
  registerOpen(program);
  registerCompletion(program);
  addGlobalOptionsToLeaves(program);
  return program;
}
