// Offline validation of what an operator deploys: every kustomize overlay under deploy/overlays
// rendered and checked against the Kubernetes schemas (kubernetes-models; CloudNativePG and
// cert-manager objects get a structural check), the policy every workload must follow, the
// PostgreSQL connection budget, nats.conf through `nats-server -t`, and docker-compose.yml
// against the Compose specification schema.
//   npm run validate:deploy            (exit 1 and a list of problems when something is wrong)
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { parse, parseAllDocuments } from "yaml";
import { composeEnvProblems, configSchemas, imageEnvironment, imageEnvProblems, manifestEnvProblems } from "./deploy-env.js";
import { DELIVERY_POOL_MAX } from "../services/dispatcher/service.js";
import { HOOK_CHANGES_CONNECTIONS } from "../services/dispatcher/hook-changes.js";
import { STOCK_INTENTS_POOL_MAX } from "../services/orders/service.js";
import { SHUTDOWN_TIMEOUT_MS } from "../packages/platform/run-main.js";

/** Connections kept free of the services' budget: superuser slots, replication, operator, an admin. */
export const RESERVED_CONNECTIONS = 20;
/** Connections a pod opens besides its DB_POOL_MAX pool. */
const EXTRA_CONNECTIONS: Record<string, number> = { dispatcher: DELIVERY_POOL_MAX + HOOK_CHANGES_CONNECTIONS, orders: STOCK_INTENTS_POOL_MAX };
const WORKLOAD_KINDS = new Set(["Deployment", "StatefulSet"]);
/** Settings a service refuses to start without in the image (NODE_ENV=production): compose must demand them. */
const REQUIRED_COMPOSE_SECRETS: Record<string, string[]> = { dispatcher: ["WEBHOOK_SECRET_KEY"], identity: ["IDENTITY_SECRET_KEY"] };
/** A digest, or an exact version: x.y.z, or x.y for PostgreSQL, whose releases have two parts. */
const PINNED_IMAGE = /(@sha256:[0-9a-f]{64}$)|(:\d+\.\d+\.\d+[\w.-]*$)|(postgres(ql)?:\d+\.\d+[\w.-]*$)/;

type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: ObjectSpec;
  data?: Record<string, string>;
};

/** The fields of a spec these checks read, across every kind they look at (all optional: a manifest may omit any). */
interface ObjectSpec {
  // Deployment, StatefulSet
  template?: { metadata?: { labels?: Record<string, string> }; spec?: PodSpec };
  replicas?: number;
  strategy?: { rollingUpdate?: { maxSurge?: number | string } };
  // PodDisruptionBudget ({ matchLabels }), Service (labels directly)
  selector?: LabelSelector;
  // Service
  ports?: { name?: string; port?: number; targetPort?: number | string }[];
  // HorizontalPodAutoscaler
  scaleTargetRef?: { name?: string };
  maxReplicas?: number;
  // NetworkPolicy
  podSelector?: Record<string, unknown>;
  ingress?: unknown[];
  egress?: unknown[];
  policyTypes?: string[];
  // Ingress
  tls?: unknown[];
  // CloudNativePG Cluster, ScheduledBackup
  instances?: unknown;
  backup?: { barmanObjectStore?: unknown };
  plugins?: { name?: string; parameters?: { barmanObjectName?: string } }[];
  managed?: { roles?: { name?: string; login?: boolean; passwordSecret?: { name?: string }; connectionLimit?: number }[] };
  postgresql?: { parameters?: { max_connections?: string | number } };
  method?: string;
  // cert-manager Certificate, Issuer
  dnsNames?: string[];
  commonName?: string;
  selfSigned?: unknown;
  ca?: unknown;
  acme?: unknown;
  vault?: unknown;
  venafi?: unknown;
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  [label: string]: unknown;
}

interface PodSpec {
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type?: string } };
  topologySpreadConstraints?: unknown[];
  initContainers?: Container[];
  containers?: Container[];
}

interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  readinessProbe?: { timeoutSeconds?: number };
  livenessProbe?: { timeoutSeconds?: number };
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } };
  envFrom?: { configMapRef?: { name: string; optional?: boolean } }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name?: string } } }[];
  ports?: { name?: string; containerPort?: number }[];
  lifecycle?: { preStop?: { exec?: { command?: string[] } } };
}

export interface ValidateOptions {
  /** Folder holding deploy/ and docker-compose.yml (the repository root). */
  root: string;
  kubectl?: string;
  natsServer?: string;
}

export async function validateDeploy(options: ValidateOptions): Promise<string[]> {
  const problems: string[] = [];
  const overlaysDir = path.join(options.root, "deploy", "overlays");
  const overlays = readdirSync(overlaysDir).filter((name) => statSync(path.join(overlaysDir, name)).isDirectory());
  if (overlays.length === 0) problems.push("deploy/overlays: no overlay found");
  const kubectl = options.kubectl ?? findBinary("kubectl");
  // Variables set against the variables each service's config schema reads (deploy-env.ts).
  const sources = path.resolve(import.meta.dirname, "..");
  const schemas = configSchemas(sources);
  const image = imageEnvironment(path.join(options.root, "Dockerfile"));
  for (const overlay of overlays) {
    const where = `deploy/overlays/${overlay}`;
    let objects: K8sObject[];
    try {
      objects = render(kubectl, path.join(overlaysDir, overlay));
    } catch (error) {
      problems.push(`${where}: kustomize failed: ${(error as Error).message.trim()}`);
      continue;
    }
    const say = (message: string) => problems.push(`${where}: ${message}`);
    for (const object of objects) for (const message of await schemaProblems(object)) say(`${id(object)}: ${message}`);
    for (const message of policyProblems(objects)) say(message);
    for (const message of connectionBudgetProblems(objects)) say(message);
    for (const message of await manifestEnvProblems(objects, image, schemas)) say(`environment: ${message}`);
    for (const message of natsConfProblems(objects, options.natsServer ?? findBinary("nats-server", ["/usr/sbin/nats-server"]))) say(message);
  }
  for (const message of composeProblems(path.join(options.root, "docker-compose.yml"))) problems.push(`docker-compose.yml: ${message}`);
  const compose = parse(readFileSync(path.join(options.root, "docker-compose.yml"), "utf8"), { merge: true });
  for (const message of await composeEnvProblems(compose, image, schemas)) problems.push(`docker-compose.yml: environment: ${message}`);
  const services = readdirSync(path.join(sources, "services"));
  for (const message of await imageEnvProblems(image, services, schemas)) problems.push(message);
  return problems;
}

function findBinary(name: string, fallbacks: string[] = []): string {
  for (const candidate of [name, ...fallbacks]) {
    if (spawnSync(candidate, ["--help"], { stdio: "ignore" }).error === undefined) return candidate;
  }
  throw new Error(
    `${name} is not installed: it is needed to validate deploy/ (${name === "kubectl" ? "kubectl >= 1.27, which embeds kustomize v5" : "the nats-server binary"}); install it and run again`,
  );
}

