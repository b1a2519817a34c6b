// What the dispatcher requires of a message on EVENTS before it joins a batch: JSON with the
// envelope every event has. Anything else can never be recorded (PoisonMessage: a dead letter
// at once), where in a batch it would fail every event beside it.
import { z } from "zod";
import { PoisonMessage } from "@waybill/platform/dead-letters.js";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";

const envelope = z.object({
  id: z.string().regex(/^evt_[0-9a-z]{10,64}$/),
  kind: z.string().min(1).max(100),
  time: z.iso.datetime({ offset: true }),
  transactionId: z.string().min(1).max(128),
});

/** The event parsed from its text, when it has the envelope; PoisonMessage otherwise. */
export function checkIncomingEvent(text: string): EventEnvelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new PoisonMessage("event is not JSON");
  }
  const checked = envelope.safeParse(parsed);
  if (!checked.success)
    throw new PoisonMessage(`event envelope invalid: ${checked.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  return parsed as EventEnvelope;
}
