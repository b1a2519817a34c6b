// JSON bodies from a file or standard input (--file PATH, --file -).
import { readFile } from "node:fs/promises";
import { UsageError } from "./errors.js";

export async function readJsonFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = file === "-" ? await readStdin() : await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file === "-" ? "standard input" : file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file === "-" ? "standard input" : file} is not valid JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new UsageError(`${file === "-" ? "standard input" : file} must hold one JSON object`);
  return value as Record<string, unknown>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Only the options that were given (commander leaves the others undefined). */
export function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}
