// planStreamUpdate: an existing stream is raised to what Waybill needs, never lowered or reset.
import { describe, expect, it } from "vitest";
import { RetentionPolicy, StorageType, type StreamConfig } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import { createTopology, planStreamUpdate, streamConfigs } from "./nats.js";

const wanted = (replicas: number) => streamConfigs(createTopology("P_"), replicas)[0];
const existing = (overrides: Partial<StreamConfig> = {}): StreamConfig => ({ ...(wanted(1) as StreamConfig), ...overrides });

describe("planStreamUpdate", () => {
  it("creates streams with the configured replica count", () => {
    expect(streamConfigs(createTopology(""), 3).every((c) => c.num_replicas === 3)).toBe(true);
  });

  it("never lowers an existing stream's replicas", () => {
    const plan = planStreamUpdate(existing({ num_replicas: 3 }), wanted(1));
    expect(plan.update).toBeUndefined();
  });

  it("raises replicas that are too few, keeping the operator's other settings", () => {
    const tuned = existing({ num_replicas: 1, max_age: nanos(1000), max_bytes: 1 << 30 });
    const plan = planStreamUpdate(tuned, wanted(3));
    expect(plan.update).toEqual({ ...tuned, num_replicas: 3 });
    expect(plan.changes).toEqual(["replicas 1->3"]);
  });

  it("adds a missing subject and keeps subjects the operator added", () => {
    const plan = planStreamUpdate(existing({ subjects: ["extra.>"] }), wanted(1));
    expect(plan.update?.subjects).toEqual(["extra.>", "p_.events.>"]);
  });

  it("changes nothing when the stream already serves Waybill", () => {
    expect(planStreamUpdate(existing({ max_age: nanos(5) }), wanted(1))).toEqual({ update: undefined, changes: [], conflicts: [] });
  });

  it("reports immutable fields that differ instead of changing them", () => {
    const plan = planStreamUpdate(existing({ storage: StorageType.Memory, retention: RetentionPolicy.Interest }), wanted(1));
    expect(plan.update).toBeUndefined();
    expect(plan.conflicts).toHaveLength(2);
  });
});
