// The device registry: one row per (tenant, device id), its latest token, live session count
// and last-seen time. Connects and disconnects write their event in the same transaction.
import { withTransaction, type Pool } from "../platform/db.js";
import { newId } from "../platform/ids.js";
import type { Topology } from "../platform/nats.js";
import { appendEvents } from "../platform/outbox.js";
import { decodeCursor, toPage, type Page } from "../platform/pagination.js";

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

export async function recordConnected(deps: DeviceRegistryDeps, ref: DeviceRef): Promise<void> {
  await withTransaction(deps.pool, async (client) => {
    await client.query(
      `INSERT INTO devices (id, tenant_id, device_id, token_id, connections, last_seen_at) VALUES ($1, $2, $3, $4, 1, now())
       ON CONFLICT (tenant_id, device_id) DO UPDATE
         SET token_id = EXCLUDED.token_id, connections = devices.connections + 1, last_seen_at = now(), updated_at = now()`,
      [newId("dev"), ref.tenantId, ref.deviceId, ref.tokenId],
    );
    await appendEvents(client, deps.topology, [{ tenantId: ref.tenantId, kind: "device.connected", payload: { deviceId: ref.deviceId, tokenId: ref.tokenId } }]);
  });
}

export async function recordDisconnected(deps: DeviceRegistryDeps, ref: DeviceRef): Promise<void> {
  await withTransaction(deps.pool, async (client) => {
    await client.query(
      `UPDATE devices SET connections = GREATEST(connections - 1, 0), last_seen_at = now(), updated_at = now() WHERE tenant_id = $1 AND device_id = $2`,
      [ref.tenantId, ref.deviceId],
    );
    await appendEvents(client, deps.topology, [{ tenantId: ref.tenantId, kind: "device.disconnected", payload: { deviceId: ref.deviceId, tokenId: ref.tokenId } }]);
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
  connections: number;
  last_seen_at: Date | null;
  created_at: Date;
}

export async function listDevices(pool: Pool, tenantId: string, limit: number, cursor?: string | null): Promise<Page<Device>> {
  const after = decodeCursor(cursor);
  const { rows } = await pool.query<DeviceRow>(
    `SELECT id, device_id, token_id, connections, last_seen_at, created_at FROM devices
      WHERE tenant_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [tenantId, after, limit + 1],
  );
  const page = toPage(rows, limit);
  return {
    data: page.data.map((r) => ({
      id: r.id,
      deviceId: r.device_id,
      tokenId: r.token_id,
      lastSeenAt: r.last_seen_at ? r.last_seen_at.toISOString() : null,
      connected: r.connections > 0,
      createdAt: r.created_at.toISOString(),
    })),
    nextCursor: page.nextCursor,
  };
}
