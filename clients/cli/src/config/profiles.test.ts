import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configDir, profileNames, profilesPath, readProfile, removeProfile, writeProfile, type Profile } from "./profiles.js";

let home: string;
let env: NodeJS.ProcessEnv;
const profile = (token: string): Profile => ({ url: "http://127.0.0.1:8080", token, credential: "cli", savedAt: "2026-01-01T00:00:00.000Z" });

beforeEach(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), "waybill-profiles-"));
  env = { XDG_CONFIG_HOME: home };
});
afterEach(() => rm(home, { recursive: true, force: true }));

describe("profiles", () => {
  it("live in $XDG_CONFIG_HOME/waybill, the file readable by its owner only", async () => {
    await writeProfile("default", profile("cli-a"), env);
    expect(profilesPath(env)).toBe(path.join(home, "waybill", "profiles.json"));
    expect((await stat(profilesPath(env))).mode & 0o777).toBe(0o600);
    expect((await stat(configDir(env))).mode & 0o777).toBe(0o700);
    expect(await readdir(configDir(env))).toEqual(["profiles.json"]); // no temporary file left behind
  });

  it("are kept apart by name and removed one at a time", async () => {
    await writeProfile("default", profile("cli-a"), env);
    await writeProfile("ci", profile("cli-b"), env);
    expect(await profileNames(env)).toEqual(["ci", "default"]);
    expect((await readProfile("ci", env))?.token).toBe("cli-b");
    expect(await removeProfile("ci", env)).toBe(true);
    expect(await removeProfile("ci", env)).toBe(false);
    expect(await readProfile("ci", env)).toBeUndefined();
    expect((await readProfile("default", env))?.token).toBe("cli-a");
    // A name that is an Object property is still just a name.
    expect(await readProfile("constructor", env)).toBeUndefined();
  });

  it("fall back to ~/.config when XDG_CONFIG_HOME is unset or relative", () => {
    expect(configDir({})).toBe(path.join(os.homedir(), ".config", "waybill"));
    expect(configDir({ XDG_CONFIG_HOME: "relative" })).toBe(path.join(os.homedir(), ".config", "waybill"));
  });
});
