// What `npm start` remembers in its data folder between starts: the ports it chose (so devices
// and scripts configured once keep working when 1883 or 8080 was taken) and the database it
// used (so `npm run admin` finds a private PostgreSQL the launcher started).
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

export const LOCAL_STATE_FILE = "launcher-state.json";
export const DEFAULT_DATA_DIR = "./.data";

const localStateSchema = z.object({
  httpPort: z.number().int().min(1).max(65_535).optional(),
  mqttPort: z.number().int().min(1).max(65_535).optional(),
  databaseUrl: z.string().optional(),
});

export type LocalState = z.output<typeof localStateSchema>;

/** The state kept in `dataDir`; empty when there is none or it cannot be read (it is only a hint). */
export async function readLocalState(dataDir: string): Promise<LocalState> {
  try {
    const parsed = localStateSchema.safeParse(JSON.parse(await readFile(path.join(dataDir, LOCAL_STATE_FILE), "utf8")));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** Merges `changes` into the state kept in `dataDir` (written whole, then renamed into place). */
export async function updateLocalState(dataDir: string, changes: LocalState): Promise<void> {
  const next = { ...(await readLocalState(dataDir)), ...changes };
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, LOCAL_STATE_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}
