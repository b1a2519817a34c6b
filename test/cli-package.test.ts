// The packed client installs and works without the repository: `npm pack` gives one tarball with
// the bundled client only (no dependencies to fetch), `npm install -g` puts it in an empty prefix,
// and from there `waybill --version` and `waybill hooks list` work against the real system.
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outsideEnv, packAndInstall, type InstalledCli } from "./support/cli-package.js";
import { request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

const run = promisify(execFile);
let stack: Stack;
let installed: InstalledCli;

beforeAll(async () => {
  [stack, installed] = await Promise.all([startStack(), packAndInstall()]);
}, 180_000);

afterAll(async () => {
  await installed?.remove();
  await stack?.stop();
});

describe("the packed waybill client", () => {
  it("is one tarball holding the bundled client and no dependencies", async () => {
    expect(path.basename(installed.tarball)).toBe("waybill-cli-0.1.0.tgz");
    const { stdout } = await run("tar", ["-tzf", installed.tarball]);
    expect(stdout.trim().split("\n").sort()).toEqual(["package/bin/waybill.js", "package/dist/main.js", "package/package.json"]);
    const { stdout: manifest } = await run("tar", ["-xzOf", installed.tarball, "package/package.json"]);
    const pkg = JSON.parse(manifest);
    expect(pkg.dependencies ?? {}).toEqual({});
    const installedDir = path.join(installed.prefix, "lib/node_modules/@waybill/cli");
    expect((await readdir(installedDir)).sort()).toEqual(["bin", "dist", "package.json"]);
  });

  it("runs from the empty prefix: --version and hooks list against the real system", async () => {
    const version = await run(installed.bin, ["--version"], { cwd: installed.cwd, env: outsideEnv() });
    expect(version.stdout).toBe("0.1.0\n");
    expect(version.stderr).toBe("");
    const created = await request(`${stack.baseUrl}/hooks`, {
      token: stack.token,
      json: { name: "from the tarball", url: "https://example.com/h", on: "order.created" },
    });
    expect(created.status).toBe(201);
    const env = outsideEnv({ WAYBILL_URL: stack.edge.url, WAYBILL_TOKEN: stack.token, XDG_CONFIG_HOME: installed.cwd, NO_COLOR: "1" });
    const table = await run(installed.bin, ["hooks", "list"], { cwd: installed.cwd, env });
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+ON\s+STATUS\s+URL/);
    expect(table.stdout).toContain(created.body.id);
    const json = await run(installed.bin, ["hooks", "list", "--json"], { cwd: installed.cwd, env });
    expect(JSON.parse(json.stdout).map((h: { id: string }) => h.id)).toEqual([created.body.id]);
  });
});
