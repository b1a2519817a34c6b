// The SSRF guard: deliveries never reach loopback, private, link-local, metadata, CGNAT,
// unspecified, multicast, documentation, benchmarking or reserved addresses (nor IPv6 addresses
// that embed or tunnel to such an IPv4 address) unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true. The
// check runs on the addresses DNS answers at delivery time, inside the socket's own lookup, so the
// connection goes to exactly the address that was checked (no second resolution to rebind).
import dns from "node:dns";
import net, { BlockList } from "node:net";

export const BLOCKED_ADDRESS_ERROR = "blocked address";

export class BlockedAddressError extends Error {
  readonly code = "EBLOCKEDADDRESS";
  constructor(readonly host: string) {
    super(BLOCKED_ADDRESS_ERROR);
  }
}

const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata 169.254.169.254
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.88.99.0", 24], // former 6to4 relay anycast
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address 255.255.255.255
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128],
  ["100::", 64], // discard-only
  ["2001::", 32], // Teredo: tunnels to an IPv4 host we cannot vet (its address is obfuscated, its relay anywhere)
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local, includes the EC2 metadata address fd00:ec2::254
  ["fe80::", 10], // link-local
  ["fec0::", 10], // deprecated site-local
  ["ff00::", 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/** True when a delivery must not go to `address` (an IPv4 or IPv6 literal). */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").split("%")[0];
  const family = net.isIP(bare);
  if (family === 4) return blocked.check(bare, "ipv4");
  if (family !== 6) return true; // not an address at all: refuse rather than guess
  if (blocked.check(bare, "ipv6")) return true;
  const embedded = embeddedIPv4(bare);
  if (embedded === "unknown") return true;
  return embedded !== undefined && blocked.check(embedded, "ipv4");
}

/**
 * The IPv4 address an IPv6 address stands for, when it embeds one: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96, and the
 * local-use 64:ff9b:1::/48 in its /96 layout) and 6to4 (2002:AABB:CCDD::/48). "unknown" when the
 * address is in a translation prefix but its layout cannot be told (refused: it could reach anything).
 */
function embeddedIPv4(address: string): string | "unknown" | undefined {
  const words = expandIPv6(address);
  if (!words) return "unknown";
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (zeros(0, 5) && (words[5] === 0xffff || words[5] === 0)) return v4(words[6], words[7]);
  if (zeros(0, 4) && words[4] === 0xffff && words[5] === 0) return v4(words[6], words[7]);
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return v4(words[6], words[7]);
  if (words[0] === 0x64 && words[1] === 0xff9b && words[2] === 1) return zeros(3, 6) ? v4(words[6], words[7]) : "unknown";
  if (words[0] === 0x2002) return v4(words[1], words[2]);
  return undefined;
}

function expandIPv6(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split(".").map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const parse = (part: string | undefined) => (part ? part.split(":").map((h) => parseInt(h, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const words = tail === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls connect: resolves every address of the host and refuses the host when
 * any of them is blocked (a name that also points inward is not trusted for the rest).
 */
export function guardedLookup(allowPrivateNetworks: boolean, resolve: typeof dns.lookup = dns.lookup): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as dns.LookupAddress[];
      if (list.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
      if (!allowPrivateNetworks && list.some((a) => isBlockedAddress(a.address))) return callback(new BlockedAddressError(hostname), []);
      if (options.all) callback(null, list);
      else callback(null, list[0].address, list[0].family);
    });
  }) as net.LookupFunction;
}

/** For a URL whose host is an address literal (no lookup happens then): is it refused? */
export function isBlockedLiteralHost(hostname: string, allowPrivateNetworks: boolean): boolean {
  const bare = hostname.replace(/^\[|\]$/g, "");
  return !allowPrivateNetworks && net.isIP(bare) !== 0 && isBlockedAddress(bare);
}
