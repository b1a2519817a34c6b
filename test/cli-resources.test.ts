// The built `waybill` client against the real system: logging in (password without a terminal,
// profiles, logout), tokens create/list/revoke, an order from a file through to completed, lists
// as JSON across pages, and the exit statuses: 1 with the problem's code when the API refuses
// (nothing changed), 2 for a wrong command line.
import { randomBytes } from "node:crypto";
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { profilesPath } from "../clients/cli/src/config/profiles.js";
import { createCli, type Cli } from "./support/cli.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

const ADMIN_EMAIL = "admin@waybill.local";
const ADMIN_PASSWORD = `pw-${randomBytes(8).toString("hex")}`;

let stack: Stack;
let cli: Cli;

beforeAll(async () => {
  stack = await startStack({ extraEnv: { BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL, BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD, TOKEN_USE_FLUSH_INTERVAL_MS: "100" } });
  cli = await createCli({ WAYBILL_URL: stack.edge.url });
});

afterAll(async () => {
  await cli?.cleanup();
  await stack?.stop();
});

const unique = () => randomBytes(4).toString("hex").toUpperCase();

describe("waybill login, whoami, logout", () => {
  it("logs in with a password read from standard input and keeps the cli token it created in a 0600 profile", async () => {
    const login = await cli.run(["login", "--email", ADMIN_EMAIL, "--password-stdin"], { input: `${ADMIN_PASSWORD}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`as ${ADMIN_EMAIL}`);
    expect(login.stdout).not.toContain(ADMIN_PASSWORD);
    const file = profilesPath({ XDG_CONFIG_HOME: cli.configHome });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, "utf8"));
    expect(stored.profiles.default).toMatchObject({ url: stack.edge.url, credential: "cli", email: ADMIN_EMAIL, createdByLogin: true });
    expect(stored.profiles.default.token).toMatch(/^cli-/);
    expect(JSON.stringify(stored)).not.toContain(ADMIN_PASSWORD);

    const me = await cli.json(["whoami"]);
    expect(me).toMatchObject({ user: ADMIN_EMAIL, access: "ok", profile: "default", tokenId: stored.profiles.default.tokenId });
    expect(me.credential).toMatch(/^cli token cli-/);

    const wrong = await cli.run(["login", "--email", ADMIN_EMAIL, "--password-stdin", "--profile", "other"], { input: "not the password\n" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error: invalid_credentials \(HTTP 401\)/);
  });

  it("keeps named profiles apart, and logout forgets one", async () => {
    const saved = await cli.run(["login", "--token", stack.token, "--profile", "ci"]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(await cli.json(["whoami", "--profile", "ci"])).toMatchObject({ profile: "ci", access: "ok" });
    expect((await cli.json(["whoami", "--profile", "ci"])).credential).toMatch(/^cli token cli-/);
    const out = await cli.run(["logout", "--profile", "ci"]);
    expect(out.code).toBe(0);
    const gone = await cli.run(["whoami", "--profile", "ci"]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain('no profile named "ci"');
    // The default profile is untouched.
    expect((await cli.json(["whoami"])).user).toBe(ADMIN_EMAIL);
  });
});

describe("waybill tokens", () => {
  beforeAll(async () => {
    expect((await cli.run(["login", "--token", stack.token, "--keep-token"])).code).toBe(0);
  });

  it("creates a token shown once, lists it with its last use, and revokes it so that it stops working", async () => {
    const created = await cli.json(["tokens", "create", "--name", "laptop", "--type", "cli"]);
    expect(created.token).toMatch(/^cli-/);
    const asToken = await cli.run(["whoami", "--json"], { env: { WAYBILL_TOKEN: created.token } });
    expect(asToken.code, asToken.stderr).toBe(0);
    expect(JSON.parse(asToken.stdout)).toMatchObject({ credentialFrom: "env", access: "ok" });

    // Its use shows in the list (recorded in batches).
    const mine = await eventually(async () =>
      (await cli.json(["tokens", "list"])).find((t: Record<string, unknown>) => t.id === created.id && t.lastUsedAt !== null),
    );
    expect(mine).toMatchObject({ name: "laptop", type: "cli", revokedAt: null });
    expect(mine).not.toHaveProperty("token");
    const table = await cli.run(["tokens", "list"]);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+TYPE\s+CREATED\s+EXPIRES\s+LAST USED\s+REVOKED$/);

    const revoked = await cli.run(["tokens", "revoke", created.id, "--yes"]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const refused = await cli.run(["orders", "list"], { env: { WAYBILL_TOKEN: created.token } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: token_revoked \(HTTP 401\)/);
    expect((await cli.json(["tokens", "list"])).find((t: Record<string, unknown>) => t.id === created.id).revokedAt).not.toBeNull();
  });

  it("refuses a cli token what the API refuses it (exit 1, problem code on stderr) and creates nothing", async () => {
    const created = await cli.json(["tokens", "create", "--name", "limited", "--type", "cli"]);
    const before = (await cli.json(["tokens", "list"])).length;
    const refused = await cli.run(["tokens", "create", "--name", "escalate", "--type", "api"], { env: { WAYBILL_TOKEN: created.token } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: token_type_forbidden \(HTTP 403\)/);
    expect(refused.stdout).toBe("");
    expect(await cli.json(["tokens", "list"])).toHaveLength(before);
  });
});

describe("waybill orders, products, inventory, customers", () => {
  beforeAll(async () => {
    expect((await cli.run(["login", "--token", stack.token, "--keep-token"])).code).toBe(0);
  });

  it("creates an order from a file and moves it through to completed, consuming the stock", async () => {
    const product = await cli.json(["products", "create", "--sku", `SKU-${unique()}`, "--name", "Widget", "--price", "2.50", "--currency", "EUR"]);
    const stocked = await cli.json(["inventory", "adjust", "--product", product.id, "--delta", "5", "--reason", "initial count"]);
    expect(stocked).toMatchObject({ productId: product.id, onHand: 5, available: 5 });
    const customer = await cli.json(["customers", "create", "--name", "Grace Hopper", "--email", "grace@example.com"]);
    const file = path.join(cli.configHome, "order.json");
    await writeFile(
      file,
      JSON.stringify({
        shortId: `ORD-${unique()}`,
        customerId: customer.id,
        currency: "EUR",
        orderItems: [{ productId: product.id, quantity: 2, price: "2.50" }],
      }),
    );
    const order = await cli.json(["orders", "create", "--file", file]);
    expect(order).toMatchObject({ status: "pending", total: "5.00", customerId: customer.id });

    for (const status of ["ready", "inProgress", "completed"]) {
      const moved = await cli.run(["orders", "status", order.id, status]);
      expect(moved.code, moved.stderr).toBe(0);
      expect(moved.stdout).toContain(`Order ${order.id} is ${status}.`);
    }
    expect((await cli.json(["orders", "get", order.id])).status).toBe("completed");
    const [level] = await cli.json(["inventory", "list", "--product", product.id]);
    expect(level).toMatchObject({ onHand: 3, reserved: 0, available: 3 });
    const completed = await cli.json(["orders", "list", "--status", "completed", "--customer", customer.id]);
    expect(completed.map((o: Record<string, unknown>) => o.id)).toEqual([order.id]);
    const shown = await cli.run(["orders", "get", order.id]);
    expect(shown.stdout).toMatch(/status\s+completed/);
    expect(shown.stdout).toContain(`2 × ${product.id} at 2.50`);
  });

  it("exits 1 with the problem's code when the API refuses, and leaves the order as it was", async () => {
    const customer = await cli.json(["customers", "create", "--name", "Refused"]);
    const product = await cli.json(["products", "create", "--sku", `REF-${unique()}`, "--name", "Refused product"]);
    const order = await cli.json(["orders", "create", "--file", "-"], {
      input: JSON.stringify({
        shortId: `ORD-${unique()}`,
        customerId: customer.id,
        currency: "EUR",
        orderItems: [{ productId: product.id, quantity: 1, price: "1.00" }],
      }),
    });
    const refused = await cli.run(["orders", "status", order.id, "completed"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^error: invalid_status_transition \(HTTP 409\): An order cannot move from pending to completed/);
    expect((await cli.json(["orders", "get", order.id])).status).toBe("pending");
    const changes = await cli.json(["events", "list", "--kind", "order.status.changed"]);
    expect(changes.filter((e: Record<string, unknown>) => e.orderId === order.id)).toEqual([]);

    const invalid = await cli.run(["customers", "create", "--name", "X", "--email", "not-an-email"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^error: validation_failed \(HTTP 422\)/);
    expect(invalid.stderr).toMatch(/^ {2}email: /m);
  });

  it("exits 2 on a wrong command line before sending anything", async () => {
    for (const args of [
      ["orders", "status", "ord_x", "flying"],
      ["hooks", "create", "--name", "x"],
      ["orders", "list", "--limit", "0"],
      ["orders", "frobnicate"],
      ["hooks"],
      ["inventory", "adjust", "--product", "prd_x", "--reason", "r"],
      ["orders", "create", "--file", "/nonexistent/order.json"],
    ]) {
      const result = await cli.run(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(2);
      expect(result.stdout).toBe("");
    }
    const help = await cli.run(["orders", "status", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Examples:\n  $ waybill orders status");
  });

  it("--json lists every item across pages up to --limit", async () => {
    // More than one page (the API gives at most 100 per page) of customer.created events.
    const created: string[] = [];
    for (let batch = 0; batch < 11; batch += 1) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => request(`${stack.baseUrl}/customers`, { token: stack.token, json: { name: `Bulk ${unique()}` } })),
      );
      created.push(...answers.map((a) => a.body.id));
    }
    const all = await cli.json(["customers", "list", "--limit", "1000"]);
    expect(all.length).toBeGreaterThanOrEqual(110);
    expect(new Set(all.map((c: Record<string, unknown>) => c.id)).size).toBe(all.length);
    for (const id of created) expect(all.some((c: Record<string, unknown>) => c.id === id)).toBe(true);
    const some = await cli.json(["customers", "list", "--limit", "105"]);
    expect(some.map((c: Record<string, unknown>) => c.id)).toEqual(all.slice(0, 105).map((c: Record<string, unknown>) => c.id));
    const kinds = await cli.json(["event-kinds"]);
    expect(kinds.map((k: Record<string, unknown>) => k.kind)).toContain("order.created");
  });
});
