// deploy/monitoring with a real Prometheus toolchain: the PrometheusRule's groups pass
// `promtool check rules`, its unit tests (series that fire and series that must not) pass
// `promtool test rules`, the dashboard's queries parse, kustomize renders the whole folder, and
// every waybill_* metric the rules and the dashboard name is one the running services export.
import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments, stringify } from "yaml";
import { type Stack, startStack } from "./support/stack.js";

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, "..");
const monitoring = path.join(repo, "deploy/monitoring");
const rules = parse(readFileSync(path.join(monitoring, "prometheus-rules.yaml"), "utf8"));
const dashboard = JSON.parse(readFileSync(path.join(monitoring, "waybill-dashboard.json"), "utf8"));
const dashboardQueries: string[] = dashboard.panels.flatMap((p: { targets?: { expr: string }[] }) => (p.targets ?? []).map((t) => t.expr));
const alertRules: { alert: string; expr: string; annotations: Record<string, string> }[] = rules.spec.groups.flatMap((g: { rules: unknown[] }) => g.rules);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "waybill-promtool-"));
  // The rule files promtool reads are the PrometheusRule's .spec, as the operator hands it to Prometheus.
  writeFileSync(path.join(dir, "prometheus-rules.spec.yaml"), stringify(rules.spec));
  copyFileSync(path.join(monitoring, "tests/prometheus-rules.test.yaml"), path.join(dir, "prometheus-rules.test.yaml"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const promtool = (...args: string[]) => run("promtool", args, { cwd: dir }).catch((error) => ({ stdout: `${error.stdout}${error.stderr}`, failed: true }));

describe("deploy/monitoring", () => {
  it("passes promtool check rules", async () => {
    const result = await promtool("check", "rules", "prometheus-rules.spec.yaml");
    expect(result.stdout).toMatch(new RegExp(`SUCCESS: ${alertRules.length} rules found`));
  });

  it("passes promtool test rules: each alert fires on its series and stays quiet on the others", async () => {
    const result = await promtool("test", "rules", "prometheus-rules.test.yaml");
    expect(result.stdout).toContain("SUCCESS");
    // Every alert is exercised by at least one test.
    const tests = readFileSync(path.join(dir, "prometheus-rules.test.yaml"), "utf8");
    for (const { alert } of alertRules) expect(tests, alert).toContain(`alertname: ${alert}`);
  });

  it("gives every alert a summary, a description and its runbook in docs/runbooks.md", () => {
    const runbooks = readFileSync(path.join(repo, "docs/runbooks.md"), "utf8");
    for (const { alert, annotations } of alertRules) {
      expect(annotations.summary, alert).toBeTruthy();
      expect(annotations.description, alert).toBeTruthy();
      expect(annotations.runbook_url).toBe(`docs/runbooks.md#${alert.toLowerCase()}`);
      expect(runbooks, alert).toMatch(new RegExp(`^## ${alert}$`, "m"));
    }
  });

  it("has dashboard queries Prometheus parses", async () => {
    // Recording rules are the way promtool parses an expression offline.
    const groups = [{ name: "dashboard", rules: dashboardQueries.map((expr, i) => ({ record: `dashboard:query_${i}`, expr })) }];
    writeFileSync(path.join(dir, "dashboard.rules.yaml"), stringify({ groups }));
    const result = await promtool("check", "rules", "dashboard.rules.yaml");
    expect(result.stdout).toMatch(new RegExp(`SUCCESS: ${dashboardQueries.length} rules found`));
  });

  it("renders with kustomize: the rule, the PodMonitors and the dashboard's ConfigMap", () => {
    const objects = parseAllDocuments(execFileSync("kubectl", ["kustomize", monitoring], { encoding: "utf8" })).map((d) => d.toJS());
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      "ConfigMap/waybill-dashboard",
      "PodMonitor/waybill",
      "PodMonitor/waybill-db",
      "PrometheusRule/waybill",
    ]);
    const configMap = objects.find((o) => o.kind === "ConfigMap");
    expect(configMap.metadata.labels.grafana_dashboard).toBe("1");
    expect(JSON.parse(configMap.data["waybill-dashboard.json"]).uid).toBe("waybill");
  });
});

describe("the metrics the rules and the dashboard use", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  }, 60_000);
  afterAll(async () => stack?.stop());

  it("are exported by the running services", async () => {
    const opsPorts = [stack.edge, stack.identity, stack.orders, stack.inventory, stack.dispatcher, stack.gateway].map((s) => s.opsPort);
    const exported = new Set<string>();
    for (const port of opsPorts) {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\w+)$/gm)) {
        exported.add(name);
        if (type === "histogram") for (const suffix of ["_bucket", "_count", "_sum"]) exported.add(name + suffix);
      }
    }
    const used = new Set([...alertRules.map((r) => r.expr), ...dashboardQueries].flatMap((expr) => expr.match(/\b(waybill|nodejs|process)_\w+/g) ?? []));
    expect(used.size).toBeGreaterThan(15);
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
  });

  it("label API answers by their route's pattern, as the latency alert filters them", async () => {
    await fetch(`${stack.baseUrl}/orders/ord_missing`, { headers: { authorization: `Bearer ${stack.token}` } });
    const text = await (await fetch(`http://127.0.0.1:${stack.edge.opsPort}/metrics`)).text();
    expect(text).toMatch(/^waybill_http_request_duration_seconds_count\{[^}]*route="\/v1\/orders\/:id"[^}]*status="4xx"[^}]*\} 1$/m);
  });
});
