// W3C trace context crosses every hop: a client's traceparent reaches the gRPC service through
// the edge and travels on the event the service publishes (NATS header), as a child span of the
// client's trace; a request without one starts a trace of its own.
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";

describe("traceparent", () => {
  let stack: Stack;
  let nc: NatsConnection;
  let tenantId: string;

  beforeAll(async () => {
    stack = await startStack();
    nc = await connect({ servers: stack.env.natsUrl });
    const db = new pg.Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    tenantId = (await db.query<{ id: string }>("SELECT id FROM identity.tenants WHERE name = 'default'")).rows[0].id;
    await db.end();
  });
  afterAll(async () => {
    await nc?.close();
    await stack?.stop();
  });

  const createCustomer = async (headers: Record<string, string>) => {
    const response = await fetch(`${stack.baseUrl}/customers`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json", ...headers },
      body: JSON.stringify({ name: `Trace ${Math.random()}` }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  };
  const eventHeaders = async (customerId: string) => {
    const jsm = await jetstreamManager(nc);
    return eventually(async () => {
      const message = await jsm.streams
        .getMessage(stack.env.topology.eventsStream, { last_by_subj: stack.env.topology.eventSubject(tenantId, "customer.created") })
        .catch(() => null);
      return message && message.json<{ customerId: string }>().customerId === customerId ? message.header : undefined;
    });
  };

  it("carries the client's trace onto the event, as a new span", async () => {
    const customerId = await createCustomer({ traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` });
    const traceparent = (await eventHeaders(customerId)).get("traceparent");
    expect(traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(traceparent).not.toContain(CLIENT_SPAN);
  });

  it("starts a trace when the client sends none or a malformed one", async () => {
    for (const headers of [{}, { traceparent: "00-not-a-trace-01" }] as Record<string, string>[]) {
      const customerId = await createCustomer(headers);
      const traceparent = (await eventHeaders(customerId)).get("traceparent");
      expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
      expect(traceparent).not.toContain(TRACE_ID);
    }
  });
});
