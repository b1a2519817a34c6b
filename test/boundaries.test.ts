// The architecture's rule, enforced by the linter (biome.json: noRestrictedImports, and
// noUndeclaredDependencies against each package's package.json): a service imports only its own
// files and the libraries @waybill/platform and @waybill/contracts; libraries never import a
// service and the platform imports no other package; clients use only the SDK. The rule must hold on the tree and must fail
// on a deliberate cross-service import.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
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
