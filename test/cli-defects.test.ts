// The defects of issue 32, each run as a user runs it against the real system, with the command,
// its stdout, stderr and exit code: hooks update sends only its flags, hooks retry succeeds on the
// API's 202, --json errors, whoami without a login, listen's Ready only once connected and its
// printing mode and delivery headers, the wording of login and whoami.
import { readFile } from "node:fs/promises";
import os from "node:os";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, createOrder, createStockedProduct, type Call } from "./orders-fixtures.js";
import { profilesPath } from "../clients/cli/src/config/profiles.js";
import { createCli, type Cli } from "./support/cli.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

const ADMIN_EMAIL = "admin@waybill.local";
const ADMIN_PASSWORD = `pw-${randomBytes(8).toString("hex")}`;

let stack: Stack;
let cli: Cli;
let call: Call;
let customerId: string;
let productId: string;
const receivers: TestReceiver[] = [];

beforeAll(async () => {
  stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL, BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD } });
  cli = await createCli({ WAYBILL_URL: stack.edge.url, WAYBILL_TOKEN: stack.token });
  call = client(stack);
  customerId = await createCustomer(call);
  productId = await createStockedProduct(call, 0);
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await cli?.cleanup();
  await stack?.stop();
});

async function receiver(): Promise<TestReceiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

const newOrder = async () => (await createOrder(call, customerId, [{ productId, quantity: 1 }])).id as string;

describe("defect 1: hooks update sends only the hook's fields", () => {
  it("renames, re-targets and re-orders a hook, with and without --json", async () => {
    const hook = await createHook(call, { url: "https://example.com/a", on: "order.created" });
    const renamed = await cli.run(["hooks", "update", hook.id, "--name", "renamed"]);
    expect(renamed.stderr).toBe("");
    expect(renamed.code).toBe(0);
    expect(renamed.stdout).toMatch(/^name\s+renamed$/m);
    const json = await cli.run(["hooks", "update", hook.id, "--url", "https://example.com/b", "--on", "order.completed", "--ordering", "perEntity", "--json"]);
    expect(json.stderr).toBe("");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: hook.id, name: "renamed", url: "https://example.com/b", on: "order.completed", ordering: "perEntity" });
    const none = await cli.run(["hooks", "update", hook.id, "--json"]);
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stderr)).toEqual({ error: { code: "usage", message: "nothing to change: give --name, --url, --on or --ordering" } });
  });
});

