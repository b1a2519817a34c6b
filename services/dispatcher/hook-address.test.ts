import { describe, expect, it } from "vitest";
import { AppError } from "@waybill/platform/errors.js";
import { createHookUrlCheck } from "./hook-address.js";

const resolvesTo = (table: Record<string, string[]>) => async (host: string) => {
  if (!(host in table)) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
  return table[host].map((address) => ({ address }));
};

const refusal = async (promise: Promise<void>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("createHookUrlCheck", () => {
  const check = createHookUrlCheck(
    false,
    resolvesTo({ "receiver.example": ["93.184.215.14"], "inward.example": ["93.184.215.14", "10.0.0.7"], localhost: ["127.0.0.1"] }),
  );

  it.each(["http://127.0.0.1:4000/", "http://[::1]/", "http://169.254.169.254/latest", "http://10.1.2.3/", "http://[::ffff:192.168.0.1]/", "http://0.0.0.0/"])(
    "refuses the literal %s with 422 blocked_address on url",
    async (url) => {
      const error = await refusal(check(url));
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({
        code: "blocked_address",
        errors: [{ path: "url", message: expect.stringContaining("names a loopback, private or reserved address") }],
      });
    },
  );

  it("refuses a name when any address it resolves to is blocked, naming that address", async () => {
    expect(await refusal(check("https://inward.example/hook"))).toMatchObject({
      code: "blocked_address",
      message: expect.stringContaining("inward.example → 10.0.0.7"),
    });
    expect(await refusal(check("http://localhost:4000/"))).toMatchObject({ code: "blocked_address" });
  });

  it("accepts public literals and names, and names that do not resolve (the delivery guard checks again)", async () => {
    await expect(check("https://receiver.example/hook")).resolves.toBeUndefined();
    await expect(check("http://93.184.215.14/hook")).resolves.toBeUndefined();
    await expect(check("https://nowhere.invalid/hook")).resolves.toBeUndefined();
  });

  it("accepts everything with WEBHOOK_ALLOW_PRIVATE_NETWORKS, without resolving", async () => {
    const open = createHookUrlCheck(true, async () => {
      throw new Error("must not resolve");
    });
    await expect(open("http://127.0.0.1:4000/")).resolves.toBeUndefined();
    await expect(open("http://localhost/")).resolves.toBeUndefined();
  });
});
