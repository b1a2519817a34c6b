import net from "node:net";
import { describe, expect, it } from "vitest";
import { freePorts, startOnPort } from "./ports.js";

const addressInUse = () => Object.assign(new Error("listen EADDRINUSE"), { code: "EADDRINUSE" });

describe("freePorts", () => {
  it("hands out distinct ports", async () => {
    const ports = await freePorts(20);
    expect(new Set(ports).size).toBe(20);
  });
});

describe("startOnPort", () => {
  it("uses a configured port as given, even 0", async () => {
    const tried: number[] = [];
    await startOnPort(
      0,
      8080,
      async (port) => void tried.push(port),
      () => {},
    );
    expect(tried).toEqual([0]);
  });

  it("falls back to any free port when the default is taken up front", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "0.0.0.0", resolve));
    const taken = (holder.address() as net.AddressInfo).port;
    try {
      const tried: number[] = [];
      let told = 0;
      await startOnPort(
        undefined,
        taken,
        async (port) => void tried.push(port),
        () => told++,
      );
      expect(tried).toEqual([0]);
      expect(told).toBe(1);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("falls back when the default is taken between the check and the bind", async () => {
    const [fallback] = await freePorts(1);
    const tried: number[] = [];
    let told = 0;
    const started = await startOnPort(
      undefined,
      fallback,
      async (port) => {
        tried.push(port);
        if (port !== 0) throw addressInUse();
        return "started";
      },
      () => told++,
    );
    expect(started).toBe("started");
    expect(tried).toEqual([fallback, 0]);
    expect(told).toBe(1);
  });

  it("passes on any other failure", async () => {
    const [fallback] = await freePorts(1);
    await expect(
      startOnPort(
        undefined,
        fallback,
        async () => Promise.reject(new Error("boom")),
        () => {},
      ),
    ).rejects.toThrow("boom");
  });
});
