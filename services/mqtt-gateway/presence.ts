// Whether a device is connected, kept honest across crashes and replicas: this process is one
// gateway instance holding a lease in the registry that it renews on a heartbeat, and records
// its sessions under its own instance id. When a replica dies without closing its sessions
// (kill -9, lost machine) its lease runs out, its devices read as disconnected at once, and the
// next replica's heartbeat reaps the rows and emits device.disconnected for them.
import { newUlid } from "@waybill/platform/ids.js";
import type { Logger } from "@waybill/platform/logger.js";
import {
  reapExpiredInstances,
  recordConnected,
  recordDisconnected,
  registerInstance,
  renewInstance,
  retireInstance,
  type DeviceRef,
  type DeviceRegistryDeps,
} from "./device-registry.js";

/** A lease outlives this many missed heartbeats, so one slow renewal does not drop every device. */
const LEASE_HEARTBEATS = 3;

export interface Presence {
  connected(ref: DeviceRef): Promise<void>;
  disconnected(ref: DeviceRef): Promise<void>;
  /** Ends the lease; call after the broker closed its sessions. */
  stop(): Promise<void>;
}

export async function startPresence(deps: DeviceRegistryDeps & { logger: Logger; heartbeatMs: number }): Promise<Presence> {
  const { pool, logger, heartbeatMs } = deps;
  const leaseMs = heartbeatMs * LEASE_HEARTBEATS;
  const instanceId = `gw-${newUlid()}`;
  // What this instance holds, so a lease lost (database away longer than the lease) can be
  // re-registered with the truth.
  const live = new Map<string, { tenantId: string; deviceId: string; connections: number }>();
  const keyOf = (ref: DeviceRef) => `${ref.tenantId}\u0000${ref.deviceId}`;
  const snapshot = () => [...live.values()];

  const reap = async () => {
    const reaped = await reapExpiredInstances(deps);
    if (reaped > 0) logger.info({ devices: reaped }, "reaped device sessions of gateway instances whose lease ran out");
  };
  // Every registry write of this instance runs in one line, and `live` changes as each runs: a
  // lease registered again from `live` then holds exactly the writes before it, never one that
  // is still to come (which would count a connection twice). Connects are not held up by it:
  // the broker does not wait for them.
  let writes: Promise<void> = Promise.resolve();
  const inLine = (task: () => Promise<void>) => {
    const done = writes.then(task);
    writes = done.catch(() => {});
    return done;
  };
  let beating: Promise<void> | undefined;
  const beat = () => {
    // A slow database: the beat still running is enough.
    beating ??= renewAndReap().finally(() => (beating = undefined));
    return beating;
  };
  const renewAndReap = async () => {
    try {
      await inLine(async () => {
        if (!(await renewInstance(pool, instanceId, leaseMs))) {
          logger.warn({ instanceId }, "gateway lease had expired; registering its live sessions again");
          await registerInstance(pool, instanceId, leaseMs, snapshot());
        }
      });
      await reap();
    } catch (error) {
      logger.warn({ err: (error as Error).message }, "could not renew the gateway lease; will retry");
    }
  };

  await registerInstance(pool, instanceId, leaseMs, []);
  await reap();
  const timer = setInterval(() => void beat(), heartbeatMs);
  timer.unref();

  return {
    connected: (ref) =>
      inLine(async () => {
        const entry = live.get(keyOf(ref)) ?? { tenantId: ref.tenantId, deviceId: ref.deviceId, connections: 0 };
        entry.connections++;
        live.set(keyOf(ref), entry);
        await recordConnected(deps, ref, instanceId);
      }),
    disconnected: (ref) =>
      inLine(async () => {
        const entry = live.get(keyOf(ref));
        if (entry && --entry.connections <= 0) live.delete(keyOf(ref));
        await recordDisconnected(deps, ref, instanceId);
      }),
    async stop() {
      clearInterval(timer);
      await beating;
      await writes;
      await retireInstance(pool, instanceId);
    },
  };
}
