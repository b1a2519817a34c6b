// Compressed copies of the console's text files (scripts, styles, index.html, the manifest), made
// once per file version and kept in memory: the built console is a few hundred kilobytes, and a
// phone on a slow network downloads a third of it. Brotli when the browser takes it, else gzip.
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

const COMPRESSIBLE = new Set([".html", ".js", ".css", ".svg", ".json", ".webmanifest", ".txt"]);
/** Larger files are sent as they are (nothing the console builds comes near). */
const MAX_BYTES = 4 * 1024 * 1024;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export type Encoding = "br" | "gzip";

/** The encoding to answer with for this Accept-Encoding, if any. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  const offered = (acceptEncoding ?? "")
    .toLowerCase()
    .split(",")
    .map((part) => part.trim())
    .filter((part) => !/;\s*q=0(\.0*)?$/.test(part))
    .map((part) => part.split(";")[0]);
  if (offered.includes("br")) return "br";
  if (offered.includes("gzip")) return "gzip";
  return undefined;
}

export function compressible(extension: string, size: number): boolean {
  return COMPRESSIBLE.has(extension) && size <= MAX_BYTES;
}

/** Compressed bodies by file, encoding and version (mtime and size), made on first request. */
export function createCompressedCache(): (file: string, version: string, encoding: Encoding) => Promise<Buffer> {
  const cache = new Map<string, Promise<Buffer>>();
  return (file, version, encoding) => {
    const key = `${encoding}:${file}:${version}`;
    let body = cache.get(key);
    if (!body) {
      body = readFile(file).then((raw) =>
        encoding === "br"
          ? brotli(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } })
          : gzipAsync(raw, { level: 9 }),
      );
      // A file replaced by a new build gets a new version; drop what an old one left behind.
      for (const old of cache.keys()) if (old.startsWith(`${encoding}:${file}:`)) cache.delete(old);
      cache.set(key, body);
      body.catch(() => cache.delete(key));
    }
    return body;
  };
}
