import { readFileSync } from "node:fs";
import { AsyncResource } from "node:async_hooks";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { decideAndInstall, installedPackageVersion, installRuntimeFixes, mismatch, RUNTIME_FIXES, type RuntimeFix } from "./runtime-fixes.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => {
  try {
    return readFileSync(path.join(ROOT, file), "utf8");
  } catch {
    return "";
  }
};

/** The Node versions the project ships and tests on: the image's FROM lines and CI's NODE_VERSION. */
function shippedNodeVersions(): string[] {
  const fromImage = [...read("Dockerfile").matchAll(/^FROM node:(\d+\.\d+\.\d+)/gm)].map((match) => match[1]);
  const fromCi = [...read(".ci/run").matchAll(/^NODE_VERSION=(\d+\.\d+\.\d+)/gm)].map((match) => match[1]);
  return [...new Set([...fromImage, ...fromCi])];
}

const logger = () => ({ info: vi.fn(), warn: vi.fn() });
const fakeFix = (overrides: Partial<RuntimeFix> = {}): RuntimeFix => ({
  name: "fake",
  node: ["24.21.0"],
  libraries: { "some-lib": "1.2.3" },
  install: vi.fn(),
  ...overrides,
});

describe("runtime fixes are pinned to what the project ships", () => {
  // A failure here means an upgrade: measure the fix again on the new version (its test in
  // packages/platform, npm run bench:gc-survival), then add the version to its list, or remove
  // the fix when the upgrade made it unnecessary. Never just widen the list.
  it("each fix was written for the library versions installed and pinned in package.json", () => {
    const pins = (JSON.parse(read("package.json")) as { devDependencies: Record<string, string> }).devDependencies;
    for (const fix of RUNTIME_FIXES) {
      for (const [name, version] of Object.entries(fix.libraries)) {
        expect(installedPackageVersion(name), `${fix.name}: ${name} installed`).toBe(version);
        expect(pins[name], `${fix.name}: ${name} in package.json`).toBe(version);
      }
    }
  });

  it("each fix was written for the Node versions the image ships and CI runs", () => {
    const shipped = shippedNodeVersions();
    expect(shipped.length).toBeGreaterThan(0);
    for (const fix of RUNTIME_FIXES) for (const version of shipped) expect(fix.node, `${fix.name} measured on Node ${version}`).toContain(version);
  });

  it("the test process runs with them, installed by the vitest setup as every service installs them", () => {
    const outcomes = installRuntimeFixes({ logger: logger() }); // the setup's outcomes: installs once per process
    for (const fix of RUNTIME_FIXES) {
      const applies = mismatch(fix, process.versions.node, installedPackageVersion) === undefined;
      expect(outcomes.find((outcome) => outcome.name === fix.name)?.installed, fix.name).toBe(applies && process.env.WAYBILL_RUNTIME_FIXES !== "0");
    }
    if (outcomes.find((outcome) => outcome.name === "async-resource-bind")?.installed) {
      expect(AsyncResource.prototype.bind.toString()).toContain("bindToAsyncResource");
    }
  });
});

describe("installing runtime fixes", () => {
  it("installs a fix on the versions it names and says so in one line", () => {
    const fix = fakeFix();
    const log = logger();
    const outcomes = decideAndInstall({ logger: log, env: {}, fixes: [fix], nodeVersion: "24.21.0", installedVersion: () => "1.2.3" });
    expect(outcomes).toEqual([{ name: "fake", installed: true }]);
    expect(fix.install).toHaveBeenCalledOnce();
    expect(log.info).toHaveBeenCalledOnce();
    expect(log.info.mock.calls[0][1]).toBe("runtime fixes installed: fake");
    expect(log.warn).not.toHaveBeenCalled();
  });

  it("skips a fix with a warning on another Node, another library version or without the library", () => {
    const cases = [
      { nodeVersion: "24.22.0", version: "1.2.3", reason: "written for Node 24.21.0, this is 24.22.0" },
      { nodeVersion: "24.21.0", version: "1.2.4", reason: "written for some-lib 1.2.3, 1.2.4 is installed" },
      { nodeVersion: "24.21.0", version: undefined, reason: "written for some-lib 1.2.3, it is not installed" },
    ];
    for (const { nodeVersion, version, reason } of cases) {
      const fix = fakeFix();
      const log = logger();
      const outcomes = decideAndInstall({ logger: log, env: {}, fixes: [fix], nodeVersion, installedVersion: () => version });
      expect(outcomes).toEqual([{ name: "fake", installed: false, reason }]);
      expect(fix.install).not.toHaveBeenCalled();
      expect(log.warn).toHaveBeenCalledOnce();
      expect(log.warn.mock.calls[0][1]).toContain(`runtime fix fake skipped: ${reason}`);
      expect(log.info).not.toHaveBeenCalled();
    }
  });

  it("installs none when WAYBILL_RUNTIME_FIXES=0, and says so", () => {
    for (const value of ["0", "false", "no"]) {
      const fix = fakeFix();
      const log = logger();
      const outcomes = decideAndInstall({
        logger: log,
        env: { WAYBILL_RUNTIME_FIXES: value },
        fixes: [fix],
        nodeVersion: "24.21.0",
        installedVersion: () => "1.2.3",
      });
      expect(outcomes[0].installed).toBe(false);
      expect(fix.install).not.toHaveBeenCalled();
      expect(log.info.mock.calls[0][1]).toContain("runtime fixes turned off");
    }
  });

  it("keeps them on, with a warning, when WAYBILL_RUNTIME_FIXES is not a yes or a no", () => {
    const fix = fakeFix();
    const log = logger();
    decideAndInstall({ logger: log, env: { WAYBILL_RUNTIME_FIXES: "maybe" }, fixes: [fix], nodeVersion: "24.21.0", installedVersion: () => "1.2.3" });
    expect(fix.install).toHaveBeenCalledOnce();
    expect(log.warn.mock.calls[0][1]).toContain("WAYBILL_RUNTIME_FIXES");
  });

  it("reads a library's version from the package.json of the copy it resolves, behind an exports map", () => {
    const natsCore = JSON.parse(read("node_modules/@nats-io/nats-core/package.json")) as { version: string };
    expect(installedPackageVersion("@nats-io/nats-core")).toBe(natsCore.version);
    expect(installedPackageVersion("no-such-package-here")).toBeUndefined();
  });
});
