// Destructive commands ask first on a terminal; scripts must say --yes.
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { canPrompt, confirm } from "../prompt.js";

/** True to go ahead; false when the user said no. */
export async function confirmed(context: Context, question: string, yes: boolean | undefined): Promise<boolean> {
  if (yes) return true;
  if (!canPrompt()) throw new UsageError("refusing to do this without a terminal to confirm on: add --yes");
  const ok = await confirm(question);
  if (!ok) context.print.note("Cancelled; nothing changed.");
  return ok;
}
