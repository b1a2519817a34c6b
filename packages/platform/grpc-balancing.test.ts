// GRPC_CHANNEL_OPTIONS make a client spread calls over every address its target resolves to
// (round robin), where grpc-js' default (pick first) would send them all to one server.
import { credentials, makeGenericClientConstructor, type ServiceDefinition, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GRPC_CHANNEL_OPTIONS, startGrpcServer, type GrpcServerHandle } from "./grpc.js";
import { bytesUnaryMethod } from "./testing/grpc-unary-methods.js";

const definition = { whoami: bytesUnaryMethod("/test.Balance/WhoAmI") } as unknown as ServiceDefinition;
const Client = makeGenericClientConstructor(definition, "Balance");

let servers: GrpcServerHandle[] = [];
beforeAll(async () => {
  servers = await Promise.all(
    ["a", "b"].map((name) =>
      startGrpcServer("127.0.0.1", 0, [
        [definition, { whoami: (_call: unknown, callback: (e: null, r: Buffer) => void) => callback(null, Buffer.from(name)) } as UntypedServiceImplementation],
      ]),
    ),
  );
});
afterAll(async () => {
  for (const server of servers) await server.stop();
});

async function answersFrom(options: Record<string, unknown>): Promise<Set<string>> {
  const target = `ipv4:${servers.map((s) => `127.0.0.1:${s.port}`).join(",")}`;
  // biome-ignore lint/suspicious/noExplicitAny: a generic grpc-js Client gets its methods at run time
  const client = new Client(target, credentials.createInsecure(), options) as any;
  const seen = new Set<string>();
  try {
    for (let i = 0; i < 10; i++) {
      const answer = await new Promise<Buffer>((resolve, reject) =>
        client.whoami(Buffer.alloc(0), (e: Error | null, r: Buffer) => (e ? reject(e) : resolve(r))),
      );
      seen.add(answer.toString());
    }
  } finally {
    client.close();
  }
  return seen;
}

describe("gRPC client balancing", () => {
  it("reaches every resolved server with the shared channel options", async () => {
    expect(await answersFrom({ ...GRPC_CHANNEL_OPTIONS })).toEqual(new Set(["a", "b"]));
  });

  it("would pin one server without them (what the options change)", async () => {
    expect((await answersFrom({})).size).toBe(1);
  });
});
