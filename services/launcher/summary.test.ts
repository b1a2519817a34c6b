import { describe, expect, it } from "vitest";
import { describeDatabase, runningSummaryLines, withoutPasswords } from "./summary.js";

describe("launcher summary", () => {
  it("names host, port, database and user of a PostgreSQL URL, never its password", () => {
    expect(describeDatabase("postgres://app:s3cret@db.example:5433/waybill?sslmode=require")).toBe("db.example:5433/waybill as app");
    expect(describeDatabase("postgres://127.0.0.1:5432/waybill")).toBe("127.0.0.1:5432/waybill");
  });

  it("strips passwords from NATS URLs, one or a list", () => {
    expect(withoutPasswords("nats://app:s3cret@nats-1:4222,nats://app:s3cret@nats-2:4222")).toBe("nats://app@nats-1:4222,nats://app@nats-2:4222");
    expect(withoutPasswords("nats://127.0.0.1:4222")).toBe("nats://127.0.0.1:4222");
    expect(withoutPasswords("tls://user:pw@host:4443")).not.toContain("pw");
  });

  it("says when hooks may call private addresses, names the prefix and the installation, and prints no password", () => {
    const text = runningSummaryLines({
      httpUrl: "http://127.0.0.1:8080",
      httpBindHost: "0.0.0.0",
      mqttUrl: "mqtts://127.0.0.1:8883",
      mqttBindHost: "0.0.0.0",
      databaseUrl: "postgres://app:s3cret@db:5432/waybill",
      natsUrl: "nats://svc:n4ts@nats:4222",
      natsUser: "svc",
      streamPrefix: "staging_",
      streams: ["staging_EVENTS"],
      allowPrivateNetworks: true,
      installationId: "inst_01abc",
      opsPorts: { orders: 9102 },
    }).join("\n");
    expect(text).toContain("PostgreSQL: db:5432/waybill as app");
    expect(text).toContain('NATS:       nats://svc@nats:4222 as svc, stream prefix "staging_": staging_EVENTS');
    expect(text).toContain("Installation: inst_01abc");
    expect(text).toContain("private and loopback addresses ALLOWED (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)");
    expect(text).toContain("MQTT:       mqtts://127.0.0.1:8883   (port 8883 on 0.0.0.0)");
    expect(text).not.toMatch(/s3cret|n4ts/);
  });
});
