// The built `waybill` client on a real pseudo-terminal (util-linux `script`, part of every Debian)
// and on a real terminal screen (tmux: keys typed with send-keys, the screen read with
// capture-pane): colours on a terminal and never with NO_COLOR, the password prompt shows nothing
// typed, and destructive commands ask before they act.
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_MAIN, createCli, type Cli } from "./support/cli.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

const ADMIN_EMAIL = "admin@waybill.local";
const ADMIN_PASSWORD = `pw-${randomBytes(8).toString("hex")}`;

let stack: Stack;
let cli: Cli;

beforeAll(async () => {
  stack = await startStack({ extraEnv: { BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL, BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD } });
  cli = await createCli({ WAYBILL_URL: stack.edge.url });
});

afterAll(async () => {
  await cli?.cleanup();
  await stack?.stop();
});

const exec = promisify(execFile);
const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

interface Terminal {
  output(): string;
  /** Waits for `text` on the terminal, then types `input` (Enter is "\r"). */
  answer(text: string, input: string): Promise<void>;
  exited: Promise<number | null>;
}

/** Runs the CLI with a pseudo-terminal as its stdin, stdout and stderr. */
function onTerminal(args: string[], env: Record<string, string> = {}): Terminal {
  const command = [process.execPath, CLI_MAIN, ...args].map(quote).join(" ");
  const child = spawn("script", ["-qefc", command, "/dev/null"], { env: { ...cli.env, SHELL: "/bin/sh", ...env } });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  return {
    output: () => output,
    async answer(text, input) {
      await eventually(async () => (output.includes(text) ? true : undefined));
      child.stdin.write(input);
    },
    exited: new Promise((resolve) => child.on("close", (code) => resolve(code))),
  };
}

describe("waybill on a terminal", () => {
  it("asks for the password without showing what is typed", async () => {
    const login = onTerminal(["login", "--email", ADMIN_EMAIL]);
    await login.answer("Password: ", `${ADMIN_PASSWORD}\r`);
    expect(await login.exited).toBe(0);
    expect(login.output()).toContain(`Logged in to ${stack.edge.url} as ${ADMIN_EMAIL}`);
    expect(login.output()).not.toContain(ADMIN_PASSWORD);
    const me = await cli.json(["whoami"]);
    expect(me).toMatchObject({ user: ADMIN_EMAIL, access: "ok" });
    expect(me.credential).toMatch(/^cli token cli-/);
  });

  it("draws tables in colour, and without colour when NO_COLOR is set", async () => {
    const coloured = onTerminal(["event-kinds"], { NO_COLOR: "" });
    expect(await coloured.exited).toBe(0);
    expect(coloured.output()).toContain("\u001b[1mKIND");
    const plain = onTerminal(["event-kinds"], { NO_COLOR: "1" });
    expect(await plain.exited).toBe(0);
    expect(plain.output()).toMatch(/^KIND\s+FIELDS/m);
    expect(plain.output()).not.toContain("\u001b[");
  });

  it("asks before deleting: no keeps the hook, yes deletes it", async () => {
    const hook = await cli.json(["hooks", "create", "--name", "keep?", "--url", "https://example.com/hook", "--on", "order.created"]);
    const declined = onTerminal(["hooks", "delete", hook.id]);
    await declined.answer("[y/N]", "n\r");
    expect(await declined.exited).toBe(0);
    expect(declined.output()).toContain("Cancelled; nothing changed.");
    expect((await cli.json(["hooks", "get", hook.id])).id).toBe(hook.id);

    const accepted = onTerminal(["hooks", "delete", hook.id]);
    await accepted.answer("[y/N]", "y\r");
    expect(await accepted.exited).toBe(0);
    expect(accepted.output()).toContain(`Hook ${hook.id} deleted.`);
    expect((await cli.run(["hooks", "get", hook.id])).code).toBe(1);
  });

  it("asks before revoking a token: no keeps it, yes revokes it", async () => {
    const token = await cli.json(["tokens", "create", "--name", "revoke me", "--type", "cli"], { env: { WAYBILL_TOKEN: stack.token } });
    const declined = onTerminal(["tokens", "revoke", token.id], { WAYBILL_TOKEN: stack.token });
    await declined.answer(`Revoke token ${token.id}? Whatever uses it stops working. [y/N]`, "\r");
    expect(await declined.exited).toBe(0);
    expect(declined.output()).toContain("Cancelled; nothing changed.");
    const accepted = onTerminal(["tokens", "revoke", token.id], { WAYBILL_TOKEN: stack.token });
    await accepted.answer("[y/N]", "yes\r");
    expect(await accepted.exited).toBe(0);
    expect(accepted.output()).toContain(`Token ${token.id} revoked.`);
    const listed = (await cli.json(["tokens", "list"], { env: { WAYBILL_TOKEN: stack.token } })).find((t: { id: string }) => t.id === token.id);
    expect(listed.revokedAt).not.toBeNull();
  });
});

describe("waybill on a tmux screen", () => {
  const socket = `waybill-cli-test-${process.pid}`;
  const tmux = (...args: string[]) => exec("tmux", ["-L", socket, ...args], { env: { ...cli.env, TMUX: "" } });
  const screen = async () => (await tmux("capture-pane", "-p", "-t", "login")).stdout;
  const showing = (text: string) =>
    eventually(async () => ((await screen()).includes(text) ? true : undefined)).catch(async (error) => {
      throw new Error(`${(error as Error).message}: waited for ${JSON.stringify(text)}; the screen:\n${await screen()}`);
    });

  afterAll(async () => {
    await tmux("kill-server").catch(() => undefined);
  });

  it("asks for the email (shown) and the password (never shown), and ends with a cli token", async () => {
    const command = [process.execPath, CLI_MAIN, "login", "--profile", "tmux"].map(quote).join(" ");
    await tmux("new-session", "-d", "-s", "login", "-x", "160", "-y", "20", `${command}; echo "exit=$?"; sleep 60`);
    await showing("Email:");
    await tmux("send-keys", "-t", "login", ADMIN_EMAIL, "Enter");
    await showing("Password:");
    await tmux("send-keys", "-t", "login", "-l", ADMIN_PASSWORD);
    // Typed but not yet entered: the screen shows nothing of it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await screen()).not.toContain(ADMIN_PASSWORD);
    await tmux("send-keys", "-t", "login", "Enter");
    await showing("exit=0");
    const shown = await screen();
    expect(shown).toContain(`Email: ${ADMIN_EMAIL}`);
    expect(shown).toMatch(/^Password: *$/m);
    expect(shown).toContain(`✓ Logged in to ${stack.edge.url} as ${ADMIN_EMAIL} with a new cli token "waybill CLI on `);
    expect(shown).not.toContain(ADMIN_PASSWORD);
    const me = await cli.json(["whoami", "--profile", "tmux"]);
    expect(me).toMatchObject({ profile: "tmux", user: ADMIN_EMAIL, access: "ok" });
  });
});
