// waybill tokens …: API tokens (the value is shown once, at creation).
import type { Command } from "commander";
import { Option } from "commander";
import { data, type ApiToken } from "@waybill/sdk";
import { action } from "../context.js";
import { examples } from "../help.js";
import { isoTime, positiveInt } from "../options.js";
import { cell } from "../output/printer.js";
import type { Column } from "../output/table.js";
import { collect, DEFAULT_LIST_LIMIT } from "../pagination.js";
import { confirmed } from "./confirm.js";

export const TOKEN_TYPES = ["api", "cli", "machine", "sensor"] as const;

const tokenColumns: Column<ApiToken>[] = [
  { header: "id", value: (t) => t.id },
  { header: "name", value: (t) => t.name, max: 30 },
  { header: "type", value: (t) => t.type },
  { header: "created", value: (t) => t.createdAt },
  { header: "expires", value: (t) => cell(t.expiresAt) },
  { header: "last used", value: (t) => cell(t.lastUsedAt) },
  { header: "revoked", value: (t) => cell(t.revokedAt) },
];

export function registerTokens(program: Command): void {
  const tokens = examples(
    program.command("tokens").description("API tokens: create, list, revoke"),
    "waybill tokens create --name ci --type cli",
    "waybill tokens list",
  );

  examples(
    tokens
      .command("create")
      .description("Create an API token; its value is shown only now")
      .requiredOption("--name <name>", "what it is for")
      .addOption(new Option("--type <type>", "what it may do").choices(TOKEN_TYPES).makeOptionMandatory())
      .option("--expires-at <iso>", "when it stops working (ISO 8601)", isoTime)
      .action(
        action(async (context, options: { name: string; type: (typeof TOKEN_TYPES)[number]; expiresAt?: string }) => {
          const body = { name: options.name, type: options.type, ...(options.expiresAt ? { expiresAt: new Date(options.expiresAt).toISOString() } : {}) };
          const created = await context.wait("Creating the token", data(context.api().POST("/tokens", { body })));
          if (context.print.json) return context.print.result("", created);
          context.print.item(created, [
            ["id", created.id],
            ["name", created.name],
            ["type", created.type],
            ["expires", cell(created.expiresAt)],
          ]);
          context.print.result(`\n${context.print.c.bold("Token:")} ${created.token}`);
          context.print.note(context.print.c.yellow("⚠ This value is shown only now and will not be shown again: store it safely."));
        }),
      ),
    "waybill tokens create --name ci --type cli",
    "waybill tokens create --name sensor-7 --type sensor --expires-at 2027-01-01T00:00:00Z",
  );

  examples(
    tokens
      .command("list")
      .description("List tokens with when each was last used (never their values)")
      .option("--limit <n>", "at most this many", positiveInt, DEFAULT_LIST_LIMIT)
      .action(
        action(async (context, options: { limit: number }) => {
          const api = context.api();
          const items = await context.wait(
            "Loading tokens",
            collect(options.limit, (query) => data(api.GET("/tokens", { params: { query } }))),
          );
          context.print.list(items, tokenColumns, "No tokens.");
        }),
      ),
    "waybill tokens list",
    "waybill tokens list --json",
  );

  examples(
    tokens
      .command("revoke")
      .description("Revoke a token: it stops working at once, everywhere (asks first on a terminal)")
      .argument("<id>", "token id (tok_…)")
      .option("-y, --yes", "do not ask")
      .action(
        action(async (context, id: string, options: { yes?: boolean }) => {
          if (!(await confirmed(context, `Revoke token ${id}? Whatever uses it stops working.`, options.yes))) return;
          await context.wait("Revoking the token", context.api().DELETE("/tokens/{id}", { params: { path: { id } } }));
          context.print.result(`${context.print.c.green("✓")} Token ${id} revoked.`, { id, revoked: true });
        }),
      ),
    "waybill tokens revoke tok_01j…",
    "waybill tokens revoke tok_01j… --yes",
  );
}
