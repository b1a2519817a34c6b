import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger("test", "debug", stream) };
}

describe("logger", () => {
  it("redacts credentials wherever a logged object carries them, and keeps the rest", () => {
    const { lines, logger } = capture();
    logger.info(
      {
        authorization: "Bearer api-topsecret-0000000000000000",
        headers: { authorization: "Bearer cli-also-secret-000000000000", "x-service-signature": "t=1,v1=abc", "content-type": "application/json" },
        body: { email: "ada@example.com", password: "hunter2-hunter2", token: "sensor-abcdefabcdefabcdef" },
        hook: { secret: "whsec_c2VjcmV0LXNpZ25pbmcta2V5", url: "https://example.com/hooks" },
        session: { accessToken: "eyJhbGciOiJFZERTQSJ9.e30.sig" },
        path: "/v1/orders",
      },
      "request",
    );
    const line = lines.join("");
    for (const secret of ["api-topsecret", "cli-also-secret", "t=1,v1=abc", "hunter2", "sensor-abcdef", "whsec_", "eyJhbGci"])
      expect(line).not.toContain(secret);
    const parsed = JSON.parse(line);
    expect(parsed.authorization).toBe("[redacted]");
    expect(parsed.headers["content-type"]).toBe("application/json");
    expect(parsed.body.email).toBe("ada@example.com");
    expect(parsed.hook.url).toBe("https://example.com/hooks");
    expect(parsed.path).toBe("/v1/orders");
  });
});
