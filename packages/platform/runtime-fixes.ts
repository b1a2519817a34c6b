// What every Waybill process installs before it opens its first gRPC channel, server or NATS
// connection: replacements of library code that keep each HTTP/2 request's and each NATS
// request's objects from outliving young-generation collections, and a NATS reply from building
// an Error it discards (async-resource-bind.ts and nats-requests.ts say why). runMain, the
// launcher and the test setup call it.
//
// Each replacement was measured on exact Node and library versions and installs only on those:
// a replacement of someone else's internals is right for the code it was written against, and
// nothing says it still is after an upgrade. Elsewhere it is skipped with a warning (the process
// runs as the libraries ship), and runtime-fixes.test.ts fails when the versions the project
// pins leave a fix's list, so that the fix is measured again rather than silently lost.
// WAYBILL_RUNTIME_FIXES=0 turns them all off (to compare, or to rule them out).
import { createRequire } from "node:module";
import { z } from "zod";
import { installAsyncResourceBind } from "./async-resource-bind.js";
import { booleanFlag } from "./config.js";
import type { Logger } from "./logger.js";
import { installNatsRequestFixes } from "./nats-requests.js";

export interface RuntimeFix {
  name: string;
  /** Node versions (process.versions.node) it was measured on. */
  node: readonly string[];
  /** Package name → the exact version whose internals it replaces. */
  libraries: Readonly<Record<string, string>>;
  install(): void;
}

/** Measured on these: 20.19.5 (the image before Node 24), 20.20.2 (the development machines), 24.21.0 (the image). */
const MEASURED_NODE_VERSIONS = ["20.19.5", "20.20.2", "24.21.0"] as const;

export const RUNTIME_FIXES: readonly RuntimeFix[] = [
  // Node's own bind (Node 20 and 24) defines two accessor closures per bound function.
  { name: "async-resource-bind", node: MEASURED_NODE_VERSIONS, libraries: {}, install: installAsyncResourceBind },
  { name: "nats-requests", node: MEASURED_NODE_VERSIONS, libraries: { "@nats-io/nats-core": "3.4.0" }, install: installNatsRequestFixes },
];

export const runtimeFixesConfigShape = {
  /** 0 / false / no: none of the replacements installs; unset: they do. */
  WAYBILL_RUNTIME_FIXES: z.string().pipe(booleanFlag).optional(),
};
const runtimeFixesConfigSchema = z.object(runtimeFixesConfigShape);

export interface RuntimeFixOutcome {
  name: string;
  installed: boolean;
  /** Why it was skipped. */
  reason?: string;
}

export interface RuntimeFixOptions {
  logger: Pick<Logger, "info" | "warn">;
  /** Read for WAYBILL_RUNTIME_FIXES; process.env by default. */
  env?: Record<string, string | undefined>;
  fixes?: readonly RuntimeFix[];
  nodeVersion?: string;
  installedVersion?: (name: string) => string | undefined;
}

const INSTALLED = Symbol.for("waybill.runtimeFixes");

/**
 * Installs the fixes this Node and these libraries were measured with, once per process (later
 * calls return the first call's outcomes and log nothing). One info line for what installed, one
 * warning per fix skipped.
 */
export function installRuntimeFixes(options: RuntimeFixOptions): RuntimeFixOutcome[] {
  const registry = globalThis as unknown as Record<symbol, RuntimeFixOutcome[] | undefined>;
  const earlier = registry[INSTALLED];
  if (earlier) return earlier;
  const outcomes = decideAndInstall(options);
  Object.defineProperty(registry, INSTALLED, { value: outcomes });
  return outcomes;
}

/** installRuntimeFixes without the once-per-process memory (for tests with their own fixes). */
export function decideAndInstall(options: RuntimeFixOptions): RuntimeFixOutcome[] {
  const { logger, fixes = RUNTIME_FIXES, nodeVersion = process.versions.node, installedVersion = installedPackageVersion } = options;
  const env = options.env ?? process.env;
  const parsed = runtimeFixesConfigSchema.safeParse(cleanEnv(env));
  const enabled = parsed.success ? (parsed.data.WAYBILL_RUNTIME_FIXES ?? true) : true;
  if (!parsed.success)
    logger.warn({ WAYBILL_RUNTIME_FIXES: env.WAYBILL_RUNTIME_FIXES }, "WAYBILL_RUNTIME_FIXES is not one of 0 1 true false yes no: the fixes stay on");
  if (!enabled) {
    logger.info({ runtimeFixes: [] }, "runtime fixes turned off (WAYBILL_RUNTIME_FIXES=0): libraries run as they ship");
    return fixes.map((fix) => ({ name: fix.name, installed: false, reason: "turned off by WAYBILL_RUNTIME_FIXES=0" }));
  }
  const outcomes = fixes.map((fix): RuntimeFixOutcome => {
    const reason = mismatch(fix, nodeVersion, installedVersion);
    if (reason) {
      logger.warn({ runtimeFix: fix.name, reason }, `runtime fix ${fix.name} skipped: ${reason}; see packages/platform/runtime-fixes.ts`);
      return { name: fix.name, installed: false, reason };
    }
    fix.install();
    return { name: fix.name, installed: true };
  });
  const installed = outcomes.filter((outcome) => outcome.installed).map((outcome) => outcome.name);
  if (installed.length > 0) logger.info({ runtimeFixes: installed, node: nodeVersion }, `runtime fixes installed: ${installed.join(", ")}`);
  return outcomes;
}

/** Why `fix` does not apply here, or undefined when it does. */
export function mismatch(fix: RuntimeFix, nodeVersion: string, installedVersion: (name: string) => string | undefined): string | undefined {
  if (!fix.node.includes(nodeVersion)) return `written for Node ${fix.node.join(" / ")}, this is ${nodeVersion}`;
  for (const [name, version] of Object.entries(fix.libraries)) {
    const actual = installedVersion(name);
    if (actual !== version) return `written for ${name} ${version}, ${actual === undefined ? "it is not installed" : `${actual} is installed`}`;
  }
  return undefined;
}

/** The version in the package.json of `name` as this package resolves it (the copy the fix patches). */
export function installedPackageVersion(name: string): string | undefined {
  const require = createRequire(import.meta.url);
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    return undefined;
  }
  // Exports maps often hide package.json: walk up from the entry point to the package's folder.
  const marker = `/node_modules/${name}/`;
  const at = entry.lastIndexOf(marker);
  if (at < 0) return undefined;
  try {
    return (require(`${entry.slice(0, at + marker.length)}package.json`) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

const cleanEnv = (env: Record<string, string | undefined>) => ({ WAYBILL_RUNTIME_FIXES: env.WAYBILL_RUNTIME_FIXES || undefined });
