// The variables deploy/ and docker-compose.yml set against the variables each service's config
// schema reads: every overlay rendered by kustomize, compose parsed, the Dockerfile's ENV added,
// then each name checked against the zod schemas in services/*/config.ts.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { composeEnvProblems, configSchemas, imageEnvironment, imageEnvProblems, manifestEnvProblems } from "../scripts/deploy-env.js";
import { baseConfigShape } from "../packages/platform/config.js";

const repo = path.resolve(import.meta.dirname, "..");
const schemas = configSchemas(repo);
let copy: string | undefined;
afterEach(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
  copy = undefined;
});

/** Every problem of the tree at `root`: each overlay, compose and the image. */
async function envProblems(root: string): Promise<string[]> {
  const image = imageEnvironment(path.join(root, "Dockerfile"));
  const problems: string[] = [];
  for (const overlay of readdirSync(path.join(root, "deploy/overlays")).sort()) {
    const rendered = execFileSync("kubectl", ["kustomize", path.join(root, "deploy/overlays", overlay)], { encoding: "utf8" });
    const objects = parseAllDocuments(rendered)
      .map((doc) => doc.toJS())
      .filter(Boolean);
    for (const message of await manifestEnvProblems(objects, image, schemas))
      problems.push(`${overlay}: ${message.replace(/(ConfigMap [\w-]+)-[a-z0-9]{10}\b/, "$1")}`);
  }
  const compose = parse(readFileSync(path.join(root, "docker-compose.yml"), "utf8"), { merge: true });
  for (const message of await composeEnvProblems(compose, image, schemas)) problems.push(`compose: ${message}`);
  problems.push(...(await imageEnvProblems(image, readdirSync(path.join(repo, "services")), schemas)));
  return problems;
}

/** A copy of deploy/, docker-compose.yml and the Dockerfile with `edit` applied to one file. */
function editedCopy(file: string, edit: (text: string) => string): string {
  copy = mkdtempSync(path.join(tmpdir(), "waybill-deploy-env-"));
  cpSync(path.join(repo, "deploy"), path.join(copy, "deploy"), { recursive: true });
  for (const name of ["docker-compose.yml", "Dockerfile"]) cpSync(path.join(repo, name), path.join(copy, name));
  const target = path.join(copy, file);
  const before = readFileSync(target, "utf8");
  const after = edit(before);
  expect(after).not.toBe(before);
  writeFileSync(target, after);
  return copy;
}

describe("environment variables of deploy/ and docker-compose.yml", () => {
  it("names the variables the zod schemas read, shared and per service", async () => {
    const edge = await schemas.names("edge");
    expect(edge).toContain("MQTT_GATEWAY_GRPC_URL");
    for (const name of Object.keys(baseConfigShape)) expect(edge).toContain(name);
    expect(await schemas.names("dispatcher")).toContain("WEBHOOK_SECRET_KEY");
    expect(await schemas.names("receiver")).toBeUndefined(); // no config.ts: not a configured service
  });

  it("finds nothing wrong in the committed tree", async () => {
    expect(await envProblems(repo)).toEqual([]);
  }, 60_000);

  it("fails on a name no service reads: the devices URL under its old name", async () => {
    const root = editedCopy("deploy/base/config/common.env", (t) => t.replace("MQTT_GATEWAY_GRPC_URL=", "DEVICES_GRPC_URL="));
    const everyService = "dispatcher, edge, identity, inventory, mqtt-gateway, orders";
    expect(await envProblems(root)).toEqual([
      `dev: ConfigMap waybill-config sets DEVICES_GRPC_URL, which no service loading it (${everyService}) reads`,
      `production: ConfigMap waybill-config sets DEVICES_GRPC_URL, which no service loading it (${everyService}) reads`,
    ]);
  }, 60_000);

  it("fails on a name set on one service that its schema does not read, in compose too", async () => {
    const manifest = editedCopy("deploy/base/orders.yaml", (t) => t.replace("- name: OPS_PORT\n", "- name: HTTP_PORT\n"));
    expect(await envProblems(manifest)).toEqual([
      "dev: Deployment/orders container orders sets HTTP_PORT, which services/orders/config.ts does not read",
      "production: Deployment/orders container orders sets HTTP_PORT, which services/orders/config.ts does not read",
    ]);
    const compose = editedCopy("docker-compose.yml", (t) => t.replace("MQTT_GATEWAY_GRPC_URL:", "DEVICES_GRPC_URL:"));
    expect(await envProblems(compose)).toEqual(["compose: service edge sets DEVICES_GRPC_URL, which edge does not read"]);
  }, 60_000);

  it("fails when a variable the service requires in the image (NODE_ENV=production) is set nowhere", async () => {
    const root = editedCopy("deploy/base/dispatcher.yaml", (t) => t.replace(/ {12}- name: WEBHOOK_SECRET_KEY\n( {14}.*\n)+/, ""));
    const problems = await envProblems(root);
    expect(problems).toHaveLength(2);
    for (const [i, overlay] of ["dev", "production"].entries()) {
      expect(problems[i]).toMatch(
        new RegExp(`^${overlay}: Deployment/dispatcher container dispatcher: WEBHOOK_SECRET_KEY is required and no manifest sets it`),
      );
    }
  }, 60_000);

  it("fails on a value the schema rejects", async () => {
    const root = editedCopy("deploy/base/config/common.env", (t) => t.replace("LOG_LEVEL=info", "LOG_LEVEL=verbose"));
    const problems = await envProblems(root);
    // Six services in two overlays.
    expect(problems).toHaveLength(12);
    expect(problems).toContainEqual(expect.stringMatching(/^production: Deployment\/edge container edge: LOG_LEVEL Invalid option/));
  }, 60_000);
});
