import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NODE_FLAGS } from "./node-flags.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

describe("the services' Node flags", () => {
  it("are the production image's entrypoint", () => {
    const entrypoint = read("Dockerfile").match(/^ENTRYPOINT (\[.*\])$/m);
    expect(entrypoint).not.toBeNull();
    expect(JSON.parse(entrypoint![1])).toEqual(["node", ...NODE_FLAGS]);
  });

  it("start the process of `npm start`", () => {
    const start = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts.start;
    expect(start.split(" ").slice(0, 1 + NODE_FLAGS.length)).toEqual(["node", ...NODE_FLAGS]);
  });

  it("are flags this Node starts with (V8's own: NODE_OPTIONS refuses them, hence the command lines)", () => {
    const v8Options = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8" });
    // V8 lists a boolean flag by its positive name: --no-x turns --x off.
    for (const flag of NODE_FLAGS) expect(v8Options).toContain(`  ${flag.split("=")[0].replace(/^--no-/, "--")} (`);
    expect(execFileSync(process.execPath, [...NODE_FLAGS, "-e", "console.log('started')"], { encoding: "utf8" })).toBe("started\n");
  });
});