export function render(kubectl: string, dir: string): K8sObject[] {
  const out = execFileSync(kubectl, ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
  return parseAllDocuments(out)
    .map((doc) => doc.toJS())
    .filter((o) => o);
}

const id = (o: K8sObject) => `${o.kind}/${o.metadata?.name}`;

// ---------------------------------------------------------------------------------------------
// Schemas

const require = createRequire(import.meta.url);

async function schemaProblems(object: K8sObject): Promise<string[]> {
  if (!object.apiVersion || !object.kind) return ["apiVersion and kind are required"];
  const custom = CUSTOM_RESOURCES[`${object.apiVersion}/${object.kind}`];
  if (custom) return custom(object);
  const groupVersion = object.apiVersion; // "v1" for the core group, "apps/v1", "policy/v1", …
  let Model: (new (data: unknown) => { validate(): void }) | undefined;
  try {
    const module = await import(`kubernetes-models/${groupVersion}/${object.kind}`);
    Model = module[object.kind] ?? module.default;
  } catch {
    return [`no schema for ${object.apiVersion} ${object.kind}`];
  }
  try {
    new Model!(object).validate();
    return [];
  } catch (error) {
    return [`schema: ${(error as Error).message}`];
  }
}

const BARMAN_CLOUD_PLUGIN = "barman-cloud.cloudnative-pg.io";
/** Seconds a pod's grace period keeps beyond its preStop pause and longest drain. */
const GRACE_HEADROOM_SECONDS = 5;

/** Structural checks of the custom resources used (their operators validate the rest). */
const CUSTOM_RESOURCES: Record<string, (o: K8sObject) => string[]> = {
  "postgresql.cnpg.io/v1/Cluster": (o) => {
    const s = o.spec ?? {};
    const out = required(o, ["spec.instances", "spec.storage.size", "spec.bootstrap.initdb.database"]);
    if (typeof s.instances !== "number" || s.instances < 1) out.push("spec.instances must be a number >= 1");
    if (s.backup?.barmanObjectStore)
      out.push("spec.backup.barmanObjectStore is deprecated (CloudNativePG 1.26): archive through the barman-cloud plugin and an ObjectStore");
    for (const [i, plugin] of (s.plugins ?? []).entries()) {
      if (!plugin.name) out.push(`spec.plugins[${i}].name is required`);
      if (plugin.name === BARMAN_CLOUD_PLUGIN && !plugin.parameters?.barmanObjectName) out.push(`spec.plugins[${i}].parameters.barmanObjectName is required`);
    }
    for (const [i, role] of (s.managed?.roles ?? []).entries()) {
      if (!role.name) out.push(`spec.managed.roles[${i}].name is required`);
      if (role.login && !role.passwordSecret?.name) out.push(`spec.managed.roles[${i}] logs in but has no passwordSecret`);
    }
    return out;
  },
  "postgresql.cnpg.io/v1/ScheduledBackup": (o) => [
    ...required(o, ["spec.schedule", "spec.cluster.name"]),
    ...(o.spec?.method === "plugin" ? required(o, ["spec.pluginConfiguration.name"]) : []),
  ],
  "barmancloud.cnpg.io/v1/ObjectStore": (o) => required(o, ["spec.configuration.destinationPath"]),
  "cert-manager.io/v1/Certificate": (o) => {
    const out = required(o, ["spec.secretName", "spec.issuerRef.name"]);
    if (!o.spec?.dnsNames?.length && !o.spec?.commonName) out.push("spec.dnsNames or spec.commonName is required");
    return out;
  },
  "cert-manager.io/v1/Issuer": (o) =>
    (["selfSigned", "ca", "acme", "vault", "venafi"] as const).some((k) => o.spec?.[k])
      ? []
      : ["spec needs one issuer type (selfSigned, ca, acme, vault, venafi)"],
};

function required(o: K8sObject, paths: string[]): string[] {
  return paths.filter((p) => p.split(".").reduce<unknown>(member, o) === undefined).map((p) => `${p} is required`);
}

/** `value?.[key]` for a value of any type. */
function member(value: unknown, key: string): unknown {
  return value === null || value === undefined ? undefined : (value as Record<string, unknown>)[key];
}

// ---------------------------------------------------------------------------------------------
// Policy: what every workload must have to survive production.

export function policyProblems(objects: K8sObject[]): string[] {
  const out: string[] = [];
  const pdbs = objects.filter((o) => o.kind === "PodDisruptionBudget");
  const configMaps = new Set(objects.filter((o) => o.kind === "ConfigMap").map((o) => o.metadata.name));
  for (const workload of objects.filter((o) => WORKLOAD_KINDS.has(o.kind))) {
    const w = id(workload);
    const pod = workload.spec?.template?.spec ?? {};
    const labels: Record<string, string> = workload.spec?.template?.metadata?.labels ?? {};
    if (pod.automountServiceAccountToken !== false) out.push(`${w}: automountServiceAccountToken must be false`);
    if (pod.terminationGracePeriodSeconds === undefined) out.push(`${w}: terminationGracePeriodSeconds must be set (drain time plus headroom)`);
    if (pod.securityContext?.runAsNonRoot !== true) out.push(`${w}: securityContext.runAsNonRoot must be true`);
    if (pod.securityContext?.seccompProfile?.type !== "RuntimeDefault") out.push(`${w}: securityContext.seccompProfile.type must be RuntimeDefault`);
    if (workload.kind === "Deployment" && !((pod.topologySpreadConstraints?.length ?? 0) > 0)) out.push(`${w}: topologySpreadConstraints are missing`);
    const matchesPdb = pdbs.some((pdb) => Object.entries(pdb.spec?.selector?.matchLabels ?? { "": "" }).every(([k, v]) => labels[k] === v));
    if (!matchesPdb) out.push(`${w}: no PodDisruptionBudget selects its pods`);
    for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      const where = `${w} container ${c.name}`;
      const isInit = (pod.initContainers ?? []).includes(c);
      if (!isInit) {
        for (const probe of ["readinessProbe", "livenessProbe"] as const) {
          const settings = c[probe];
          if (!settings) out.push(`${where}: ${probe} is missing`);
          else if (settings.timeoutSeconds === undefined) out.push(`${where}: ${probe}.timeoutSeconds must be set`);
        }
      }
      for (const kind of ["requests", "limits"] as const) {
        for (const resource of ["cpu", "memory"])
          if (c.resources?.[kind]?.[resource] === undefined) out.push(`${where}: resources.${kind}.${resource} is missing`);
      }
      const sc = c.securityContext ?? {};
      if (sc.allowPrivilegeEscalation !== false) out.push(`${where}: securityContext.allowPrivilegeEscalation must be false`);
      if (sc.readOnlyRootFilesystem !== true) out.push(`${where}: securityContext.readOnlyRootFilesystem must be true`);
      if (!(sc.capabilities?.drop ?? []).includes("ALL")) out.push(`${where}: securityContext.capabilities.drop must include ALL`);
      if (!PINNED_IMAGE.test(c.image ?? "")) out.push(`${where}: image ${c.image} is not pinned to an exact version or digest`);
      for (const from of c.envFrom ?? []) {
        const name = from.configMapRef?.name;
        if (name && !from.configMapRef?.optional && !configMaps.has(name)) out.push(`${where}: ConfigMap ${name} is not in the render`);
      }
    }
  }
  // A Service must select some pods and name ports those pods have.
  const workloads = objects.filter((o) => WORKLOAD_KINDS.has(o.kind));
  for (const service of objects.filter((o) => o.kind === "Service" && o.spec?.selector)) {
    const selected = workloads.filter((w) => Object.entries(service.spec!.selector!).every(([k, v]) => w.spec?.template?.metadata?.labels?.[k] === v));
    if (selected.length === 0) {
      out.push(`${id(service)}: selects no pods`);
      continue;
    }
    const ports = new Set(
      selected.flatMap((w) => (w.spec!.template!.spec!.containers ?? []).flatMap((c) => (c.ports ?? []).flatMap((p) => [p.name, p.containerPort]))),
    );
    for (const port of service.spec!.ports ?? []) {
      const target = port.targetPort ?? port.port;
      if (!ports.has(target)) out.push(`${id(service)}: port ${port.name ?? port.port} targets ${target}, which its pods do not declare`);
    }
  }
  for (const hpa of objects.filter((o) => o.kind === "HorizontalPodAutoscaler")) {
    const target = objects.find((o) => o.kind === "Deployment" && o.metadata.name === hpa.spec?.scaleTargetRef?.name);
    if (!target) out.push(`${id(hpa)}: scales ${hpa.spec?.scaleTargetRef?.name}, which is not in the render`);
    // Every apply would reset the autoscaler's count to the manifest's.
    else if (target.spec?.replicas !== undefined) out.push(`${id(target)}: sets replicas although ${id(hpa)} scales it`);
  }
  // A Waybill pod's grace period holds its preStop pause and the longest drain (run-main.ts,
  // SHUTDOWN_TIMEOUT_MS) with headroom, so SIGKILL never lands on a drain that would finish.
  for (const workload of objects.filter((o) => WORKLOAD_KINDS.has(o.kind))) {
    const pod = workload.spec?.template?.spec ?? {};
    for (const c of pod.containers ?? []) {
      if (!/services\/[\w-]+\/dist\/main\.js/.test([...(c.command ?? []), ...(c.args ?? [])].join(" "))) continue;
      const command: string[] = c.lifecycle?.preStop?.exec?.command ?? [];
      const preStopSeconds = command[0] === "sleep" ? Number(command[1]) || 0 : 0;
      const needed = preStopSeconds + SHUTDOWN_TIMEOUT_MS / 1000 + GRACE_HEADROOM_SECONDS;
      if ((pod.terminationGracePeriodSeconds ?? 30) < needed)
        out.push(
          `${id(workload)}: terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds ?? 30} < ${needed} (preStop ${preStopSeconds} s + drain up to ${SHUTDOWN_TIMEOUT_MS / 1000} s + ${GRACE_HEADROOM_SECONDS} s)`,
        );
    }
  }
  // A cluster archiving through the barman-cloud plugin names an ObjectStore of the render.
  const objectStores = new Set(objects.filter((o) => o.kind === "ObjectStore").map((o) => o.metadata.name));
  for (const cluster of objects.filter((o) => o.kind === "Cluster")) {
    for (const plugin of cluster.spec?.plugins ?? []) {
      const store = plugin.parameters?.barmanObjectName;
      if (store && !objectStores.has(store)) out.push(`${id(cluster)}: plugin ${plugin.name} names ObjectStore ${store}, which is not in the render`);
    }
  }
  const defaultDeny = objects.some(
    (o) =>
      o.kind === "NetworkPolicy" &&
      Object.keys(o.spec?.podSelector ?? {}).length === 0 &&
      !o.spec?.ingress &&
      !o.spec?.egress &&
      ["Ingress", "Egress"].every((t) => o.spec?.policyTypes?.includes(t)),
  );
  if (!defaultDeny) out.push("no default-deny NetworkPolicy (empty podSelector, Ingress and Egress, no rules)");
  for (const ingress of objects.filter((o) => o.kind === "Ingress")) if (!((ingress.spec?.tls?.length ?? 0) > 0)) out.push(`${id(ingress)}: no TLS`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL connections: the most pods each service can run (HPA maximum, or replicas, plus the
// rolling update's surge) times the connections of one pod stays under max_connections.

export function connectionBudgetProblems(objects: K8sObject[]): string[] {
  const maxConnections = findMaxConnections(objects);
  if (maxConnections === undefined) return [];
  const hpas = new Map(objects.filter((o) => o.kind === "HorizontalPodAutoscaler").map((o) => [o.spec!.scaleTargetRef!.name, o.spec!.maxReplicas as number]));
  const configMaps = objects.filter((o) => o.kind === "ConfigMap");
  const roleLimits = new Map<string, number>();
  for (const cluster of objects.filter((o) => o.kind === "Cluster")) {
    for (const role of cluster.spec?.managed?.roles ?? [])
      if (role.passwordSecret?.name && role.connectionLimit !== undefined) roleLimits.set(role.passwordSecret.name, role.connectionLimit);
  }
  const out: string[] = [];
  let total = 0;
  const terms: string[] = [];
  for (const deployment of objects.filter((o) => o.kind === "Deployment")) {
    const container = deployment.spec!.template!.spec!.containers![0];
    const reads = (container.envFrom ?? []).map((f) => configMaps.find((c) => c.metadata.name === f.configMapRef?.name)?.data ?? {});
    const env = Object.assign({}, ...reads, Object.fromEntries((container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value])));
    if (!(container.env ?? []).some((e) => e.name === "DATABASE_URL")) continue;
    const pool = Number(env.DB_POOL_MAX ?? 10);
    const perPod = pool + (EXTRA_CONNECTIONS[deployment.metadata.name] ?? 0);
    const surge = Number(deployment.spec!.strategy?.rollingUpdate?.maxSurge ?? 1);
    const pods = (hpas.get(deployment.metadata.name) ?? deployment.spec!.replicas ?? 1) + (Number.isFinite(surge) ? surge : 1);
    total += pods * perPod;
    terms.push(`${deployment.metadata.name} ${pods}x${perPod}`);
    // A role's own limit (CloudNativePG managed roles) must admit what its pods may open.
    const secret = (container.env ?? []).find((e) => e.name === "DATABASE_USER")?.valueFrom?.secretKeyRef?.name;
    const limit = secret === undefined ? undefined : roleLimits.get(secret);
    if (limit !== undefined && limit >= 0 && limit < pods * perPod) {
      out.push(`PostgreSQL role of ${deployment.metadata.name} (${secret}): connectionLimit ${limit} < ${pods}x${perPod} its pods may open`);
    }
  }
  const budget = maxConnections - RESERVED_CONNECTIONS;
  if (total > budget)
    out.push(`PostgreSQL connections: ${terms.join(" + ")} = ${total} > max_connections ${maxConnections} - ${RESERVED_CONNECTIONS} reserved`);
  return out;
}

function findMaxConnections(objects: K8sObject[]): number | undefined {
  for (const o of objects) {
    if (o.kind === "Cluster" && o.apiVersion.startsWith("postgresql.cnpg.io/")) return Number(o.spec?.postgresql?.parameters?.max_connections ?? 100);
    if (o.kind === "StatefulSet" && o.metadata.name === "postgres") {
      const args: string[] = o.spec!.template!.spec!.containers![0].args ?? [];
      const setting = args.find((a) => a.startsWith("max_connections="));
      return setting ? Number(setting.split("=")[1]) : 100;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// nats.conf: the server's own parser, with throwaway certificates where the Secret would be.

function natsConfProblems(objects: K8sObject[], natsServer: string): string[] {
  const configs = objects.filter((o) => o.kind === "ConfigMap" && o.data?.["nats.conf"] !== undefined);
  if (configs.length === 0) return ["no ConfigMap with nats.conf"];
  const dir = mkdtempSync(path.join(tmpdir(), "waybill-nats-conf-"));
  try {
    const openssl = spawnSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=nats",
        "-keyout",
        path.join(dir, "tls.key"),
        "-out",
        path.join(dir, "tls.crt"),
      ],
      { stdio: "pipe" },
    );
    if (openssl.status !== 0) return [`openssl could not make a test certificate: ${openssl.stderr?.toString() || openssl.error?.message}`];
    writeFileSync(path.join(dir, "ca.crt"), readFileSync(path.join(dir, "tls.crt")));
    const out: string[] = [];
    for (const config of configs) {
      const text = config
        .data!["nats.conf"].replaceAll("/etc/nats/tls/", `${dir}/`)
        .replaceAll("/var/run/nats/", `${dir}/`)
        .replace(/store_dir:\s*\/data/, `store_dir: ${dir}/js`);
      const file = path.join(dir, "nats.conf");
      writeFileSync(file, text);
      const env = { ...process.env, SERVER_NAME: "nats-0", NATS_SYSTEM_PASSWORD: "x", NATS_WAYBILL_PASSWORD: "y" };
      const result = spawnSync(natsServer, ["-t", "-c", file], { env, encoding: "utf8" });
      if (result.status !== 0) out.push(`${id(config)} nats.conf: ${(result.stderr || result.stdout || String(result.error)).trim()}`);
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// docker-compose.yml: the Compose specification's schema, then what makes `up` start completely.

export function composeProblems(file: string): string[] {
  let compose: ComposeFile | null | undefined;
  try {
    compose = parse(readFileSync(file, "utf8"), { merge: true }); // compose files use << merge keys
  } catch (error) {
    return [`not YAML: ${(error as Error).message}`];
  }
  const schema = JSON.parse(readFileSync(composeSchemaFile(), "utf8"));
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
  const { $schema: _draft, ...spec } = schema; // draft-07, Ajv's default; the URL form is not registered
  const validate = ajv.compile(spec);
  const out: string[] = [];
  if (!validate(compose))
    for (const e of validate.errors ?? [])
      out.push(`schema: ${e.instancePath || "/"} ${e.message}${e.params && "additionalProperty" in e.params ? ` (${e.params.additionalProperty})` : ""}`);
  for (const [name, service] of Object.entries(compose?.services ?? {})) {
    if (!service.healthcheck?.test || service.healthcheck.disable) out.push(`service ${name}: no healthcheck`);
    const dependsOn = service.depends_on ?? {};
    if (Array.isArray(dependsOn) && dependsOn.length > 0) out.push(`service ${name}: depends_on must name condition service_healthy`);
    // (a list reaches here only when empty: no entries)
    else
      for (const [dep, rule] of Object.entries(dependsOn as Record<string, { condition?: string } | null>))
        if (rule?.condition !== "service_healthy") out.push(`service ${name}: depends on ${dep} without condition service_healthy`);
    const environment = Array.isArray(service.environment)
      ? Object.fromEntries(service.environment.map((e: string) => [e.split("=")[0], e.includes("=") ? e.slice(e.indexOf("=") + 1) : null]))
      : (service.environment ?? {});
    for (const [key, value] of Object.entries<unknown>(environment)) {
      // `${X}` alone turns an unset variable into an empty value without a word.
      if (value === null)
        out.push(`service ${name}: ${key} is passed through from the shell; give it a default (\${${key}:-…}) or require it (\${${key}:?message})`);
      else if (typeof value === "string" && /\$\{[A-Za-z_][A-Za-z0-9_]*\}/.test(value))
        out.push(`service ${name}: ${key}=${value} has neither a default (:-) nor a required message (:?)`);
    }
    for (const key of REQUIRED_COMPOSE_SECRETS[name] ?? []) {
      if (!new RegExp(`^\\$\\{${key}:\\?.+\\}$`).test(String(environment[key] ?? "")))
        out.push(`service ${name}: ${key} must be required with \${${key}:?message} (the service refuses to start without it)`);
    }
    for (const port of service.ports ?? []) {
      const published = typeof port === "string" ? port : `${port.host_ip ?? ""}:${port.published ?? ""}:${port.target}`;
      if (!/^(127\.0\.0\.1|\$\{[A-Z_]+:-127\.0\.0\.1\}):/.test(published)) out.push(`service ${name}: port ${published} is not bound to 127.0.0.1 by default`);
    }
  }
  return out;
}

/** The parts of a docker-compose.yml these checks read. */
interface ComposeFile {
  services?: Record<string, ComposeService>;
}

interface ComposeService {
  healthcheck?: { test?: unknown; disable?: boolean };
  depends_on?: string[] | Record<string, { condition?: string } | null>;
  environment?: string[] | Record<string, unknown>;
  ports?: (string | { host_ip?: string; published?: string | number; target?: string | number })[];
}

/** The Compose specification schema that dclint ships (its package exports do not list the file). */
function composeSchemaFile(): string {
  let dir = path.dirname(require.resolve("dclint"));
  while (!readdirSync(dir).includes("package.json")) dir = path.dirname(dir);
  return path.join(dir, "schemas", "compose.schema.json");
}

// ---------------------------------------------------------------------------------------------

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  validateDeploy({ root }).then(
    (problems) => {
      if (problems.length === 0) {
        console.log("deploy/ and docker-compose.yml are valid");
        return;
      }
      console.error(`${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
      process.exit(1);
    },
    (error) => {
      console.error(`validation could not run: ${(error as Error).message}`);
      process.exit(2);
    },
  );
}
