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
 * Where free ports are looked for: below Linux's ephemeral range (32768–60999), from which every
 * outgoing connection takes its local port. A port the OS handed out with listen(0) comes from
 * that range, and on a busy machine an outgoing connection (to PostgreSQL, NATS, a receiver) took
 * it before the test or service that picked it could bind it.
 */
export const PORT_PICK_RANGE = { from: 20_000, to: 32_767 } as const;
const PICK_ATTEMPTS = 50;

/**
 * `count` distinct free ports. All are held open at once while they are picked, so no two are
 * the same. They are free when this returns, not reserved: whoever binds one must still expect
 * EADDRINUSE (see isAddressInUse).
 */
export async function freePorts(count: number, host = "127.0.0.1"): Promise<number[]> {
  const servers: net.Server[] = [];
  const listen = (server: net.Server, port: number) =>
    new Promise<boolean>((resolve, reject) => {
      server.once("error", (error) => (isAddressInUse(error) || (error as { code?: string }).code === "EACCES" ? resolve(false) : reject(error)));
      server.listen(port, host, () => resolve(true));
    });
  try {
    for (let i = 0; i < count; i++) {
      let held: net.Server | undefined;
      for (let attempt = 0; attempt < PICK_ATTEMPTS && !held; attempt++) {
        const port = PORT_PICK_RANGE.from + Math.floor(Math.random() * (PORT_PICK_RANGE.to - PORT_PICK_RANGE.from + 1));
        const server = net.createServer();
        if (await listen(server, port)) held = server;
      }
      // A crowded range: let the OS choose after all.
      if (!held) {
        held = net.createServer();
        await listen(held, 0);
      }
      servers.push(held);
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
