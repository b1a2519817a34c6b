// waybill customers …: create, list, show, update.
import type { Command } from "commander";
import { data, type Customer } from "@waybill/sdk";
import { action } from "../context.js";
import { UsageError } from "../errors.js";
import { examples } from "../help.js";
import { defined, readJsonFile } from "../input.js";
import { positiveInt } from "../options.js";
import { cell } from "../output/printer.js";
import type { Column } from "../output/table.js";
import { collect, DEFAULT_LIST_LIMIT } from "../pagination.js";

const customerColumns: Column<Customer>[] = [
  { header: "id", value: (c) => c.id },
  { header: "name", value: (c) => c.name, max: 30 },
  { header: "email", value: (c) => cell(c.email) },
  { header: "phone", value: (c) => cell(c.phone) },
  { header: "country", value: (c) => cell(c.address?.country) },
  { header: "created", value: (c) => c.createdAt },
];

const customerFields = (c: Customer): [string, string][] => [
  ["id", c.id],
  ["name", c.name],
  ["email", cell(c.email)],
  ["phone", cell(c.phone)],
  [
    "address",
    c.address ? [c.address.line1, c.address.line2, c.address.postalCode, c.address.city, c.address.region, c.address.country].filter(Boolean).join(", ") : "-",
  ],
  ["created", c.createdAt],
  ["updated", c.updatedAt],
];

interface CustomerOptions {
  file?: string;
  name?: string;
  email?: string;
  phone?: string;
}

async function bodyOf(options: CustomerOptions): Promise<Record<string, unknown>> {
  const fromFile = options.file ? await readJsonFile(options.file) : {};
  return { ...fromFile, ...defined({ name: options.name, email: options.email, phone: options.phone }) };
}

export function registerCustomers(program: Command): void {
  const customers = examples(
    program.command("customers").description("Customers: create, list, show, update"),
    "waybill customers create --name 'Ada Lovelace' --email ada@example.com",
  );

  examples(
    customers
      .command("create")
      .description("Create a customer from options or a JSON file (options win)")
      .option("--name <name>", "full name")
      .option("--email <email>", "email address")
      .option("--phone <phone>", "phone number")
      .option("-f, --file <path>", "the customer as JSON (with an address); - reads standard input")
      .action(
        action(async (context, options: CustomerOptions) => {
          const body = await bodyOf(options);
          if (body.name === undefined) throw new UsageError("--name (or a name in --file) is required");
          const customer = await context.wait("Creating the customer", data(context.api().POST("/customers", { body: body as never })));
          context.print.item(customer, customerFields(customer));
        }),
      ),
    "waybill customers create --name 'Ada Lovelace' --email ada@example.com",
    "waybill customers create --file customer.json",
  );

  examples(
    customers
      .command("list")
      .description("List customers, newest first")
      .option("--limit <n>", "at most this many", positiveInt, DEFAULT_LIST_LIMIT)
      .action(
        action(async (context, options: { limit: number }) => {
          const api = context.api();
          const items = await context.wait(
            "Loading customers",
            collect(options.limit, (query) => data(api.GET("/customers", { params: { query } }))),
          );
          context.print.list(items, customerColumns, "No customers.");
        }),
      ),
    "waybill customers list --limit 10",
  );

  examples(
    customers
      .command("get")
      .description("Show one customer")
      .argument("<id>", "customer id (cus_…)")
      .action(
        action(async (context, id: string) => {
          const customer = await context.wait("Loading the customer", data(context.api().GET("/customers/{id}", { params: { path: { id } } })));
          context.print.item(customer, customerFields(customer));
        }),
      ),
    "waybill customers get cus_01j…",
  );

  examples(
    customers
      .command("update")
      .description("Change a customer from options or a JSON file")
      .argument("<id>", "customer id")
      .option("--name <name>", "full name")
      .option("--email <email>", "email address")
      .option("--phone <phone>", "phone number")
      .option("-f, --file <path>", "fields as JSON; - reads standard input")
      .action(
        action(async (context, id: string, options: CustomerOptions) => {
          const body = await bodyOf(options);
          if (Object.keys(body).length === 0) throw new UsageError("nothing to change: give --name, --email, --phone or --file");
          const customer = await context.wait(
            "Updating the customer",
            data(context.api().PUT("/customers/{id}", { params: { path: { id } }, body: body as never })),
          );
          context.print.item(customer, customerFields(customer));
        }),
      ),
    "waybill customers update cus_01j… --phone '+44 20 7946 0000'",
  );
}