describe("defect 2: hooks retry", () => {
  it("reports the queued retry (exit 0) and the receiver gets the manual attempt", async () => {
    const target = await receiver();
    const hook = await createHook(call, { url: target.url, on: "order.created" });
    const orderId = await newOrder();
    await eventually(async () => target.received.find((r) => r.json?.orderId === orderId));
    const [execution] = await eventually(async () => {
      const list = await cli.json(["hooks", "executions", hook.id]);
      return list.length > 0 ? list : undefined;
    });
    const retried = await cli.run(["hooks", "retry", hook.id, execution.id]);
    expect(retried.stderr).toBe("");
    expect(retried.code).toBe(0);
    expect(retried.stdout).toMatch(new RegExp(`^✓ Retry of ${execution.id}( \\(event evt_\\w+\\))? queued`));
    await target.waitFor(2);
    expect(target.received[1].json.orderId).toBe(orderId);
    const manual = await eventually(async () => (await cli.json(["hooks", "executions", hook.id])).find((e: { trigger: string }) => e.trigger === "manual"));
    expect(manual.eventId).toBe(execution.eventId);
    const json = await cli.run(["hooks", "retry", hook.id, execution.id, "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ hookId: hook.id, executionId: execution.id, queued: true });
  });
});

describe("defect 4, 5 and 10: exit codes, JSON errors, wording", () => {
  it("whoami without any credential exits 1 (not 2) and says how to log in", async () => {
    const result = await cli.run(["whoami"], { env: { WAYBILL_TOKEN: "" } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      'error: not logged in (no profile "default", no --token, no WAYBILL_TOKEN)\nhint: run `waybill login`, or pass --token / set WAYBILL_TOKEN\n',
    );
  });

  it("--json turns a refusal into one JSON object on stderr", async () => {
    const result = await cli.run(["orders", "get", "ord_nope", "--json"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    const { error } = JSON.parse(result.stderr);
    expect(error).toMatchObject({ status: 404, requestId: expect.any(String) });
    expect(error.code).toMatch(/not_found/);
    const text = await cli.run(["orders", "get", "ord_nope"]);
    expect(text.stderr).toMatch(/^error: \w*not_found \(HTTP 404\)/);
    const usage = await cli.run(["orders", "list", "--limit", "0", "--json"]);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr).error).toMatchObject({ code: "usage", message: expect.stringContaining("--limit") });
  });

  it("says which token a login keeps, shows no tenant it does not know, and a wrong password is not 'log in again'", async () => {
    const kept = await cli.run(["login", "--token", stack.token, "--keep-token", "--profile", "kept"]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(new RegExp(`^✓ Logged in to ${stack.edge.url} with the api token given; saved in profile "kept"`));
    expect(kept.stdout).not.toContain("a api");
    const me = await cli.run(["whoami", "--profile", "kept"], { env: { WAYBILL_TOKEN: "" } });
    expect(me.code, me.stderr).toBe(0);
    // Tokens are base64url after their type: "-" is one of the characters shown (1 run in ~16).
    expect(me.stdout).toMatch(/^credential\s+api token api-[\w-]{4}…$/m);
    expect(me.stdout).not.toMatch(/^tenant/m);
    const wrong = await cli.run(["login", "--email", ADMIN_EMAIL, "--password-stdin", "--profile", "wrong"], { input: "not it\n", env: { WAYBILL_TOKEN: "" } });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe("");
    expect(wrong.stderr).toMatch(/^error: invalid_credentials \(HTTP 401\): .*\nhint: check the email and the password\n/);
    expect(wrong.stderr).not.toContain("waybill login");
  });
});

describe("defect 3: login ends with a cli token that logout revokes", () => {
  it("creates 'waybill CLI on <host>' for 90 days, visible in tokens list, revoked by logout", async () => {
    const login = await cli.run(["login", "--email", ADMIN_EMAIL, "--password-stdin", "--profile", "laptop", "--json"], {
      input: `${ADMIN_PASSWORD}\n`,
      env: { WAYBILL_TOKEN: "" },
    });
    expect(login.code, login.stderr).toBe(0);
    const saved = JSON.parse(login.stdout);
    expect(saved).toMatchObject({ profile: "laptop", credential: "cli", email: ADMIN_EMAIL, tokenName: `waybill CLI on ${os.hostname()}` });
    const days = (Date.parse(saved.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);

    const listed = (await cli.json(["tokens", "list"])).find((t: { id: string }) => t.id === saved.tokenId);
    expect(listed).toMatchObject({ type: "cli", name: `waybill CLI on ${os.hostname()}`, revokedAt: null, expiresAt: saved.expiresAt });
    // The profile works with it after the session JWT would have ended (it is not a JWT).
    const asProfile = await cli.run(["hooks", "list", "--profile", "laptop", "--json"], { env: { WAYBILL_TOKEN: "" } });
    expect(asProfile.code, asProfile.stderr).toBe(0);

    // A cli token may revoke itself only: another token's id is refused.
    const other = await cli.json(["tokens", "create", "--name", "not yours", "--type", "cli"]);
    const { token: cliToken } = JSON.parse(await readFile(profilesPath({ XDG_CONFIG_HOME: cli.configHome }), "utf8")).profiles.laptop;
    const refused = await request(`${stack.baseUrl}/tokens/${other.id}`, { method: "DELETE", token: cliToken });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("token_type_forbidden");

    const logout = await cli.run(["logout", "--profile", "laptop"], { env: { WAYBILL_TOKEN: "" } });
    expect(logout.stderr).toBe("");
    expect(logout.code).toBe(0);
    expect(logout.stdout).toBe(`✓ Logged out: token ${saved.tokenId} revoked; profile "laptop" removed.\n`);
    expect((await cli.json(["tokens", "list"])).find((t: { id: string }) => t.id === saved.tokenId).revokedAt).not.toBeNull();
    expect((await request(`${stack.baseUrl}/hooks`, { token: cliToken })).status).toBe(401);
    expect((await cli.json(["tokens", "list"])).find((t: { id: string }) => t.id === other.id).revokedAt).toBeNull();

    const shorter = await cli.json(["login", "--token", stack.token, "--expires", "30d", "--profile", "short"]);
    expect((Date.parse(shorter.expiresAt) - Date.now()) / 86_400_000).toBeCloseTo(30, 1);
    const bad = await cli.run(["login", "--token", stack.token, "--expires", "yesterday"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--expires");
  });
});

describe("login as a member, who may not create tokens", () => {
  it("keeps the session, says when it ends and how to get a lasting login", async () => {
    const email = `member-${randomBytes(3).toString("hex")}@waybill.local`;
    const created = await request(`${stack.baseUrl}/users`, { token: stack.token, json: { email, password: "member-password", role: "member" } });
    expect(created.status).toBe(201);
    const login = await cli.run(["login", "--email", email, "--password-stdin", "--profile", "member"], {
      input: "member-password\n",
      env: { WAYBILL_TOKEN: "" },
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(
      new RegExp(`^⚠ ${email} may not create API tokens, so this login is a session that ends at \\S+\\. Ask an admin for a cli token`, "m"),
    );
    expect(login.stdout).toMatch(new RegExp(`^✓ Logged in to ${stack.edge.url} as ${email} with a session that expires \\S+; saved in profile "member"`));
    const me = await cli.json(["whoami", "--profile", "member"], { env: { WAYBILL_TOKEN: "" } });
    expect(me).toMatchObject({ credential: "session", user: email, role: "member", access: "ok" });
    const logout = await cli.run(["logout", "--profile", "member"], { env: { WAYBILL_TOKEN: "" } });
    expect(logout.stdout).toBe('✓ Logged out; profile "member" removed.\n');
  });
});

describe("defects 6 and 7: listen", () => {
  it("exits 1 without Ready when the server is down or the input is wrong", async () => {
    const down = await cli.run(["listen"], { env: { WAYBILL_URL: "http://127.0.0.1:1" } });
    expect(down.code).toBe(1);
    expect(down.stdout).toBe("");
    expect(down.stderr).not.toContain("Ready");
    expect(down.stderr).toMatch(/^error: connection_failed: could not reach http:\/\/127\.0\.0\.1:1\/v1\/events\/stream/m);
    const bogus = await cli.run(["listen", "--forward-to", "http://127.0.0.1:9/x", "--events", "order.bogus"]);
    expect(bogus.code).toBe(1);
    expect(bogus.stdout).toBe("");
    expect(bogus.stderr).toMatch(/^error: invalid_query \(HTTP 400\)/);
    expect(bogus.stderr).toContain("order.bogus");
  });

  it("prints events without --forward-to: one line each, or NDJSON with --json, only the kinds asked", async () => {
    const lines = cli.spawn(["listen", "--events", "order.created"]);
    const json = cli.spawn(["listen", "--events", "order.created,customer.created", "--json"]);
    await lines.waitForStderr("Ready; printing order.created.");
    await json.waitForStderr("Ready; printing order.created, customer.created.");
    const otherCustomer = await createCustomer(call);
    const orderId = await newOrder();
    const line = await lines.waitForLine((l) => l.includes(orderId));
    expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  order\\.created\\s+evt_[0-9a-z]{26}  orderId=${orderId} `));
    const printed = await eventually(async () => (json.stdoutLines.length >= 2 ? json.stdoutLines.map((l) => JSON.parse(l)) : undefined));
    expect(printed.map((e) => e.kind)).toEqual(["customer.created", "order.created"]);
    expect(printed[0].customerId).toBe(otherCustomer);
    expect(printed[1]).toMatchObject({ orderId, transactionId: expect.stringMatching(/^txn_/) });
    expect(lines.stdoutLines.filter((l) => l.trim())).toHaveLength(1);
    expect(await lines.stop()).toBe(0);
    expect(await json.stop()).toBe(0);
    expect(lines.stderr()).toContain("Stopped after printing 1 event");
  });

  it("forwards with exactly the headers of a real delivery, and --print-secret prints the secret it signs with", async () => {
    const printed = await cli.run(["listen", "--print-secret"]);
    expect(printed.code).toBe(0);
    const secret = printed.stdout.trim();
    expect(secret).toMatch(/^whsec_/);
    expect((await cli.run(["listen", "--print-secret"])).stdout.trim()).toBe(secret);

    const local = await receiver();
    const real = await receiver();
    await createHook(call, { url: real.url, on: "order.created" });
    const listen = cli.spawn(["listen", "--forward-to", local.url, "--events", "order.created"]);
    const ready = await listen.waitForLine((l) => l.startsWith("Ready"));
    expect(ready).toContain(`Signing secret: ${secret} `);
    const orderId = await newOrder();
    const [forwarded] = await local.waitFor(1);
    const delivered = await eventually(async () => real.received.find((r) => r.json?.orderId === orderId));
    expect(forwarded.json.orderId).toBe(orderId);
    expect(Object.keys(forwarded.headers).sort()).toEqual(Object.keys(delivered.headers).sort());
    for (const name of ["user-agent", "content-type", "content-length", "connection"]) expect(forwarded.headers[name]).toBe(delivered.headers[name]);
    expect(forwarded.headers["user-agent"]).toBe("Waybill-Webhooks/1");
    expect(forwarded.headers).not.toHaveProperty("accept-language");
    expect(forwarded.headers).not.toHaveProperty("sec-fetch-mode");
    expect(await listen.stop()).toBe(0);
  });
});
