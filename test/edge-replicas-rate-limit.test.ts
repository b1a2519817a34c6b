// Two edge replicas with RATE_LIMIT_STORE=nats share their counts in NATS KV: a credential's
// limit and a client address's login limit hold across both, however requests are spread.
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEdgeConfig } from "../services/edge/config.js";
import { startEdge, type EdgeHandle } from "../services/edge/service.js";
import { RATE_LIMIT_BUCKET } from "../services/edge/rate-limit-store.js";
import { request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

const ADMIN = { email: "admin@replicas.test", password: "admin-password-1" };
const API_LIMIT = 10;
const LOGIN_LIMIT = 3;
let stack: Stack;
let edges: EdgeHandle[] = [];

beforeAll(async () => {
  stack = await startStack({ extraEnv: { BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password } });
  const env = {
    ...stack.serviceEnv,
    HTTP_PORT: "0",
    RATE_LIMIT_STORE: "nats",
    RATE_LIMIT_REQUESTS: String(API_LIMIT),
    // One long window, so the test never straddles two.
    RATE_LIMIT_WINDOW_SECONDS: "3600",
    LOGIN_RATE_LIMIT_PER_MINUTE: String(LOGIN_LIMIT),
    TRUSTED_PROXIES: "127.0.0.1",
  };
  edges = [await startEdge(loadEdgeConfig(env)), await startEdge(loadEdgeConfig(env))];
});
afterAll(async () => {
  for (const edge of edges) await edge.stop();
  await stack?.stop();
  const nc = await connect({ servers: stack.env.natsUrl });
  await (await jetstreamManager(nc)).streams.delete(`KV_${stack.env.streamPrefix}${RATE_LIMIT_BUCKET}`).catch(() => {});
  await nc.close();
});

describe("rate limits across two edge replicas", () => {
  it("a credential gets its limit once in total, even with requests racing on both replicas", async () => {
    const answers = await Promise.all(Array.from({ length: API_LIMIT * 2 }, (_, i) => request(`${edges[i % 2].url}/v1/products`, { token: stack.token })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(API_LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(API_LIMIT);
    // Both replicas refuse from now on.
    for (const edge of edges) expect((await request(`${edge.url}/v1/products`, { token: stack.token })).status).toBe(429);
  });

  it("logins are counted per client address from X-Forwarded-For across replicas", async () => {
    // The login window is a calendar minute: start well inside one.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    const login = (edge: EdgeHandle, address: string) =>
      request(`${edge.url}/v1/auth/login`, { json: ADMIN, headers: { "x-forwarded-for": `203.0.113.50, ${address}` } });
    const statuses: number[] = [];
    for (let i = 0; i < LOGIN_LIMIT + 1; i++) statuses.push((await login(edges[i % 2], "198.51.100.7")).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Another client behind the same proxy has its own budget, on either replica.
    expect((await login(edges[1], "198.51.100.8")).status).toBe(200);
  });
});
