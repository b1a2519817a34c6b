// The address a request came from. Behind an ingress or load balancer the socket's peer is the
// proxy, so every client would share one login bucket: the proxies listed in TRUSTED_PROXIES
// are skipped, and the first address they did not add (reading X-Forwarded-For from the right)
// is the client's. A header from anyone else is ignored, so clients cannot pick their own key.
import { BlockList, isIP } from "node:net";

export type TrustedProxies = (address: string) => boolean;

/** Parses a comma-separated list of addresses and CIDR ranges (IPv4 and IPv6). */
export function parseTrustedProxies(list: string): TrustedProxies {
  const blocks = new BlockList();
  for (const entry of list
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [address, bits] = entry.split("/");
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (!isIP(address) || (bits !== undefined && !/^\d+$/.test(bits))) throw new Error(`not an address or CIDR range: ${entry}`);
    if (bits === undefined) blocks.addAddress(address, family);
    else blocks.addSubnet(address, Number(bits), family);
  }
  return (address) => {
    const plain = unmapped(address);
    const family = isIP(plain);
    return family !== 0 && blocks.check(plain, family === 6 ? "ipv6" : "ipv4");
  };
}

export function clientAddress(socketAddress: string, forwardedFor: string | undefined, trusted: TrustedProxies): string {
  let client = unmapped(socketAddress);
  if (!trusted(client) || !forwardedFor) return client;
  const hops = forwardedFor
    .split(",")
    .map((hop) => unmapped(hop.trim()))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (isIP(hops[i]) === 0) return client; // garbage from beyond the proxies: stop at the last trusted hop
    client = hops[i];
    if (!trusted(client)) return client;
  }
  return client;
}

/** `::ffff:10.0.0.1` is the IPv4 peer 10.0.0.1 on a dual-stack socket. */
function unmapped(address: string): string {
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
