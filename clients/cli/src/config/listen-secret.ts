// The signing secret `waybill listen` forwards with, one per profile, kept next to the profiles
// (listen.json, 0600) so that a receiver configured once keeps verifying across runs.
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { configDir } from "./profiles.js";

const FILE_MODE = 0o600;

export function listenSecretsPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), "listen.json");
}

async function load(env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  try {
    const parsed = JSON.parse(await readFile(listenSecretsPath(env), "utf8")) as { secrets?: Record<string, string> };
    return parsed.secrets && typeof parsed.secrets === "object" ? parsed.secrets : {};
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || error instanceof SyntaxError) return {};
    throw error;
  }
}

/** The profile's secret, created with `generate` and stored the first time. */
export async function listenSecret(profile: string, generate: () => string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const secrets = await load(env);
  if (Object.hasOwn(secrets, profile)) return secrets[profile];
  secrets[profile] = generate();
  await mkdir(configDir(env), { recursive: true, mode: 0o700 });
  const target = listenSecretsPath(env);
  const temporary = `${target}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ secrets }, null, 2)}\n`, { mode: FILE_MODE });
  await chmod(temporary, FILE_MODE);
  await rename(temporary, target);
  return secrets[profile];
}
