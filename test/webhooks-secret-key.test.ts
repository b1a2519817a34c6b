// The key sealing hook secrets is never replaced silently: a dispatcher started with another key
// while hooks exist refuses to start with a message saying what to do; the original key starts.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDispatcherConfig } from "../services/dispatcher/config.js";
import { SecretKeyMismatchError } from "../services/dispatcher/secret-key-check.js";
import { startDispatcher } from "../services/dispatcher/service.js";
import { client, type Call } from "./orders-fixtures.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook } from "./webhooks-fixtures.js";

let stack: Stack;
let call: Call;
beforeAll(async () => {
  stack = await startStack({ extraEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
  call = client(stack);
});
afterAll(async () => {
  await stack?.stop();
});

const dispatcherWith = (key: string | undefined) => startDispatcher(loadDispatcherConfig({ ...stack.serviceEnv, WEBHOOK_SECRET_KEY: key }));

describe("the webhook secret key", () => {
  it("may change while no hook exists, and not once one does: the dispatcher refuses to start and says why", async () => {
    const otherKey = randomBytes(32).toString("base64");
    // No hook yet: the other key takes over (nothing sealed with the first one exists).
    const first = await dispatcherWith(otherKey);
    await first.stop();
    const originalKey = stack.serviceEnv.WEBHOOK_SECRET_KEY;
    const back = await dispatcherWith(originalKey);
    await back.stop();

    await createHook(call, { url: "http://127.0.0.1:9/hook", on: "order.created" });
    const refused = await dispatcherWith(otherKey).then(
      (handle) => handle.stop().then(() => undefined),
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(SecretKeyMismatchError);
    expect(String((refused as Error).message)).toMatch(/not the key that sealed the secrets of the 1 existing hook/);
    expect(String((refused as Error).message)).toMatch(/Start with the original key again/);
    // A per-process key (no WEBHOOK_SECRET_KEY at all) is refused the same way.
    await expect(dispatcherWith(undefined)).rejects.toBeInstanceOf(SecretKeyMismatchError);
    // The original key still starts, and the hooks' secrets are intact.
    const again = await dispatcherWith(originalKey);
    await again.stop();
  });
});
