// Which messages of a stream a durable consumer takes, and why most of ours take them all.
//
// nats-server 2.9 up to 2.9.14 (2.9.15 rewrote it) keeps a count of a
// filtered consumer's pending messages and recomputes it from the stream's last file block
// whenever the count is unknown (filestore.go, filteredPendingLocked). For
// a filter over many subjects (one per device, tenant or hook) it then compares every message of
// the block against every subject, and when the consumer's position lies in the later half of that
// block the result loses its last sequence, so the count stays unknown and the scan runs again for
// every message delivered. A consumer info request (monitoring, our consumer health watch) is
// enough to start it. A consumer far behind then delivers a small fraction of its usual rate,
// with nats-server at a full core, until the stream begins a new block.
// A consumer without a filter never scans: its count is the stream's own.
//
// So a consumer that takes a whole stream sets no filter (not the stream's wildcard, which counts
// as a filter), and the device channel that is most of INGRESS (telemetry) takes the whole stream
// and skips other channels' messages itself (device-consumer.ts). Its declaration names
// filter_subject as undefined rather than leaving it out: nats.js merges an update into the
// durable's present configuration, so only an explicit undefined clears an earlier filter (and an
// empty string makes nats.js ask for an invalid subject).

/** Whether a subject matches a NATS subject pattern (`*` one token, `>` one or more at the end). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const wanted = pattern.split(".");
  const tokens = subject.split(".");
  for (let i = 0; i < wanted.length; i++) {
    if (wanted[i] === ">") return tokens.length > i;
    if (i >= tokens.length || (wanted[i] !== "*" && wanted[i] !== tokens[i])) return false;
  }
  return tokens.length === wanted.length;
}
