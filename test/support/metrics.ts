// Reads one series of a service's /metrics (Prometheus text), for tests that wait on a counter.

/** The value of the first series matching `pattern` on the ops port, 0 when there is none yet. */
export async function metric(opsPort: number, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  const line = text.split("\n").find((l) => !l.startsWith("#") && pattern.test(l));
  return line ? Number(line.split(" ").pop()) : 0;
}
