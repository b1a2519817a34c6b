import { describe, expect, it } from "vitest";
import { describeDatabase, withoutPasswords } from "./summary.js";

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
});
