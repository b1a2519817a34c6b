// An event's row of the event log, as the intake's statement takes it (fan-out.ts), in a module
// of its own with no imports: bench:webhooks' floor with an event log builds the same rows.

/** An event's row of the event log as JSON: its fields, and the event itself (`eventJson`, as received). */
export function eventLogRow(
  tenantId: string,
  event: { id: string; kind: string; time: string; transactionId: string },
  eventJson: string,
  streamSeq: number,
): string {
  const fields = JSON.stringify({
    id: event.id,
    tenant_id: tenantId,
    kind: event.kind,
    time: event.time,
    transaction_id: event.transactionId,
    stream_seq: streamSeq,
  });
  return `${fields.slice(0, -1)},"event":${eventJson}}`;
}
