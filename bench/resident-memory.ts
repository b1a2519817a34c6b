// Resident memory of each named process (Linux /proc; elsewhere nothing is printed): what a
// benchmark's load left each service holding, against the heap its Node flags allow.
import { readFileSync } from "node:fs";

export function formatResidentMemory(pids: Record<string, number>): string | undefined {
  const parts: string[] = [];
  for (const [name, pid] of Object.entries(pids)) {
    try {
      const kb = Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m)?.[1]);
      if (kb) parts.push(`${name} ${(kb / 1024).toFixed(0)}`);
    } catch {
      // Not Linux, or the process has gone.
    }
  }
  return parts.length ? `  resident memory MB: ${parts.join(", ")}` : undefined;
}
