// The NATS configuration deploy/ ships, run by a private nats-server: clients must speak TLS,
// trust the server's CA and log in to the WAYBILL account, where JetStream works for the services.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runTs } from "./support/processes.js";

const PASSWORD = "probe-password-1";
let dir: string;
let server: ChildProcess;
let url: string;

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

function openssl(...args: string[]) {
  const result = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${result.stderr}`);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "waybill-nats-tls-"));
  // A CA and a server certificate for localhost, as the dev overlay's create-secrets.sh makes them.
  openssl(
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=test-ca",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
  );
  openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=localhost", "-keyout", "tls.key", "-out", "tls.csr");
  writeFileSync(path.join(dir, "ext"), "subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n");
  openssl("x509", "-req", "-in", "tls.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1", "-extfile", "ext", "-out", "tls.crt");
  const [port, httpPort] = [await freePort(), await freePort()];
  const conf = readFileSync(path.join(ROOT, "deploy/overlays/dev/nats.conf"), "utf8")
    .replaceAll("/etc/nats/tls/", `${dir}/`)
    .replaceAll("/var/run/nats/", `${dir}/`)
    .replace("port: 4222", `port: ${port}\nhost: 127.0.0.1`)
    .replace("http_port: 8222", `http: "127.0.0.1:${httpPort}"`)
    .replace("store_dir: /data", `store_dir: ${dir}/js`);
  writeFileSync(path.join(dir, "nats.conf"), conf);
  const natsServer = process.env.NATS_SERVER_BIN ?? "nats-server";
  server = spawn(natsServer, ["-c", path.join(dir, "nats.conf")], {
    env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin`, SERVER_NAME: "probe", NATS_WAYBILL_PASSWORD: PASSWORD, NATS_SYSTEM_PASSWORD: "sys-password" },
    stdio: "ignore",
  });
  url = `nats://localhost:${port}`;
  // Ready once the monitoring port says JetStream is up.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${httpPort}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error("private nats-server did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
}, 30_000);

afterAll(() => {
  server?.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function probe(env: Record<string, string | undefined>): Promise<{ ok: boolean; seq?: number; error?: string }> {
  const child = runTs("test/support/bus-probe.ts", {
    NATS_URL: url,
    NATS_USER: "waybill",
    NATS_PASSWORD: PASSWORD,
    NODE_EXTRA_CA_CERTS: path.join(dir, "ca.crt"),
    ...env,
  });
  const [line] = await child.waitForOutput(/\{"ok".*\}/, 30_000);
  await child.exited();
  return JSON.parse(line);
}

describe("deploy/ nats.conf", () => {
  it("lets a service that trusts the CA and has the WAYBILL password use JetStream over TLS", async () => {
    expect(await probe({})).toEqual({ ok: true, seq: 1 });
  }, 40_000);

  it("refuses a wrong password", async () => {
    const answer = await probe({ NATS_PASSWORD: "wrong" });
    expect(answer.ok).toBe(false);
    expect(answer.error).toMatch(/authorization/i);
  }, 40_000);

  it("refuses a client that does not trust the server's certificate", async () => {
    const answer = await probe({ NODE_EXTRA_CA_CERTS: undefined });
    expect(answer.ok).toBe(false);
    expect(answer.error).toMatch(/certificate/i);
  }, 40_000);
});
