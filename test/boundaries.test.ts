// The architecture's rule, enforced by the linter (biome.json: noRestrictedImports, and
// noUndeclaredDependencies against each package's package.json): a service imports only its own
// files and the libraries @waybill/platform and @waybill/contracts; libraries never import a
// service and the platform imports no other package; clients use only the SDK. The rule must hold on the tree and must fail
// on a deliberate cross-service import.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { access, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/processes.js";

const run = promisify(execFile);
const biome = path.join(ROOT, "node_modules/.bin/biome");

async function lint(...paths: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(biome, ["lint", "--only=style/noRestrictedImports", ...paths], { cwd: ROOT });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

describe("package boundaries", () => {
  it("hold on the whole tree", async () => {
    const { code, output } = await lint("services", "packages", "clients");
    expect(output).not.toContain("noRestrictedImports");
    expect(code).toBe(0);
  });

  it.each([
    ["services/orders", `import { login } from "../identity/sessions.js";\nexport const probe = login;\n`, "never another service"],
    ["services/orders", `import { startIdentity } from "@waybill/identity";\nexport const probe = startIdentity;\n`, "never another service"],
    ["services/edge/routes", `import { checkHookFields } from "../../dispatcher/hooks.js";\nexport const probe = checkHookFields;\n`, "never another service"],
    ["services/edge", `import { newId } from "../../packages/platform/ids.js";\nexport const probe = newId;\n`, "by package name"],
    ["services/dispatcher", `import { verifyWebhook } from "../receiver/verify.js";\nexport const probe = verifyWebhook;\n`, "nor the receiver"],
    ["services/receiver", `import { newId } from "@waybill/platform/ids.js";\nexport const probe = newId;\n`, "nothing else of ours"],
    [
      "packages/contracts/limits",
      `import { startOrders } from "../../../services/orders/service.js";\nexport const probe = startOrders;\n`,
      "never import a service",
    ],
    [
      "packages/platform",
      `import { EVENT_KINDS } from "@waybill/contracts/events/catalog.js";\nexport const probe = EVENT_KINDS;\n`,
      "imports no other package",
    ],
  ])("fail on a deliberate forbidden import from %s", async (folder, source, message) => {
    const file = path.join(ROOT, folder, `boundary-probe-${randomBytes(4).toString("hex")}.ts`);
    await writeFile(file, source);
    try {
      const { code, output } = await lint(path.relative(ROOT, file));
      expect(code).not.toBe(0);
      expect(output).toContain("noRestrictedImports");
      expect(output).toContain(message);
    } finally {
      await rm(file, { force: true });
    }
  });
});

/** What `specifier` resolves to from the repository's root in a fresh Node, or the error's code. */
async function resolveFromRoot(specifier: string, conditions: string[] = []): Promise<string> {
  const script = `try { console.log(import.meta.resolve(${JSON.stringify(specifier)})) } catch (e) { console.log(e.code) }`;
  const { stdout } = await run(process.execPath, [...conditions.map((c) => `--conditions=${c}`), "--input-type=module", "-e", script], { cwd: ROOT });
  return stdout.trim();
}

/** Every .ts file under `dir` (no node_modules, dist or generated code). */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => path.join(e.parentPath, e.name))
    .filter((file) => !/[/\\](node_modules|dist|gen)[/\\]/.test(file));
}

describe("the platform's public surface", () => {
  it("is its exports list: each entry exists, and a module outside it (the dead-letters CLI, an internal) is not importable", async () => {
    const manifest = JSON.parse(await readFile(path.join(ROOT, "packages/platform/package.json"), "utf8")) as {
      exports: Record<string, Record<string, string>>;
    };
    for (const [subpath, targets] of Object.entries(manifest.exports)) {
      if (subpath.includes("*")) continue;
      await access(path.join(ROOT, "packages/platform", targets["@waybill/source"]));
    }
    expect(Object.keys(manifest.exports)).toContain("./outbox.js");
    for (const hidden of ["dead-letters-cli.js", "outbox-signal.js", "batch-queue.js"]) {
      expect(Object.keys(manifest.exports)).not.toContain(`./${hidden}`);
      expect(await resolveFromRoot(`@waybill/platform/${hidden}`, ["@waybill/source"])).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED");
    }
    expect(await resolveFromRoot("@waybill/platform/outbox.js", ["@waybill/source"])).toMatch(/packages\/platform\/outbox\.ts$/);
  });

  it("keeps test support under @waybill/platform/testing/*, for the tests' source condition only, and no service or library imports it", async () => {
    expect(await resolveFromRoot("@waybill/platform/testing/module-script.js", ["@waybill/source"])).toMatch(/packages\/platform\/testing\/module-script\.ts$/);
    // Compiled code (production) does not see it at all.
    expect(await resolveFromRoot("@waybill/platform/testing/module-script.js")).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED");
    const importers: string[] = [];
    for (const dir of ["services", "packages/contracts", "clients/cli/src"]) {
      for (const file of await sourceFiles(dir)) {
        if (file.endsWith(".test.ts")) continue;
        if ((await readFile(file, "utf8")).includes("@waybill/platform/testing/")) importers.push(path.relative(ROOT, file));
      }
    }
    expect(importers).toEqual([]);
  });
});
