import type dns from "node:dns";
import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { BlockedAddressError, guardedLookup, isBlockedAddress, isBlockedLiteralHost } from "./ssrf.js";

describe("isBlockedAddress", () => {
  it("refuses loopback, private, link-local, metadata, CGNAT, unspecified and multicast", () => {
    for (const address of [
      "127.0.0.1",
      "127.255.0.9",
      "10.0.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "169.254.0.1",
      "100.64.0.1",
      "100.127.255.255",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fc00::1",
      "fd12:3456::1",
      "fd00:ec2::254",
      "fe80::1",
      "fe80::1%eth0",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:10.0.0.1",
      "64:ff9b::a9fe:a9fe",
      "2002:c0a8:0101::1",
      "[::1]",
    ]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
  });

  it("refuses documentation, benchmarking, reserved and broadcast IPv4 ranges, edges included", () => {
    for (const address of [
      "192.0.2.0",
      "192.0.2.1",
      "192.0.2.255", // TEST-NET-1
      "198.51.100.0",
      "198.51.100.7",
      "198.51.100.255", // TEST-NET-2
      "203.0.113.0",
      "203.0.113.9",
      "203.0.113.255", // TEST-NET-3
      "198.18.0.0",
      "198.18.0.1",
      "198.19.255.255", // benchmarking 198.18.0.0/15
      "240.0.0.0",
      "240.0.0.1",
      "250.1.2.3",
      "255.255.255.254", // reserved 240.0.0.0/4
      "255.255.255.255", // limited broadcast
      "192.0.0.8",
      "192.88.99.1",
    ]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
    // Their neighbours are ordinary public addresses.
    for (const address of ["192.0.3.1", "198.51.99.255", "198.51.101.0", "203.0.112.255", "203.0.114.0", "198.17.255.255", "198.20.0.0", "223.255.255.255"]) {
      expect(isBlockedAddress(address), address).toBe(false);
    }
  });

  it("refuses IPv6 documentation, Teredo and discard-only prefixes", () => {
    for (const address of [
      "2001:db8::1",
      "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
      "2001::1",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      "2001:0:ffff::1",
      "100::1",
    ]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
    // 2001:db9::/32 and 2001:1::/32 are outside both.
    expect(isBlockedAddress("2001:db9::1")).toBe(false);
    expect(isBlockedAddress("2001:4860:4860::8888")).toBe(false);
  });

  it("checks the IPv4 address embedded in IPv4-mapped, -translated and -compatible addresses", () => {
    for (const address of [
      "::ffff:127.0.0.1",
      "::ffff:0:127.0.0.1",
      "::ffff:0:7f00:1",
      "::ffff:0:10.1.2.3",
      "::ffff:0:169.254.169.254",
      "::ffff:0:192.0.2.1",
      "::10.0.0.1",
    ]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
    for (const address of ["::ffff:8.8.8.8", "::ffff:0:8.8.8.8", "::ffff:0:808:808"]) {
      expect(isBlockedAddress(address), address).toBe(false);
    }
  });

  it("checks the IPv4 address embedded in NAT64 addresses (64:ff9b::/96 and the local-use 64:ff9b:1::/48)", () => {
    for (const address of [
      "64:ff9b::127.0.0.1",
      "64:ff9b::a00:1",
      "64:ff9b::192.168.1.1",
      "64:ff9b::203.0.113.5",
      "64:ff9b:1::127.0.0.1",
      "64:ff9b:1::a9fe:a9fe",
      "64:ff9b:1::10.0.0.1",
    ]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
    for (const address of ["64:ff9b::8.8.8.8", "64:ff9b::5db8:d822", "64:ff9b:1::8.8.8.8"]) {
      expect(isBlockedAddress(address), address).toBe(false);
    }
    // A local-use NAT64 address in another layout (prefix other than /96): where it leads cannot be told.
    expect(isBlockedAddress("64:ff9b:1:7f00:0:100::")).toBe(true);
  });

  it("checks the IPv4 address embedded in 6to4 addresses (2002::/16)", () => {
    for (const address of ["2002:7f00:1::1", "2002:a00:1::", "2002:c0a8:101::1", "2002:a9fe:a9fe::1", "2002:c000:201::1", "2002:ffff:ffff::1"]) {
      expect(isBlockedAddress(address), address).toBe(true);
    }
    expect(isBlockedAddress("2002:808:808::1")).toBe(false);
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
    ((_host: string, _options: unknown, callback: (error: Error | null, addresses: LookupAddress[]) => void) =>
      callback(null, addresses)) as unknown as typeof dns.lookup;
  const lookup = (allow: boolean, addresses: LookupAddress[], all: boolean) =>
    new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) =>
      guardedLookup(allow, resolverOf(addresses))("example.test", { all }, ((error: Error | null, address: unknown, family?: number) =>
        resolve({ error, address, family })) as never),
    );

  it("answers the resolved public address, in both callback forms", async () => {
    expect(await lookup(false, [{ address: "93.184.216.34", family: 4 }], false)).toEqual({ error: null, address: "93.184.216.34", family: 4 });
    expect((await lookup(false, [{ address: "93.184.216.34", family: 4 }], true)).address).toEqual([{ address: "93.184.216.34", family: 4 }]);
  });

  it("refuses a name when any of its addresses is private, unless private networks are allowed", async () => {
    const mixed = [
      { address: "93.184.216.34", family: 4 },
      { address: "10.0.0.5", family: 4 },
    ];
    expect((await lookup(false, mixed, true)).error).toBeInstanceOf(BlockedAddressError);
    expect((await lookup(true, mixed, false)).address).toBe("93.184.216.34");
  });
});
