// Whether any hook changed since a moment: a new event's deliveries are signed when the event is
// taken in (fan-out.ts), with the hook's url, status and secret read then, and may be sent that way
// only if no hook was paused, edited, rotated or deleted since (the deliverer reads the state again
// otherwise). Each such change notifies (migration 011); this process listens on a connection of
// its own. Changes are rare, so one number for all hooks does: any change, or any moment when the
// listening connection is lost (a notification may have been missed), moves it.
import type { Logger } from "@waybill/platform/logger.js";
import { createPool, type PoolClient } from "@waybill/platform/db.js";

export const HOOK_CHANGED_CHANNEL = "dispatcher_hook_changed";
/** Connections this opens (the connection budget counts them: scripts/validate-deploy.ts). */
export const HOOK_CHANGES_CONNECTIONS = 1;
/** How long to wait before listening again after the connection was lost. */
export const RELISTEN_DELAY_MS = 1_000;

/** What a writer of hooks needs of HookChanges (hooks.ts, the auto-disable). */
export interface HookChangeSignal {
  /**
   * A change of a hook made by this process has committed: moves the mark now, before the caller
   * answers. Its notification comes a little later, and a delivery taken in between could go out
   * with what the intake had signed (a paused hook's receiver got 3 of 12 queued deliveries after
   * the pause in 2 of 9 busy runs of test/webhooks-delivery.test.ts, none in 5 since). The
   * auto-disable calls it too. Other replicas learn of the change by its notification.
   */
  changed(): void;
}

export interface HookChanges extends HookChangeSignal {
  /**
   * A mark of the hooks' state now: equal marks mean no hook changed in between. Undefined while
   * not listening (nothing read may be trusted then).
   */
  mark(): number | undefined;
  stop(): Promise<void>;
}

export interface HookChangesOptions {
  databaseUrl: string;
  schema: string;
  logger: Logger;
}

export async function startHookChanges({ databaseUrl, schema, logger }: HookChangesOptions): Promise<HookChanges> {
  const pool = createPool({ databaseUrl, schema, max: HOOK_CHANGES_CONNECTIONS, applicationName: "waybill-dispatcher-hook-changes", logger });
  let generation = 0;
  let listening: PoolClient | undefined;
  /** LISTEN has run on `listening`: from then on every change is heard. */
  let live = false;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const lost = (client: PoolClient, error: Error) => {
    if (listening !== client) return;
    listening = undefined;
    live = false;
    generation += 1;
    client.release(error);
    if (stopped) return;
    logger.warn({ err: error.message }, "hook changes: listening connection lost; listening again");
    retry = setTimeout(() => void listen(), RELISTEN_DELAY_MS);
  };

  async function listen(): Promise<void> {
    try {
      const client = await pool.connect();
      client.on("notification", () => (generation += 1));
      client.on("error", (error) => lost(client, error));
      client.on("end", () => lost(client, new Error("connection ended")));
      listening = client;
      await client.query(`LISTEN ${HOOK_CHANGED_CHANNEL}`);
      // Only from here on is a change certain to be heard: what was read before counts as older.
      generation += 1;
      live = listening === client;
      if (stopped) lost(client, new Error("stopped"));
    } catch (error) {
      if (listening) lost(listening, error as Error);
      else if (!stopped) retry = setTimeout(() => void listen(), RELISTEN_DELAY_MS);
    }
  }
  await listen();

  return {
    mark: () => (live ? generation : undefined),
    changed: () => {
      generation += 1;
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      if (listening) lost(listening, new Error("stopped"));
      await pool.end();
    },
  };
}
