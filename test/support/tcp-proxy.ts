// A TCP proxy between one service and a server, so a test can break that service's link alone:
// `blackhole()` keeps its connections open but carries nothing (a half-open link: writes
// succeed and vanish), `restore()` drops them, so the client notices and reconnects, and
// forwards again.
import net from "node:net";

export interface TcpProxy {
  /** host:port of the proxy. */
  address: string;
  blackhole(): void;
  restore(): void;
  stop(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let forwarding = true;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on("data", (chunk) => {
        if (forwarding) to.write(chunk);
      });
      from.on("close", close);
      from.on("error", close);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`,
    blackhole() {
      forwarding = false;
    },
    restore() {
      for (const socket of sockets) socket.destroy();
      forwarding = true;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
