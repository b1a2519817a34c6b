// Where the first start's generated credentials go. Never into the logs: a log line is copied to
// aggregators and kept for months. A service writes them to a file only its user can read, and
// logs where; the local launcher shows them on the terminal it runs in, or writes that file too.
import { chmod, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { BootstrapResult } from "./bootstrap.js";

export const DEFAULT_BOOTSTRAP_CREDENTIALS_FILE = path.join(os.tmpdir(), "waybill-bootstrap-credentials");

/** What the first start created, as the lines a person reads (secrets included). */
export function bootstrapCredentialsText(result: BootstrapResult): string {
  const lines = [`Waybill first start: created tenant "default" (${result.tenantId}) and admin ${result.adminEmail}.`];
  if (result.generatedAdminPassword) lines.push(`  admin password: ${result.generatedAdminPassword}`);
  if (result.generatedApiToken) lines.push(`  API token:      ${result.generatedApiToken}`);
  if (result.generatedAdminPassword || result.generatedApiToken) lines.push("  These are shown only once; keep them now.");
  return `${lines.join("\n")}\n`;
}

export function hasGeneratedSecrets(result: BootstrapResult): boolean {
  return Boolean(result.generatedAdminPassword || result.generatedApiToken);
}

/** Writes the credentials to `file`, readable by this user only (0600, also when it existed). */
export async function writeCredentialsFile(file: string, result: BootstrapResult): Promise<void> {
  await writeFile(file, bootstrapCredentialsText(result), { mode: 0o600 });
  await chmod(file, 0o600);
}
