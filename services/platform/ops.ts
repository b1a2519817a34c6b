// /healthz, /readyz and /metrics: every service has them, on its own ops port (the edge on its
// HTTP port). Liveness says the process runs; readiness checks the dependencies.
import http from "node:http";
import { collectDefaultMetrics, Registry } from "prom-client";

export type ReadinessCheck = () => Promise<void>;

export interface Ops {
  registry: Registry;
  /** Answers an ops path, or returns undefined when the path is not an ops path. */
  answer(path: string): Promise<{ status: number; contentType: string; body: string } | undefined>;
  /** Set while draining, so that load balancers stop sending work before the process exits. */
  setDraining(): void;
  /** Adds a readiness check (a part started after the ops, such as a consumer's progress). */
  addCheck(name: string, check: ReadinessCheck): void;
}

export function createOps(service: string, initialChecks: Record<string, ReadinessCheck>): Ops {
  const checks = { ...initialChecks };
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  let draining = false;
  return {
    registry,
    setDraining: () => {
      draining = true;
    },
    addCheck: (name, check) => {
      checks[name] = check;
    },
    async answer(path) {
      if (path === "/healthz") return json(200, { status: "ok", service });
      if (path === "/metrics") return { status: 200, contentType: registry.contentType, body: await registry.metrics() };
      if (path !== "/readyz") return undefined;
      if (draining) return json(503, { status: "draining", service });
      const results: Record<string, string> = {};
      let ready = true;
      for (const [name, check] of Object.entries(checks)) {
        try {
          await check();
          results[name] = "ok";
        } catch (error) {
          ready = false;
          results[name] = (error as Error).message || "failed";
        }
      }
      return json(ready ? 200 : 503, { status: ready ? "ready" : "not ready", service, checks: results });
    },
  };
}

function json(status: number, body: unknown) {
  return { status, contentType: "application/json", body: JSON.stringify(body) };
}

export interface OpsServerHandle {
  port: number;
  stop(): Promise<void>;
}

export async function startOpsServer(ops: Ops, host: string, port: number): Promise<OpsServerHandle> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    ops.answer(path).then(
      (answer) => {
        if (!answer || req.method !== "GET") {
          res.writeHead(404, { "content-type": "application/json" }).end('{"status":"not found"}');
          return;
        }
        res.writeHead(answer.status, { "content-type": answer.contentType }).end(answer.body);
      },
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
