// Port helpers for the local launcher, the benchmarks and tests.
import net from "node:net";

/** Resolves to true when `port` can be bound on `host`. */
export function isPortFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

export async function freePort(host = "127.0.0.1"): Promise<number> {
  return (await freePorts(1, host))[0];
}

/**
 * `count` distinct free ports. All are held open at once while the OS picks them, so no two are
 * the same; asking one at a time can hand out a port twice. They are free when this returns, not
 * reserved: whoever binds one must still expect EADDRINUSE (see isAddressInUse).
 */
export async function freePorts(count: number, host = "127.0.0.1"): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = net.createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, host, () => resolve());
      });
    }
    return servers.map((server) => (server.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** Whether `error` is a listen() failing because the port is taken. */
function isAddressInUse(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "EADDRINUSE";
}

/**
 * Runs `start` on `configured` when given; otherwise on `fallback` or, when that is taken, on 0
 * (any free port), calling `onTaken` first. The check up front spares a start that would fail in
 * the usual case (1883 held by Mosquitto); the port can still be taken by the time `start` binds
 * it, so EADDRINUSE from `start` falls back too.
 */
export async function startOnPort<T>(configured: number | undefined, fallback: number, start: (port: number) => Promise<T>, onTaken: () => void): Promise<T> {
  if (configured !== undefined) return start(configured);
  if (!(await isPortFree(fallback, "0.0.0.0"))) {
    onTaken();
    return start(0);
  }
  try {
    return await start(fallback);
  } catch (error) {
    if (!isAddressInUse(error)) throw error;
    onTaken();
    return start(0);
  }
}

/** Whether something accepts TCP connections at host:port within `timeoutMs`. */
export function answers(host: string, port: number, timeoutMs = 1_500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
