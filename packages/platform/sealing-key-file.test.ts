import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureSealingKeyFile } from "./sealing-key-file.js";

const SECRET_KEY_FILE = "some-secret-key";
const ensureSecretKeyFile = (dataDir: string) => ensureSealingKeyFile(dataDir, SECRET_KEY_FILE);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "waybill-key-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("ensureSealingKeyFile", () => {
  it("makes a 32-byte key readable only by its owner, and answers the same key on the next start", async () => {
    const data = path.join(dir, "data");
    const first = await ensureSecretKeyFile(data);
    expect(Buffer.from(first, "base64")).toHaveLength(32);
    expect((await stat(path.join(data, SECRET_KEY_FILE))).mode & 0o777).toBe(0o600);
    expect(await ensureSecretKeyFile(data)).toBe(first);
  });

  it("refuses a file that does not hold a key rather than replacing it", async () => {
    await writeFile(path.join(dir, SECRET_KEY_FILE), "not a key\n");
    await expect(ensureSecretKeyFile(dir)).rejects.toThrow(/32 bytes/);
    expect(await readFile(path.join(dir, SECRET_KEY_FILE), "utf8")).toBe("not a key\n");
  });
});
