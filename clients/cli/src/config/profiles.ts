// Stored credentials: one JSON file in the user's config directory ($XDG_CONFIG_HOME/waybill,
// ~/.config/waybill by default), readable by its owner only (0600, in a 0700 directory), holding
// named profiles. Writes go to a temporary file renamed over the old one, so a crash never
// leaves half a file.
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export const DEFAULT_PROFILE = "default";
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export interface Profile {
  url: string;
  token: string;
  /** The API token's type; "session" for a short session kept when no token could be created. */
  credential: "session" | "api" | "cli" | "machine" | "sensor";
  /** Who logged in with a password (the token was created for them). */
  email?: string;
  /** When the credential stops working (ISO 8601). */
  expiresAt?: string;
  /** The API token's id (tok_…) and name, when login created it: logout revokes it. */
  tokenId?: string;
  tokenName?: string;
  createdByLogin?: boolean;
  savedAt: string;
}

interface ProfilesFile {
  profiles: Record<string, Profile>;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), ".config");
  return path.join(base, "waybill");
}

export function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), "profiles.json");
}

async function load(env: NodeJS.ProcessEnv): Promise<ProfilesFile> {
  let text: string;
  try {
    text = await readFile(profilesPath(env), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ProfilesFile>;
    return { profiles: parsed.profiles && typeof parsed.profiles === "object" ? parsed.profiles : {} };
  } catch {
    throw new Error(`${profilesPath(env)} is not valid JSON; fix or delete it`);
  }
}

async function save(file: ProfilesFile, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: DIR_MODE });
  const target = profilesPath(env);
  const temporary = `${target}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: FILE_MODE });
  await chmod(temporary, FILE_MODE); // the umask may have narrowed it further, never widened; be exact
  await rename(temporary, target);
}

export async function readProfile(name: string, env: NodeJS.ProcessEnv = process.env): Promise<Profile | undefined> {
  const file = await load(env);
  return Object.hasOwn(file.profiles, name) ? file.profiles[name] : undefined;
}

export async function writeProfile(name: string, profile: Profile, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const file = await load(env);
  file.profiles[name] = profile;
  await save(file, env);
}

/** Removes a profile; false when there was none. */
export async function removeProfile(name: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const file = await load(env);
  if (!Object.hasOwn(file.profiles, name)) return false;
  delete file.profiles[name];
  await save(file, env);
  return true;
}

export async function profileNames(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  return Object.keys((await load(env)).profiles).sort();
}
