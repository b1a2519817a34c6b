// The environment variables deploy/ and docker-compose.yml set, compared with what each service's
// configuration schema (services/<name>/config.ts, zod) reads: a name no service reads is a typo
// or a leftover (the service silently uses its default), and a variable the schema requires that
// nothing sets stops the service at start. Part of `npm run validate:deploy`.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";

/** Names read by Node itself or npm, not by a Waybill schema. */
const RUNTIME_NAMES = new Set(["NODE_EXTRA_CA_CERTS", "NODE_OPTIONS", "NODE_ENV"]);
const RUNTIME_PREFIXES = ["NPM_CONFIG_"];
/** A Waybill container runs `services/<name>/dist/main.js`. */
const ENTRY = /services\/([\w-]+)\/dist\/main\.js/;
/** Kubernetes expands $(NAME) in a value from the container's other variables. */
const REFERENCE = /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g;

/** A value the manifest does not show (from a Secret, a field, a shell variable). */
export const HIDDEN = Symbol("hidden");
type Value = string | typeof HIDDEN;

/** One place a container's variables come from, and every service that reads that place. */
interface Source {
  label: string;
  values: Map<string, Value>;
  readers: Set<string>;
}

export interface ServiceEnvironment {
  service: string;
  /** Every variable the service's process sees (image ENV, then the manifest), as the manifest gives it. */
  values: Map<string, Value>;
}

export interface ConfigSchemas {
  /** The variables the service's config schema reads, or undefined when it has no config.ts. */
  names(service: string): Promise<Set<string> | undefined>;
  /** Problems of one complete environment: invalid values and required variables left unset. */
  check(service: string, env: Map<string, Value>): Promise<{ name: string; message: string }[]>;
}

/** The zod schemas in services/<service>/config.ts (the export whose name ends in ConfigSchema). */
export function configSchemas(root: string): ConfigSchemas {
  const cache = new Map<string, Promise<z.ZodObject | undefined>>();
  const load = (service: string) => {
    if (!cache.has(service)) {
      const file = path.join(root, "services", service, "config.ts");
      cache.set(
        service,
        import(file).then(
          (module: Record<string, unknown>) => Object.entries(module).find(([name]) => name.endsWith("ConfigSchema"))?.[1] as z.ZodObject | undefined,
          () => undefined,
        ),
      );
    }
    return cache.get(service)!;
  };
  return {
    async names(service) {
      const schema = await load(service);
      return schema && new Set(Object.keys(schema.shape));
    },
    async check(service, env) {
      const schema = await load(service);
      if (!schema) return [];
      // Hidden and interpolated values cannot be judged: they count as set, with a value that is
      // not looked at (issues about set-but-unknown values are dropped below).
      const input = Object.fromEntries([...env].filter(([, v]) => v !== "").map(([k, v]) => [k, typeof v === "string" ? v : "hidden"]));
      const unjudged = new Set([...env].filter(([, v]) => typeof v !== "string" || /\$\(|\$\{/.test(v)).map(([k]) => k));
      const result = schema.safeParse(input);
      if (result.success) return [];
      return result.error.issues
        .map((issue) => ({ name: String(issue.path[0]), message: issue.message }))
        .filter(({ name }) => !unjudged.has(name))
        .map(({ name, message }) => (input[name] === undefined ? { name, message: `is required and no manifest sets it (${message})` } : { name, message }));
    },
  };
}

const isRuntimeName = (name: string) => RUNTIME_NAMES.has(name) || RUNTIME_PREFIXES.some((p) => name.startsWith(p));

/** The variables the final stage of the Dockerfile sets with ENV. */
export function imageEnvironment(dockerfile: string): Map<string, Value> {
  const text = readFileSync(dockerfile, "utf8").replace(/\\\n/g, " ");
  const stage = text.slice(text.lastIndexOf("\nFROM "));
  const env = new Map<string, Value>();
  for (const line of stage.split("\n").filter((l) => /^ENV\s/.test(l))) {
    for (const [, name, value] of line.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) env.set(name, value.replace(/^"|"$/g, ""));
  }
  return env;
}

interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
}
interface PodSpec {
  initContainers?: Container[];
  containers?: Container[];
}
type K8sObject = {
  kind: string;
  metadata: { name: string };
  spec?: { template?: { spec?: PodSpec }; jobTemplate?: { spec?: { template?: { spec?: PodSpec } } } };
  data?: Record<string, string>;
};
interface ComposeService {
  entrypoint?: string | string[];
  command?: string | string[];
  environment?: unknown;
}

interface ContainerSources {
  label: string;
  service: string;
  sources: Source[];
}

/** Each Waybill container of a rendered overlay with where its variables come from (ConfigMaps shared). */
function containerSources(objects: K8sObject[]): ContainerSources[] {
  const configMaps = new Map(objects.filter((o) => o.kind === "ConfigMap").map((o) => [o.metadata.name, o.data ?? {}]));
  const sharedSources = new Map<string, Source>();
  const containers: ContainerSources[] = [];
  for (const workload of objects.filter((o) => ["Deployment", "StatefulSet", "Job", "CronJob"].includes(o.kind))) {
    const pod = workload.kind === "CronJob" ? workload.spec?.jobTemplate?.spec?.template?.spec : workload.spec?.template?.spec;
    for (const c of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
      const service = [...(c.command ?? []), ...(c.args ?? [])].join(" ").match(ENTRY)?.[1];
      if (!service) continue; // not a Waybill service (NATS, PostgreSQL, a tool)
      const label = `${workload.kind}/${workload.metadata.name} container ${c.name}`;
      const sources: Source[] = [];
      for (const from of c.envFrom ?? []) {
        const name = from.configMapRef?.name;
        if (!name) continue; // a Secret's keys are not in the render
        if (!sharedSources.has(name)) {
          const data = configMaps.get(name) ?? {};
          sharedSources.set(name, { label: `ConfigMap ${name}`, values: new Map(Object.entries(data)), readers: new Set() });
        }
        const source = sharedSources.get(name)!;
        source.readers.add(service);
        sources.push(source);
      }
      const own = new Map<string, Value>((c.env ?? []).map((e) => [e.name, e.value ?? (e.valueFrom ? HIDDEN : "")]));
      sources.push({ label, values: own, readers: new Set([service]) });
      containers.push({ label, service, sources });
    }
  }
  return containers;
}

/** The environment each Waybill container of a rendered overlay gets from its manifest (image ENV not included). */
export function containerEnvironments(objects: K8sObject[]): ServiceEnvironment[] {
  return containerSources(objects).map(({ service, sources }) => ({
    service,
    values: new Map(sources.flatMap((source) => [...source.values])),
  }));
}

/** Problems of one rendered overlay; `image` is what the Dockerfile's ENV sets. */
export async function manifestEnvProblems(objects: K8sObject[], image: Map<string, Value>, schemas: ConfigSchemas): Promise<string[]> {
  const containers = containerSources(objects);
  const problems: string[] = [];
  // Names a container's values expand with $(NAME) are used by the manifest itself.
  const referenced = new Map<Source, Set<string>>();
  for (const { sources } of containers) {
    const names = new Set(sources.flatMap((source) => [...referencedNames(source.values)]));
    for (const source of sources) referenced.set(source, new Set([...(referenced.get(source) ?? []), ...names]));
  }
  // Unknown names: a ConfigMap several services load needs one reader of each name.
  for (const [source, used] of referenced) {
    for (const name of source.values.keys()) {
      if (isRuntimeName(name) || used.has(name)) continue;
      const readers = await readersOf(name, source.readers, schemas);
      if (readers?.length === 0) problems.push(`${source.label} sets ${name}, which ${describeReaders(source.readers)}`);
    }
  }
  // Required names and invalid values: the complete environment of each container.
  for (const { label, service, sources } of containers) {
    const env = new Map(image);
    for (const source of sources) for (const [k, v] of source.values) env.set(k, v);
    for (const { name, message } of await schemas.check(service, env)) problems.push(`${label}: ${name} ${message}`);
  }
  return problems;
}

/** Problems of docker-compose.yml (already parsed with merge keys). */
export async function composeEnvProblems(
  compose: { services?: Record<string, ComposeService> } | undefined,
  image: Map<string, Value>,
  schemas: ConfigSchemas,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, definition] of Object.entries(compose?.services ?? {})) {
    const command = [definition.entrypoint, definition.command].flat().filter(Boolean).join(" ");
    const service = command.match(ENTRY)?.[1];
    if (!service) continue;
    const values = composeEnvironment(definition.environment);
    for (const variable of values.keys()) {
      if (isRuntimeName(variable)) continue;
      const readers = await readersOf(variable, new Set([service]), schemas);
      if (readers?.length === 0) problems.push(`service ${name} sets ${variable}, which ${service} does not read`);
    }
    const env = new Map([...image, ...values]);
    for (const { name: variable, message } of await schemas.check(service, env)) problems.push(`service ${name}: ${variable} ${message}`);
  }
  return problems;
}

