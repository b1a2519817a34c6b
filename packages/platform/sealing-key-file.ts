// `npm start` without a sealing key setting: one key per data folder, made on the first start and
// read on the next, so what it sealed survives restarts of the local system.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { generateSealingKey, parseSealingKey } from "./sealed-box.js";

/** Returns the base64 key stored in `dataDir/fileName`, creating it (mode 0600) when missing. */
export async function ensureSealingKeyFile(dataDir: string, fileName: string): Promise<string> {
  const file = path.join(dataDir, fileName);
  try {
    const stored = (await readFile(file, "utf8")).trim();
    parseSealingKey(stored, file);
    return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`${file}: ${(error as Error).message}`);
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // "wx": never overwrite a key another starter wrote a moment ago.
  await writeFile(file, `${generateSealingKey()}\n`, { mode: 0o600, flag: "wx" }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  return (await readFile(file, "utf8")).trim();
}
