// Each hook's pool: kept while its url stays at one origin, replaced (and the old one closed) when
// it moves, closed when too many hooks are kept.
import { buildConnector } from "undici";
import { describe, expect, it } from "vitest";
import { createHookConnections } from "./hook-connections.js";

const connect = buildConnector({});

describe("hook connections", () => {
  it("keeps a hook's pool for its origin and closes it once the hook's url moves to another", async () => {
    const connections = createHookConnections({ perHook: 2, connect });
    const first = connections.poolFor("hook_a", "http://127.0.0.1:9");
    expect(connections.poolFor("hook_a", "http://127.0.0.1:9")).toBe(first);
    expect(connections.poolFor("hook_b", "http://127.0.0.1:9")).not.toBe(first);
    const moved = connections.poolFor("hook_a", "http://127.0.0.1:10");
    expect(moved).not.toBe(first);
    expect(first.closed).toBe(true);
    expect(moved.closed).toBe(false);
    await connections.close();
    expect(first.closed).toBe(true);
    expect(moved.closed).toBe(true);
  });

  it("closes the least recently used hook's pool beyond its limit", async () => {
    const connections = createHookConnections({ perHook: 2, connect, max: 2 });
    const a = connections.poolFor("hook_a", "http://127.0.0.1:9");
    const b = connections.poolFor("hook_b", "http://127.0.0.1:9");
    connections.poolFor("hook_a", "http://127.0.0.1:9");
    connections.poolFor("hook_c", "http://127.0.0.1:9");
    expect(b.closed).toBe(true);
    expect(a.closed).toBe(false);
    expect(connections.poolFor("hook_a", "http://127.0.0.1:9")).toBe(a);
    await connections.close();
  });
});
