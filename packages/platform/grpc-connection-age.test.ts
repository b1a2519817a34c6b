// Servers close each connection after GRPC_MAX_CONNECTION_AGE_MS (GOAWAY), and callers move to a
// new one. A call a client starts on the closing connection at that moment is refused by the
// server before it runs; the channel must send it again on the new connection, not fail it
// (a bench:scale run had 2 failed reads of 1 467 at about that age; their cause was not logged).
import { credentials, makeGenericClientConstructor, Server, ServerCredentials, type ServiceDefinition } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { GRPC_CHANNEL_OPTIONS } from "./grpc.js";
import { jsonUnaryMethod } from "./testing/grpc-unary-methods.js";

const definition = { echo: jsonUnaryMethod("/test.Age/Echo") } as unknown as ServiceDefinition;
const Client = makeGenericClientConstructor(definition, "Age");

let server: Server | undefined;
afterEach(() => server?.forceShutdown());

describe("calls while servers rotate their connections", () => {
  it("all succeed, through many rotations", async () => {
    const peers = new Set<string>();
    server = new Server({ "grpc.max_connection_age_ms": 100, "grpc.max_connection_age_grace_ms": 5_000 });
    server.addService(definition, {
      echo: (call: { request: unknown; getPeer(): string }, callback: (error: null, value: unknown) => void) => {
        peers.add(call.getPeer()); // a new connection has a new client port
        setTimeout(() => callback(null, call.request), 1);
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server!.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure(), { ...GRPC_CHANNEL_OPTIONS }) as unknown as {
      echo(request: unknown, callback: (error: { code: number; details: string } | null) => void): void;
      close(): void;
    };
    const failures: string[] = [];
    let succeeded = 0;
    // Calls go on until the server has rotated its connection five times and 500 calls have
    // succeeded, however long that takes on a busy machine (a fixed 1.5 s made only 131 calls while
    // a soak ran beside it); the deadline only keeps a broken channel from running for ever.
    const enough = () => peers.size >= 5 && succeeded >= 500;
    const deadline = Date.now() + 30_000;
    const caller = async () => {
      while (!enough() && Date.now() < deadline) {
        await new Promise<void>((resolve) =>
          client.echo({ n: 1 }, (error) => {
            if (error) failures.push(`${error.code} ${error.details}`);
            else succeeded += 1;
            resolve();
          }),
        );
      }
    };
    await Promise.all(Array.from({ length: 8 }, caller));
    client.close();
    expect(peers.size).toBeGreaterThanOrEqual(5);
    expect(succeeded).toBeGreaterThanOrEqual(500);
    expect(failures).toEqual([]);
  });
});
