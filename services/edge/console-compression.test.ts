import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { chooseEncoding, compressible, createCompressedCache } from "./console-compression.js";

const dir = await mkdtemp(path.join(os.tmpdir(), "console-compression-"));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("console compression", () => {
  it("prefers brotli, falls back to gzip, and honours q=0", () => {
    expect(chooseEncoding("gzip, deflate, br, zstd")).toBe("br");
    expect(chooseEncoding("gzip, deflate")).toBe("gzip");
    expect(chooseEncoding("br;q=0, gzip")).toBe("gzip");
    expect(chooseEncoding("identity")).toBeUndefined();
    expect(chooseEncoding(undefined)).toBeUndefined();
  });

  it("compresses text files only", () => {
    expect(compressible(".js", 300_000)).toBe(true);
    expect(compressible(".png", 3_000)).toBe(false);
    expect(compressible(".js", 50 * 1024 * 1024)).toBe(false);
  });

  it("serves a new build's file, not the cached old one", async () => {
    const file = path.join(dir, "app.js");
    const compressed = createCompressedCache();
    await writeFile(file, "console.log('first build');".repeat(50));
    expect(brotliDecompressSync(await compressed(file, "v1", "br")).toString()).toContain("first build");
    await writeFile(file, "console.log('second build');".repeat(50));
    expect(gunzipSync(await compressed(file, "v2", "gzip")).toString()).toContain("second build");
    expect(brotliDecompressSync(await compressed(file, "v2", "br")).toString()).toContain("second build");
  });
});
