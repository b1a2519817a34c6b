// waybill open [page] [id]: the console's URL of a page (CONTRACTS.md §3), printed, and opened in
// the browser when there is a desktop to open it on.
import { spawn } from "node:child_process";
import { Argument, type Command, InvalidArgumentError } from "commander";
import { action } from "../context.js";
import { UsageError } from "../errors.js";
import { examples } from "../help.js";

/** Page name → console path of its list and of one item (none: the page has no item view). */
const PAGES: Record<string, { list: string; item?: string }> = {
  dashboard: { list: "/" },
  orders: { list: "/orders", item: "/orders/" },
  hooks: { list: "/webhooks", item: "/webhooks/" },
  events: { list: "/events", item: "/events/" },
  devices: { list: "/devices", item: "/devices/" },
  products: { list: "/inventory", item: "/products/" },
  inventory: { list: "/inventory" },
  customers: { list: "/customers", item: "/customers/" },
  tokens: { list: "/tokens" },
  users: { list: "/users" },
  warehouse: { list: "/warehouse" },
  settings: { list: "/settings" },
};

/** --filter status=ready (repeatable): a list page's filter, named as in the API's query. */
export function filterOption(value: string, previous: [string, string][] = []): [string, string][] {
  const at = value.indexOf("=");
  if (at < 1) throw new InvalidArgumentError(`"${value}" must be NAME=VALUE, e.g. status=ready`);
  return [...previous, [value.slice(0, at), value.slice(at + 1)]];
}

export function consoleUrl(base: string, page = "dashboard", id?: string, filters: [string, string][] = []): string {
  const target = PAGES[page];
  if (!target) throw new UsageError(`unknown page "${page}"`);
  if (id && !target.item) throw new UsageError(`the ${page} page has no page per item; leave out the id`);
  if (id && filters.length) throw new UsageError("--filter goes with a list page, not with an id");
  const root = base.replace(/\/+$/, "").replace(/\/v1$/, "");
  const query = filters.length ? `?${new URLSearchParams(filters).toString()}` : "";
  return `${root}${id ? `${target.item}${encodeURIComponent(id)}` : target.list}${query}`;
}

/** The desktop's opener, or none on a machine without a display (a server, an SSH session). */
function opener(env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  if (process.platform === "darwin") return ["open"];
  if (process.platform === "win32") return ["cmd", "/c", "start", '""'];
  return env.DISPLAY || env.WAYLAND_DISPLAY ? ["xdg-open"] : undefined;
}

export function registerOpen(program: Command): void {
  examples(
    program
      .command("open")
      .description("Print the console's URL of a page (and open it in the browser on a desktop)")
      .addArgument(new Argument("[page]", "the page").choices(Object.keys(PAGES)).default("dashboard"))
      .argument("[id]", "one item of the page (ord_…, hook_…, evt_…, dev_…, prd_…, cus_…)")
      .option("--filter <name=value>", "a filter of the list, named as in the API (repeatable), e.g. status=ready", filterOption)
      .option("--no-browser", "only print the URL")
      .action(
        action(async (context, page: string, id: string | undefined, options: { browser: boolean; filter?: [string, string][] }) => {
          const url = consoleUrl(process.env.WAYBILL_CONSOLE_URL ?? context.url, page, id, options.filter);
          const command = options.browser ? opener() : undefined;
          if (command) {
            const [file, ...args] = command;
            const child = spawn(file, [...args, url], { detached: true, stdio: "ignore" });
            child.on("error", () => context.print.note(`Could not start ${file}; open the URL yourself.`));
            child.unref();
          }
          context.print.result(url, { url, opened: Boolean(command) });
        }),
      ),
    "waybill open",
    "waybill open orders ord_01j…",
    "waybill open orders --filter status=ready --filter customerId=cus_01j…",
    "waybill open events --filter kind=order.created --no-browser",
  );
}
