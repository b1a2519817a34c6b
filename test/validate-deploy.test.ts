// The deploy validation CI runs: it passes on the tree as committed and fails, naming the
// object, on each kind of broken manifest an operator could commit.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { validateDeploy } from "../scripts/validate-deploy.js";

const repo = path.resolve(import.meta.dirname, "..");
let copy: string | undefined;
afterEach(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
  copy = undefined;
});

/** A copy of deploy/ and docker-compose.yml with `edit` applied to one file. */
function brokenCopy(file: string, edit: (text: string) => string): string {
  copy = mkdtempSync(path.join(tmpdir(), "waybill-deploy-"));
  cpSync(path.join(repo, "deploy"), path.join(copy, "deploy"), { recursive: true });
  cpSync(path.join(repo, "docker-compose.yml"), path.join(copy, "docker-compose.yml"));
  cpSync(path.join(repo, "Dockerfile"), path.join(copy, "Dockerfile"));
  const target = path.join(copy, file);
  const before = readFileSync(target, "utf8");
  const after = edit(before);
  expect(after).not.toBe(before); // the edit really broke something
  writeFileSync(target, after);
  return copy;
}

describe("npm run validate:deploy", () => {
  it("passes on the committed deploy/ and docker-compose.yml", async () => {
    expect(await validateDeploy({ root: repo })).toEqual([]);
  }, 60_000);

  it("fails on a Deployment without a readiness probe, in every overlay", async () => {
    const root = brokenCopy("deploy/base/edge.yaml", (t) => t.replace(/ {10}readinessProbe:\n( {12}.*\n)+/, ""));
    const problems = await validateDeploy({ root });
    expect(problems).toEqual([
      "deploy/overlays/dev: Deployment/edge container edge: readinessProbe is missing",
      "deploy/overlays/production: Deployment/edge container edge: readinessProbe is missing",
    ]);
  }, 60_000);

  it("fails on a field of the wrong type (schema)", async () => {
    const root = brokenCopy("deploy/base/nats/nats.yaml", (t) => t.replace("replicas: 3", "replicas: three"));
    const problems = await validateDeploy({ root });
    expect(
      problems.some((p) => /production: StatefulSet\/nats: schema: .*replicas must be integer/.test(p)),
      problems.join("\n"),
    ).toBe(true);
  }, 60_000);

  it("fails on a floating image tag, a missing securityContext setting and a missing PDB", async () => {
    const root = brokenCopy("deploy/base/orders.yaml", (t) =>
      t
        .replace("readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false")
        .replace(/apiVersion: policy\/v1\nkind: PodDisruptionBudget\n[\s\S]*?---\n/, ""),
    );
    const images = brokenCopy("deploy/base/nats/nats.yaml", (t) => t.replace("nats:2.10.22-alpine", "nats:latest"));
    const problems = [...(await validateDeploy({ root })), ...(await validateDeploy({ root: images }))];
    expect(problems).toContain("deploy/overlays/production: Deployment/orders container orders: securityContext.readOnlyRootFilesystem must be true");
    expect(problems).toContain("deploy/overlays/production: Deployment/orders: no PodDisruptionBudget selects its pods");
    expect(problems).toContain("deploy/overlays/production: StatefulSet/nats container nats: image nats:latest is not pinned to an exact version or digest");
  }, 60_000);

  it("fails on a Service whose port its pods do not declare", async () => {
    const root = brokenCopy("deploy/base/edge.yaml", (t) => t.replace("      targetPort: http\n", "      targetPort: web\n"));
    expect(await validateDeploy({ root })).toEqual([
      "deploy/overlays/dev: Service/edge: port http targets web, which its pods do not declare",
      "deploy/overlays/production: Service/edge: port http targets web, which its pods do not declare",
    ]);
  }, 60_000);

  it("fails when the pools could open more connections than PostgreSQL allows", async () => {
    const root = brokenCopy("deploy/base/orders.yaml", (t) => t.replace("maxReplicas: 6", "maxReplicas: 20"));
    const problems = await validateDeploy({ root });
    expect(problems).toEqual([
      "deploy/overlays/production: PostgreSQL role of orders (waybill-db-orders): connectionLimit 84 < 21x12 its pods may open",
      expect.stringMatching(/^deploy\/overlays\/production: PostgreSQL connections: .*orders 21x12.* > max_connections 300 - 20 reserved$/),
    ]);
  }, 60_000);

  it("fails on the deprecated in-tree barmanObjectStore and on a plugin naming a missing ObjectStore", async () => {
    const root = brokenCopy("deploy/overlays/production/postgres-cluster.yaml", (t) =>
      t
        .replace("barmanObjectName: waybill-backups", "barmanObjectName: elsewhere")
        .replace("  plugins:\n", "  backup:\n    barmanObjectStore:\n      destinationPath: s3://old\n  plugins:\n"),
    );
    expect(await validateDeploy({ root })).toEqual([
      "deploy/overlays/production: Cluster/waybill-db: spec.backup.barmanObjectStore is deprecated (CloudNativePG 1.26): archive through the barman-cloud plugin and an ObjectStore",
      "deploy/overlays/production: Cluster/waybill-db: plugin barman-cloud.cloudnative-pg.io names ObjectStore elsewhere, which is not in the render",
    ]);
  }, 60_000);

  it("fails when a pod's grace period does not hold its preStop pause and drain", async () => {
    const root = brokenCopy("deploy/base/edge.yaml", (t) => t.replace("terminationGracePeriodSeconds: 40", "terminationGracePeriodSeconds: 30"));
    expect(await validateDeploy({ root })).toEqual([
      "deploy/overlays/dev: Deployment/edge: terminationGracePeriodSeconds 30 < 35 (preStop 5 s + drain up to 25 s + 5 s)",
      "deploy/overlays/production: Deployment/edge: terminationGracePeriodSeconds 30 < 35 (preStop 5 s + drain up to 25 s + 5 s)",
    ]);
  }, 60_000);

  it("fails on a nats.conf the server does not accept", async () => {
    const root = brokenCopy("deploy/base/nats/nats.conf", (t) => t.replace("max_file_store: 8GB\n}", "max_file_store: 8GB\n"));
    const problems = await validateDeploy({ root });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^deploy\/overlays\/production: ConfigMap\/nats-config-\w+ nats.conf: /);
  }, 60_000);

  it("fails on a compose file that lets the dispatcher start without WEBHOOK_SECRET_KEY", async () => {
    const root = brokenCopy("docker-compose.yml", (t) => t.replace(/WEBHOOK_SECRET_KEY: \$\{WEBHOOK_SECRET_KEY:\?[^}]*\}/, "WEBHOOK_SECRET_KEY:"));
    expect(await validateDeploy({ root })).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the message quotes Compose's ${VAR:-default} and ${VAR:?message} syntax
      "docker-compose.yml: service dispatcher: WEBHOOK_SECRET_KEY is passed through from the shell; give it a default (${WEBHOOK_SECRET_KEY:-…}) or require it (${WEBHOOK_SECRET_KEY:?message})",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the message quotes Compose's ${VAR:?message} syntax
      "docker-compose.yml: service dispatcher: WEBHOOK_SECRET_KEY must be required with ${WEBHOOK_SECRET_KEY:?message} (the service refuses to start without it)",
    ]);
  }, 60_000);

  it("fails on a compose file without a healthcheck, with a published port on every interface, or invalid for the spec", async () => {
    const root = brokenCopy("docker-compose.yml", (t) =>
      t
        .replace(/ {4}healthcheck:\n {6}test: \["CMD", "wget".*\n( {6}.*\n)+/, "")
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal Compose port mapping with shell-variable defaults, as docker-compose.yml has it
        .replace("${WAYBILL_BIND:-127.0.0.1}:${MQTT_HOST_PORT:-1883}:1883", "1883:1883")
        .replace("restart: unless-stopped\n\n  nats:", "restart: unless-stopped\n    replica_count: 2\n\n  nats:"),
    );
    const problems = await validateDeploy({ root });
    expect(problems).toContain("docker-compose.yml: service nats: no healthcheck");
    expect(problems).toContain("docker-compose.yml: service mqtt-gateway: port 1883:1883 is not bound to 127.0.0.1 by default");
    expect(problems.some((p) => p === "docker-compose.yml: schema: /services/postgres must NOT have additional properties (replica_count)")).toBe(true);
  }, 60_000);
});
