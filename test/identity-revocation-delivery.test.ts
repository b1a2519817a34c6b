// A revocation reaches an edge that never lost its own NATS connection, even when identity's
// link to NATS was broken at the moment of the revocation (the outbox relay retries until
// JetStream acknowledges it).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEdgeConfig } from "../services/edge/config.js";
import { startEdge, type EdgeHandle } from "../services/edge/service.js";
import { loadIdentityConfig } from "../services/identity/config.js";
import { startIdentity, type IdentityHandle } from "../services/identity/service.js";
import { readStream } from "./support/bus.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { eventually, request } from "./support/http.js";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.js";

let env: TestEnvironment;
let proxy: TcpProxy;
let identity: IdentityHandle;
let edge: EdgeHandle;
const adminToken = `api-${randomBytes(32).toString("base64url")}`;

beforeAll(async () => {
  env = await createTestEnvironment();
  const nats = new URL(env.natsUrl.split(",")[0]);
  proxy = await startTcpProxy({ host: nats.hostname, port: Number(nats.port || 4222) });
  identity = await startIdentity(
    loadIdentityConfig({ ...env.env, NATS_URL: `nats://${proxy.address}`, GRPC_PORT: "0", OPS_PORT: "0", BOOTSTRAP_API_TOKEN: adminToken }),
    { announce: () => {} },
  );
  // The edge talks to NATS directly, and trusts a cached token for 10 minutes: only the
  // revocation message can make it forget one sooner.
  edge = await startEdge(loadEdgeConfig({ ...env.env, HTTP_PORT: "0", IDENTITY_GRPC_URL: `127.0.0.1:${identity.grpcPort}`, AUTH_CACHE_TTL_MS: "600000" }));
});

afterAll(async () => {
  proxy?.restore();
  await edge?.stop();
  await identity?.stop();
  await proxy?.stop();
  await env?.cleanup();
});

describe("revocation delivery", () => {
  it("a token revoked while identity's NATS link is down stops working on the edge once the link is back", async () => {
    const api = (path: string, token: string, init: { method?: string; json?: unknown } = {}) => request(`${edge.url}/v1${path}`, { token, ...init });
    const created = await api("/tokens", adminToken, { json: { name: "victim", type: "api" } });
    expect(created.status).toBe(201);
    const victim = created.body as { id: string; token: string };
    expect((await api("/tokens", victim.token)).status).toBe(200); // cached by the edge now

    proxy.blackhole();
    expect((await api(`/tokens/${victim.id}`, adminToken, { method: "DELETE" })).status).toBe(204);
    // The announcement waits in identity's outbox (the relay cannot reach NATS), so the edge,
    // which hears of revocations only through it, still trusts its cached answer.
    const db = new pg.Client({ connectionString: env.databaseUrl });
    await db.connect();
    try {
      const waiting = await db.query("SELECT event FROM identity.outbox WHERE kind = 'identity.token_revoked'");
      expect(waiting.rows.map((r) => r.event)).toContainEqual(expect.objectContaining({ tokenId: victim.id }));
    } finally {
      await db.end();
    }
    expect((await api("/tokens", victim.token)).status).toBe(200);

    proxy.restore();
    const refused = await eventually(
      async () => {
        const answer = await api("/tokens", victim.token);
        return answer.status === 401 ? answer : undefined;
      },
      30_000,
      100,
    );
    expect(refused.body.code).toBe("token_revoked");
    // JetStream acknowledged it (stored in the revocations stream).
    const stored = await readStream(env.natsUrl, `${env.streamPrefix}REVOCATIONS`);
    expect(stored.map((m) => m.json)).toContainEqual({ tenantId: expect.any(String), tokenId: victim.id });
  });
});
