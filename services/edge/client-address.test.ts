import { describe, expect, it } from "vitest";
import { clientAddress, parseTrustedProxies } from "./client-address.js";

const ingress = parseTrustedProxies("10.0.0.0/8, fd00::/8, 192.168.1.7");
const none = parseTrustedProxies("");

describe("clientAddress", () => {
  it("is the socket's peer when no proxy is trusted, whatever the header says", () => {
    expect(clientAddress("203.0.113.9", "198.51.100.1", none)).toBe("203.0.113.9");
  });

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy", () => {
    expect(clientAddress("203.0.113.9", "198.51.100.1", ingress)).toBe("203.0.113.9");
  });

  it("takes the first address from the right that no trusted proxy added", () => {
    // The client forged the first entry; the ingress appended the real peer.
    expect(clientAddress("10.1.2.3", "1.2.3.4, 198.51.100.7", ingress)).toBe("198.51.100.7");
    expect(clientAddress("10.1.2.3", "198.51.100.7, 10.9.9.9", ingress)).toBe("198.51.100.7");
  });

  it("handles IPv4-mapped peers, IPv6 ranges and single addresses", () => {
    expect(clientAddress("::ffff:10.1.2.3", "2001:db8::1", ingress)).toBe("2001:db8::1");
    expect(clientAddress("fd00::5", "198.51.100.8", ingress)).toBe("198.51.100.8");
    expect(clientAddress("192.168.1.7", "198.51.100.9", ingress)).toBe("198.51.100.9");
    expect(clientAddress("192.168.1.8", "198.51.100.9", ingress)).toBe("192.168.1.8");
  });

  it("stops at the last trusted hop when the header holds something that is not an address", () => {
    expect(clientAddress("10.1.2.3", "198.51.100.7, not-an-ip", ingress)).toBe("10.1.2.3");
  });

  it("refuses a malformed TRUSTED_PROXIES entry", () => {
    expect(() => parseTrustedProxies("10.0.0.0/x")).toThrow(/10.0.0.0\/x/);
    expect(() => parseTrustedProxies("proxy.local")).toThrow(/proxy.local/);
  });
});
