// A nats-server and a PostgreSQL of the test's own (own port, own data folder), which the test may
// crash (SIGKILL), stop cleanly (SIGTERM / a fast shutdown) and start again on the same port and
// storage. The machine's shared servers are never touched.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startPrivateNats, startPrivatePostgres, type PrivateServer } from "../../services/launcher/private-servers.js";

export interface RestartableServer {
  readonly url: string;
  readonly port: number;
  /** Sends `signal` to the running server and waits for it to exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Freezes the running server (SIGSTOP): connections stay open, nothing answers. */
  pause(): void;
  /** Lets a paused server run on (SIGCONT). */
  resume(): void;
  /** Starts it again on the same port and data folder. */
  start(): Promise<void>;
  /** Kills it with `signal`, waits `downMs`, starts it again. */
  bounce(signal: NodeJS.Signals, downMs: number): Promise<void>;
  stop(): Promise<void>;
}

async function restartable(kind: string, launch: (dir: string, port?: number) => Promise<PrivateServer>): Promise<RestartableServer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `waybill-${kind}-`));
  let server: PrivateServer | undefined = await launch(dir);
  const { url, port } = server;
  const handle: RestartableServer = {
    url,
    port,
    async kill(signal) {
      await server?.kill(signal);
      server = undefined;
    },
    pause: () => server?.signal("SIGSTOP"),
    resume: () => server?.signal("SIGCONT"),
    async start() {
      if (!server) server = await launch(dir, port);
    },
    async bounce(signal, downMs) {
      await handle.kill(signal);
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await handle.start();
    },
    async stop() {
      server?.signal("SIGCONT");
      await server?.stop();
      server = undefined;
      await rm(dir, { recursive: true, force: true });
    },
  };
  return handle;
}

/** nats-server -js -sd <tmp> -a 127.0.0.1 -p <free port>. */
export const startTestNats = () => restartable("nats", (dir, port) => startPrivateNats(dir, { port }));

/** initdb into a tmp folder, postgres on a free port (trust auth, user postgres). */
export const startTestPostgres = () => restartable("postgres", (dir, port) => startPrivatePostgres(dir, { port }));
