// The chaos run in every CI run, with short phases (`npm run chaos` runs longer ones): every
// service killed with SIGKILL in turn, NATS killed and restarted, PostgreSQL restarted, all under
// load with hooks registered. Nothing committed may be lost or delivered without committing,
// stock and reservations must agree, no message may be left unacknowledged, and every service
// must come back to ready by itself.
import { describe, expect, it } from "vitest";
import { FAULTS, formatReport, runChaos, type ChaosReport } from "./chaos/run-chaos.js";

describe("chaos: faults under load, then reconciliation", () => {
  it("loses nothing, delivers nothing that did not commit, and every service recovers by itself", { timeout: 600_000 }, async () => {
    const report: ChaosReport = await runChaos({ phaseMs: 2_000, downMs: 1_000 });
    console.info(formatReport(report));
    expect(report.faults.map((f) => f.fault)).toEqual([...FAULTS]);
    for (const f of report.faults) {
      expect(f.committed, `${f.fault}: the load kept committing changes`).toBeGreaterThan(0);
      expect(f.lost, f.fault).toEqual([]);
      expect(f.phantoms, f.fault).toEqual([]);
    }
    expect(report.overall.lost).toEqual([]);
    expect(report.overall.phantoms).toEqual([]);
    expect(report.overall.delivered).toBe(report.overall.committed);
    expect(report.stockProblems).toEqual([]);
    expect(report.unsettled).toEqual([]);
    expect(report.deadLetters).toBe(0);
  });
});
