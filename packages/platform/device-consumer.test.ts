import { describe, expect, it } from "vitest";
import { deviceChannelFilter } from "./device-consumer.js";
import { createTopology, type Bus } from "./nats.js";

const busWith = (prefix: string) => ({ topology: createTopology(prefix) }) as Bus;

describe("deviceChannelFilter", () => {
  it("matches one channel of every tenant's devices, prefixed like the stream's subjects", () => {
    expect(deviceChannelFilter(busWith(""), "inventory")).toBe("ingress.*.devices.*.inventory");
    expect(deviceChannelFilter(busWith("T1_"), "shipments")).toBe("t1_.ingress.*.devices.*.shipments");
    const topology = createTopology("T1_");
    expect(topology.ingressSubject("ten_a", "devices", "dev-1", "shipments")).toMatch(/^t1_\.ingress\.[^.]+\.devices\.[^.]+\.shipments$/);
  });
});
