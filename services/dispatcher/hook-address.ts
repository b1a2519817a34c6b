// A hook whose URL points at an address the SSRF guard blocks is refused when it is created or
// changed (422 blocked_address), not accepted and then failed at every delivery. Deliveries are
// still checked when sent (ssrf.ts): a name may resolve elsewhere later.
import dns from "node:dns";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { isBlockedAddress, isBlockedLiteralHost } from "./ssrf.js";

export type HookUrlCheck = (url: string) => Promise<void>;

/** A resolver that does not answer within this is treated like a name that does not resolve. */
export const HOOK_URL_LOOKUP_TIMEOUT_MS = 3_000;

const blocked = (url: string, why: string) =>
  appError(
    "blocked_address",
    `The hook URL ${url} ${why}; deliveries there are refused. Use a public address, or set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the dispatcher for a receiver on a private network.`,
    { errors: [{ path: "url", message: why }] },
  );

/**
 * Refuses a URL whose host is a blocked address literal or resolves to one now. A name that does
 * not resolve is accepted: it may exist by the time events are delivered, and the guard checks then.
 */
export function createHookUrlCheck(
  allowPrivateNetworks: boolean,
  lookup: (host: string) => Promise<{ address: string }[]> = (host) => dns.promises.lookup(host, { all: true }),
): HookUrlCheck {
  return async (url) => {
    if (allowPrivateNetworks) return;
    const hostname = new URL(url).hostname;
    if (isBlockedLiteralHost(hostname, false)) throw blocked(url, `names a loopback, private or reserved address (${hostname})`);
    if (/^\[|^[\d.]+$/.test(hostname)) return; // a public literal: nothing to resolve
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<{ address: string }[]>((resolve) => (timer = setTimeout(() => resolve([]), HOOK_URL_LOOKUP_TIMEOUT_MS)));
    const addresses = await Promise.race([lookup(hostname).catch(() => []), timedOut]).finally(() => clearTimeout(timer));
    const inward = addresses.find((a) => isBlockedAddress(a.address));
    if (inward) throw blocked(url, `resolves to a loopback, private or reserved address (${hostname} → ${inward.address})`);
  };
}