/** Problems of the image itself: ENV names no service reads. */
export async function imageEnvProblems(image: Map<string, Value>, services: string[], schemas: ConfigSchemas): Promise<string[]> {
  const problems: string[] = [];
  for (const name of image.keys()) {
    if (isRuntimeName(name)) continue;
    const readers = await readersOf(name, new Set(services), schemas);
    if (readers?.length === 0) problems.push(`Dockerfile sets ENV ${name}, which no service reads`);
  }
  return problems;
}

function composeEnvironment(environment: unknown): Map<string, Value> {
  const values = new Map<string, Value>();
  if (Array.isArray(environment)) {
    for (const entry of environment as string[]) {
      const at = entry.indexOf("=");
      values.set(at < 0 ? entry : entry.slice(0, at), at < 0 ? HIDDEN : entry.slice(at + 1));
    }
  } else {
    for (const [k, v] of Object.entries(environment ?? {})) values.set(k, v === null || v === undefined ? HIDDEN : String(v));
  }
  // `${NAME:-default}` or `${NAME:?message}`: set from the shell; the value is the operator's.
  for (const [k, v] of values) if (typeof v === "string" && v.includes("${")) values.set(k, HIDDEN);
  return values;
}

function referencedNames(values: Map<string, Value>): Set<string> {
  const names = new Set<string>();
  for (const value of values.values()) if (typeof value === "string") for (const [, name] of value.matchAll(REFERENCE)) names.add(name);
  return names;
}

/** The services among `services` whose schema reads `name`; undefined when none of them has a schema. */
async function readersOf(name: string, services: Set<string>, schemas: ConfigSchemas): Promise<string[] | undefined> {
  const readers: string[] = [];
  let known = false;
  for (const service of services) {
    const names = await schemas.names(service);
    if (!names) continue;
    known = true;
    if (names.has(name)) readers.push(service);
  }
  return known ? readers : undefined;
}

function describeReaders(readers: Set<string>): string {
  const list = [...readers].sort();
  return list.length === 1 ? `services/${list[0]}/config.ts does not read` : `no service loading it (${list.join(", ")}) reads`;
}
