// Which installation owns a stream prefix's streams on a NATS server. Two installations with
// their own databases on one NATS and the same STREAM_PREFIX would share EVENTS and the
// dispatcher's durable consumers: each would take the other's events, find no hook for them in
// its own database, and lose them silently. So each service claims its prefix for its
// installation (installation.ts) at start, in a key-value bucket every installation on the
// server shares, and refuses to start when another installation holds the claim. Replicas and
// the other services of one installation read the same id from their database, so they share it.
import { Kvm, type KV } from "@nats-io/kv";
import { ConfigError } from "./config.js";
import type { Logger } from "./logger.js";
import { type Bus, streamConfigs } from "./nats.js";

/** Not prefixed: installations with different prefixes must see each other's claims. */
export const STREAM_CLAIMS_BUCKET = "waybill_stream_claims";
const CLAIM_ATTEMPTS = 5;

export interface StreamClaim {
  installationId: string;
  /** When and by which service the claim was made (for the operator reading it). */
  claimedAt: string;
  claimedBy: string;
}

export interface ClaimStreamsOptions {
  installationId: string;
  service: string;
  replicas: number;
  /** Another installation's id whose claim this one takes over (it is gone, or this replaces it). */
  takeOverFrom?: string;
  logger: Logger;
}

/** Another installation owns the streams of this prefix. */
export class StreamsClaimedError extends ConfigError {}

/** The bucket key of a prefix ("-" for none: not a character a prefix may hold). */
export function claimKey(prefix: string): string {
  return `streams.${prefix === "" ? "-" : prefix}`;
}

/** Claims the bus's stream prefix for `installationId`, or throws StreamsClaimedError. */
export async function claimStreams(bus: Bus, options: ClaimStreamsOptions): Promise<void> {
  const kv = await openClaims(bus, options.replicas);
  const prefix = bus.topology.eventsStream.slice(0, -"EVENTS".length);
  const key = claimKey(prefix);
  const mine = (): StreamClaim => ({ installationId: options.installationId, claimedAt: new Date().toISOString(), claimedBy: options.service });
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const entry = await kv.get(key);
    if (entry?.operation !== "PUT") {
      // Compare-and-set: of two installations claiming at once, one wins and the other reads it.
      const created = await kv.create(key, JSON.stringify(mine())).then(
        () => true,
        () => false,
      );
      if (created) {
        options.logger.info({ prefix, installationId: options.installationId }, "claimed the stream prefix for this installation");
        return;
      }
      continue;
    }
    const claim = entry.json<StreamClaim>();
    if (claim.installationId === options.installationId) return;
    if (options.takeOverFrom && options.takeOverFrom === claim.installationId) {
      const updated = await kv.update(key, JSON.stringify(mine()), entry.revision).then(
        () => true,
        () => false,
      );
      if (updated) {
        options.logger.warn(
          { prefix, from: claim.installationId, installationId: options.installationId },
          "took over the stream prefix (STREAMS_TAKE_OVER_FROM)",
        );
        return;
      }
      continue;
    }
    throw new StreamsClaimedError(claimedMessage(prefix, bus, claim, options.installationId));
  }
  throw new Error(`could not claim the stream prefix "${prefix}" after ${CLAIM_ATTEMPTS} attempts (claims changing meanwhile)`);
}

/** The claim on a prefix, if any (for operators and tests). */
export async function readStreamClaim(bus: Bus, prefix: string): Promise<StreamClaim | undefined> {
  const entry = await (await openClaims(bus, 1)).get(claimKey(prefix));
  return entry && entry.operation === "PUT" ? entry.json<StreamClaim>() : undefined;
}

/** Forgets the claim on a prefix (tests that delete their streams). */
export async function releaseStreamClaim(bus: Pick<Bus, "js">, prefix: string): Promise<void> {
  await (await openClaims(bus, 1)).delete(claimKey(prefix));
}

async function openClaims(bus: Pick<Bus, "js">, replicas: number): Promise<KV> {
  const kvm = new Kvm(bus.js);
  try {
    return await kvm.create(STREAM_CLAIMS_BUCKET, { history: 1, replicas });
  } catch {
    // It exists with other settings (more replicas set by an operator): use it as it is.
    return kvm.open(STREAM_CLAIMS_BUCKET);
  }
}

function claimedMessage(prefix: string, bus: Bus, claim: StreamClaim, installationId: string): string {
  const streams = streamConfigs(bus.topology, 1, bus.streams).map((stream) => stream.name);
  return [
    `the NATS streams of stream prefix ${prefix ? `"${prefix}"` : "none (STREAM_PREFIX is unset)"} (${streams.join(", ")}) belong to another Waybill installation,`,
    `${claim.installationId} (claimed ${claim.claimedAt} by its ${claim.claimedBy}); this installation is ${installationId} (the id kept in its database).`,
    "Two installations on one NATS server must not share streams: each would take the other's events and lose their deliveries.",
    "Set STREAM_PREFIX to a prefix of this installation's own on every one of its services (letters, digits and _, e.g. STREAM_PREFIX=staging_).",
    `If that other installation is gone and this one replaces it (a database restored elsewhere), start once with STREAMS_TAKE_OVER_FROM=${claim.installationId}.`,
  ].join("\n");
}
