// Each service's main.ts, run as its own process, drains and exits 0 on SIGTERM.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../services/launcher/ports.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { runTs } from "./support/processes.js";

let env: TestEnvironment;
beforeAll(async () => {
  env = await createTestEnvironment();
});
afterAll(async () => {
  await env.cleanup();
});

const SERVICES = ["identity", "inventory", "orders", "dispatcher", "edge", "mqtt-gateway"] as const;

describe("SIGTERM", () => {
  it.each(SERVICES)("%s exits 0 after draining", async (service) => {
    const opsPort = await freePort();
    // The edge answers /healthz on its HTTP port; its ops port gets a free one too, not its
    // default (another test's edge may have that).
    const ports = service === "edge" ? { HTTP_PORT: String(opsPort), OPS_PORT: String(await freePort()) } : { OPS_PORT: String(opsPort) };
    const child = runTs(`services/${service}/main.ts`, {
      ...env.env,
      GRPC_PORT: "0",
      MQTT_PORT: "0",
      ...ports,
      BOOTSTRAP_API_TOKEN: "api-sigterm-test-token-0123456789",
    });
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const ok = await fetch(`http://127.0.0.1:${opsPort}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        if (Date.now() > deadline || child.process.exitCode !== null) throw new Error(`${service} did not come up:\n${child.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      child.process.kill("SIGTERM");
      expect(await child.exited(20_000)).toBe(0);
      expect(child.output()).toContain("SIGTERM received, draining");
    } finally {
      if (child.process.exitCode === null) child.process.kill("SIGKILL");
    }
  });
});
