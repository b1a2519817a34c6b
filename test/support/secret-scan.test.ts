import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateToken } from "@waybill/contracts/identity/tokens.js";
import { findSecrets } from "./secret-scan.js";

describe("the log secret scan", () => {
  it("finds Waybill's credentials and unredacted secret fields in log lines", () => {
    const lines = [
      `{"msg":"request","url":"/v1/orders?token=${generateToken("api")}"}`,
      `{"msg":"x","note":"whsec_${randomBytes(32).toString("base64")}"}`,
      `{"msg":"x","h":"Bearer abcdefghijklmnopqrstuvwxyz012345"}`,
      `{"msg":"x","password":"hunter22-secret"}`,
      `{"msg":"x","jwt":"eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1c3JfMSJ9.${randomBytes(40).toString("base64url")}"}`,
      "-----BEGIN PRIVATE KEY-----",
    ];
    expect(findSecrets(lines.join("\n")).map((f) => f.kind)).toEqual([
      "API token",
      "hook secret",
      "bearer credential",
      "unredacted secret field",
      "session JWT",
      "private key",
    ]);
  });

  it("passes redacted fields and ordinary ids", () => {
    const clean = [
      '{"msg":"request","headers":{"authorization":"[redacted]"},"password":"[redacted]"}',
      '{"msg":"hook created","hookId":"hook_01jc0000000000000000000000","tokenId":"tok_01jc0000000000000000000000"}',
      '{"msg":"x","token":"[redacted]","type":"api"}',
    ];
    expect(findSecrets(clean.join("\n"))).toEqual([]);
  });
});
