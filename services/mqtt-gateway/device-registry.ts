// The device registry: one row per (tenant, device id) with its latest token and last-seen time,
// and the live sessions per gateway instance (presence.ts). Connects and disconnects write their
// event in the same transaction.
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Pool } from "@waybill/platform/db.js";
import { newId } from "@waybill/platform/ids.js";
import type { Topology } from "@waybill/platform/nats.js";
import { appendEvents } from "@waybill/contracts/events/outbox-events.js";
import { decodeCursor, toPage, type Page } from "@waybill/platform/pagination.js";

export interface DeviceRegistryDeps {
  pool: Pool;
  topology: Topology;
}

export interface DeviceRef {
  tenantId: string;
  deviceId: string;
  tokenId: string;
}

export interface Device {
  id: string;
  deviceId: string;
  tokenId: string;
  lastSeenAt: string | null;
  connected: boolean;
  createdAt: string;
}

/** SQL: a live session of the device named by `alias`.tenant_id / `alias`.device_id. */
const LIVE_SESSION_SQL = (alias: string) =>
  `SELECT 1 FROM device_sessions s2 JOIN gateway_instances g2 ON g2.id = s2.instance_id AND g2.expires_at > now()
    WHERE s2.tenant_id = ${alias}.tenant_id AND s2.device_id = ${alias}.device_id`;

/** A session of `ref` opened on gateway instance `instanceId` (see presence.ts). */
export async function recordConnected(deps: DeviceRegistryDeps, ref: DeviceRef, instanceId: string): Promise<void> {
  await withTransaction(deps.pool, async (client) => {
    await client.query(
      `INSERT INTO devices (id, tenant_id, device_id, token_id, last_seen_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (tenant_id, device_id) DO UPDATE SET token_id = EXCLUDED.token_id, last_seen_at = now(), updated_at = now()`,
      [newId("dev"), ref.tenantId, ref.deviceId, ref.tokenId],
    );
    await client.query(
      `INSERT INTO device_sessions (tenant_id, device_id, instance_id, connections) VALUES ($1, $2, $3, 1)
       ON CONFLICT (tenant_id, device_id, instance_id) DO UPDATE SET connections = device_sessions.connections + 1`,
      [ref.tenantId, ref.deviceId, instanceId],
    );
    await appendEvents(client, deps.topology, [
      { tenantId: ref.tenantId, kind: "device.connected", payload: { deviceId: ref.deviceId, tokenId: ref.tokenId } },
    ]);
  });
}

export async function recordDisconnected(deps: DeviceRegistryDeps, ref: DeviceRef, instanceId: string): Promise<void> {
  await withTransaction(deps.pool, async (client) => {
    const key = [ref.tenantId, ref.deviceId, instanceId];
    const last = await client.query(`DELETE FROM device_sessions WHERE tenant_id = $1 AND device_id = $2 AND instance_id = $3 AND connections <= 1`, key);
    if (last.rowCount === 0) {
      await client.query(`UPDATE device_sessions SET connections = connections - 1 WHERE tenant_id = $1 AND device_id = $2 AND instance_id = $3`, key);
    }
    await client.query(`UPDATE devices SET last_seen_at = now(), updated_at = now() WHERE tenant_id = $1 AND device_id = $2`, [ref.tenantId, ref.deviceId]);
    await appendEvents(client, deps.topology, [
      { tenantId: ref.tenantId, kind: "device.disconnected", payload: { deviceId: ref.deviceId, tokenId: ref.tokenId } },
    ]);
  });
}

