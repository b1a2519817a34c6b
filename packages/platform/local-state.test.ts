import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LOCAL_STATE_FILE, readLocalState, updateLocalState } from "./local-state.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "waybill-state-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("local state of the data folder", () => {
  it("is empty when there is none, and merges updates", async () => {
    const dir = tempDir();
    expect(await readLocalState(dir)).toEqual({});
    await updateLocalState(dir, { databaseUrl: "postgres://127.0.0.1:5432/waybill" });
    await updateLocalState(dir, { mqttPort: 34629 });
    expect(await readLocalState(dir)).toEqual({ databaseUrl: "postgres://127.0.0.1:5432/waybill", mqttPort: 34629 });
    expect(JSON.parse(readFileSync(path.join(dir, LOCAL_STATE_FILE), "utf8"))).toEqual({ databaseUrl: "postgres://127.0.0.1:5432/waybill", mqttPort: 34629 });
  });

  it("creates the data folder, and reads a damaged file as empty (it is only a hint)", async () => {
    const dir = path.join(tempDir(), "nested", "data");
    await updateLocalState(dir, { httpPort: 8081 });
    expect(await readLocalState(dir)).toEqual({ httpPort: 8081 });
    writeFileSync(path.join(dir, LOCAL_STATE_FILE), "{not json");
    expect(await readLocalState(dir)).toEqual({});
    writeFileSync(path.join(dir, LOCAL_STATE_FILE), JSON.stringify({ mqttPort: 99999 }));
    expect(await readLocalState(dir)).toEqual({});
  });
});
