// A TCP relay that runs inside a server's network namespace (network-faults.ts) in front of the
// server: it listens on the namespace's veth address and forwards to the server on the
// namespace's loopback. SIGUSR1 makes it hold every chunk of bytes `RELAY_DELAY_MS` before passing
// it on, in each direction (order kept); SIGUSR2 ends the delay. It stands in for `tc netem
// delay` on kernels built without sch_netem; loss and partitions stay the kernel's (iptables).
//
// Usage: node --import tsx delay-relay.ts <listen host> <listen port> <target port>
import net from "node:net";

const [host, listenPort, targetPort] = process.argv.slice(2);
const delayMs = Number(process.env.RELAY_DELAY_MS ?? 100);
let delaying = false;
process.on("SIGUSR1", () => {
  delaying = true;
});
process.on("SIGUSR2", () => {
  delaying = false;
});

/** Passes `from`'s bytes to `to`, each chunk `delayMs` later while delaying, in order. */
function pipe(from: net.Socket, to: net.Socket): void {
  let last = 0; // when the previous chunk goes out: a later chunk never overtakes it
  from.on("data", (chunk) => {
    if (!delaying && last <= Date.now()) {
      to.write(chunk);
      return;
    }
    last = Math.max(last, Date.now() + (delaying ? delayMs : 0));
    setTimeout(() => to.write(chunk), last - Date.now());
  });
}

const server = net.createServer((client) => {
  const upstream = net.connect(Number(targetPort), "127.0.0.1");
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  for (const socket of [client, upstream]) {
    socket.setNoDelay(true);
    socket.on("close", close);
    socket.on("error", close);
  }
  pipe(client, upstream);
  pipe(upstream, client);
});
server.listen(Number(listenPort), host, () => process.stdout.write("listening\n"));
process.on("SIGTERM", () => process.exit(0));