/** Starts (or restarts, after it was reaped) an instance's lease with the sessions it holds. */
export async function registerInstance(
  pool: Pool,
  instanceId: string,
  leaseMs: number,
  sessions: { tenantId: string; deviceId: string; connections: number }[],
): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query(
      `INSERT INTO gateway_instances (id, expires_at) VALUES ($1, now() + make_interval(secs => $2::double precision / 1000))
       ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
      [instanceId, leaseMs],
    );
    await client.query(`DELETE FROM device_sessions WHERE instance_id = $1`, [instanceId]);
    const rows = sessions.map((s) => ({ tenant_id: s.tenantId, device_id: s.deviceId, connections: s.connections }));
    await client.query(
      `INSERT INTO device_sessions (tenant_id, device_id, instance_id, connections)
       SELECT tenant_id, device_id, $1, connections FROM jsonb_to_recordset($2::jsonb) AS r(tenant_id text, device_id text, connections integer)`,
      [instanceId, JSON.stringify(rows)],
    );
  });
}

/** Extends an instance's lease; false when the lease is gone (it expired and was reaped). */
export async function renewInstance(pool: Pool, instanceId: string, leaseMs: number): Promise<boolean> {
  const renewed = await pool.query(
    `UPDATE gateway_instances SET expires_at = now() + make_interval(secs => $2::double precision / 1000) WHERE id = $1 AND expires_at > now()`,
    [instanceId, leaseMs],
  );
  return renewed.rowCount === 1;
}

/** Ends an instance's lease and drops its sessions (a clean stop; its clients were closed first). */
export async function retireInstance(pool: Pool, instanceId: string): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query(`DELETE FROM device_sessions WHERE instance_id = $1`, [instanceId]);
    await client.query(`DELETE FROM gateway_instances WHERE id = $1`, [instanceId]);
  });
}

/**
 * Deletes the instances whose lease ran out and their sessions, and emits device.disconnected
 * for each device left without a live session. Row locks make concurrent reapers (replicas)
 * report each session once. Returns how many devices lost a session.
 */
export async function reapExpiredInstances(deps: DeviceRegistryDeps): Promise<number> {
  return withTransaction(deps.pool, async (client) => {
    const dead = await client.query<{ id: string }>(`DELETE FROM gateway_instances WHERE expires_at <= now() RETURNING id`);
    // Nothing expired (the usual beat): no scan of the sessions. Rows of instances gone some other
    // way are never counted as live (LIVE_SESSION_SQL) and go with the next reap.
    if (dead.rows.length === 0) return 0;
    const { rows } = await client.query<{ tenant_id: string; device_id: string; token_id: string | null; still_connected: boolean }>(
      `WITH reaped AS (
         DELETE FROM device_sessions s
          WHERE s.instance_id = ANY($1::text[]) OR NOT EXISTS (SELECT 1 FROM gateway_instances g WHERE g.id = s.instance_id)
          RETURNING s.tenant_id, s.device_id
       )
       SELECT DISTINCT r.tenant_id, r.device_id, d.token_id,
              EXISTS (${LIVE_SESSION_SQL("r")}) AS still_connected
         FROM reaped r LEFT JOIN devices d ON d.tenant_id = r.tenant_id AND d.device_id = r.device_id`,
      [dead.rows.map((r) => r.id)],
    );
    const gone = rows.filter((r) => !r.still_connected);
    if (gone.length > 0) {
      await appendEvents(
        client,
        deps.topology,
        gone.map((r) => ({ tenantId: r.tenant_id, kind: "device.disconnected" as const, payload: { deviceId: r.device_id, tokenId: r.token_id ?? "" } })),
      );
    }
    return rows.length;
  });
}

export interface Sighting extends DeviceRef {
  at: Date;
}

/** Moves last_seen_at forward for many devices in one statement; creates devices seen only over HTTP. */
export async function recordSightings(pool: Pool, sightings: Sighting[]): Promise<void> {
  if (sightings.length === 0) return;
  const rows = sightings.map((s) => ({ id: newId("dev"), tenant_id: s.tenantId, device_id: s.deviceId, token_id: s.tokenId, at: s.at.toISOString() }));
  await pool.query(
    `INSERT INTO devices (id, tenant_id, device_id, token_id, last_seen_at)
     SELECT id, tenant_id, device_id, token_id, at FROM jsonb_to_recordset($1::jsonb)
       AS r(id text, tenant_id text, device_id text, token_id text, at timestamptz)
     ON CONFLICT (tenant_id, device_id) DO UPDATE
       SET last_seen_at = GREATEST(devices.last_seen_at, EXCLUDED.last_seen_at), updated_at = now()`,
    [JSON.stringify(rows)],
  );
}

interface DeviceRow {
  id: string;
  device_id: string;
  token_id: string;
  connected: boolean;
  last_seen_at: Date | null;
  created_at: Date;
}

export async function listDevices(pool: Pool, tenantId: string, limit: number, cursor?: string | null): Promise<Page<Device>> {
  const after = decodeCursor(cursor);
  const { rows } = await pool.query<DeviceRow>(
    `SELECT d.id, d.device_id, d.token_id, d.last_seen_at, d.created_at, EXISTS (${LIVE_SESSION_SQL("d")}) AS connected
       FROM devices d WHERE d.tenant_id = $1 AND ($2::text IS NULL OR d.id < $2) ORDER BY d.id DESC LIMIT $3`,
    [tenantId, after, limit + 1],
  );
  const page = toPage(rows, limit);
  return {
    data: page.data.map((r) => ({
      id: r.id,
      deviceId: r.device_id,
      tokenId: r.token_id,
      lastSeenAt: r.last_seen_at ? r.last_seen_at.toISOString() : null,
      connected: r.connected,
      createdAt: r.created_at.toISOString(),
    })),
    nextCursor: page.nextCursor,
  };
}
