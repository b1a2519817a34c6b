// `npm start` without WEBHOOK_SECRET_KEY: one key per data folder, made on the first start and
// read on the next, so hook secrets survive restarts of the local system.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { generateSecretKey, parseSecretKey } from "./secrets.js";

export const SECRET_KEY_FILE = "webhook-secret-key";

/** Returns the base64 key stored in `dataDir`, creating it (mode 0600) when missing. */
export async function ensureSecretKeyFile(dataDir: string): Promise<string> {
  const file = path.join(dataDir, SECRET_KEY_FILE);
  try {
    const stored = (await readFile(file, "utf8")).trim();
    parseSecretKey(stored);
    return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`${file}: ${(error as Error).message}`);
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const key = generateSecretKey();
  // "wx": never overwrite a key another starter wrote a moment ago.
  await writeFile(file, `${key}\n`, { mode: 0o600, flag: "wx" }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  return (await readFile(file, "utf8")).trim();
}
