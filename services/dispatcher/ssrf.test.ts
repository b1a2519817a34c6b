import type dns from "node:dns";
import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { BlockedAddressError, guardedLookup, isBlockedAddress, isBlockedLiteralHost } from "./ssrf.js";

describe("isBlockedAddress", () => {
  it("refuses loopback, private, link-local, metadata, CGNAT, unspecified and multicast", () => {
    for (const address of [
      "127.0.0.1", "127.255.0.9", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "169.254.0.1",
      "100.64.0.1", "100.127.255.255", "0.0.0.0", "224.0.0.1", "255.255.255.255",
      "::1", "::", "fc00::1", "fd12:3456::1", "fd00:ec2::254", "fe80::1", "fe80::1%eth0", "ff02::1",
      "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "2002:c0a8:0101::1", "[::1]",
    ]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
  });

  it("lets public addresses through", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "192.169.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "2002:0808:0808::1"]) {
      expect(isBlockedAddress(address), address).toBe(false);
    }
  });

  it("refuses what is not an address at all", () => {
    expect(isBlockedAddress("example.com")).toBe(true);
  });
});

describe("isBlockedLiteralHost", () => {
  it("checks address literals of URLs and leaves names to the lookup", () => {
    expect(isBlockedLiteralHost(new URL("http://[::1]:80/").hostname, false)).toBe(true);
    expect(isBlockedLiteralHost(new URL("http://0x7f000001/").hostname, false)).toBe(true); // the URL parser normalises it
    expect(isBlockedLiteralHost("127.0.0.1", true)).toBe(false);
    expect(isBlockedLiteralHost("localhost", false)).toBe(false);
  });
});

describe("guardedLookup", () => {
  const resolverOf = (addresses: LookupAddress[]) =>
    ((_host: string, _options: unknown, callback: (error: Error | null, addresses: LookupAddress[]) => void) => callback(null, addresses)) as unknown as typeof dns.lookup;
  const lookup = (allow: boolean, addresses: LookupAddress[], all: boolean) =>
    new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) =>
      guardedLookup(allow, resolverOf(addresses))("example.test", { all }, ((error: Error | null, address: unknown, family?: number) => resolve({ error, address, family })) as never),
    );

  it("answers the resolved public address, in both callback forms", async () => {
    expect(await lookup(false, [{ address: "93.184.216.34", family: 4 }], false)).toEqual({ error: null, address: "93.184.216.34", family: 4 });
    expect((await lookup(false, [{ address: "93.184.216.34", family: 4 }], true)).address).toEqual([{ address: "93.184.216.34", family: 4 }]);
  });

  it("refuses a name when any of its addresses is private, unless private networks are allowed", async () => {
    const mixed = [{ address: "93.184.216.34", family: 4 }, { address: "10.0.0.5", family: 4 }];
    expect((await lookup(false, mixed, true)).error).toBeInstanceOf(BlockedAddressError);
    expect((await lookup(true, mixed, false)).address).toBe("93.184.216.34");
  });
});
