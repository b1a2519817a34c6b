import { describe, expect, it } from "vitest";
import { appError } from "../errors/catalog.js";
import { createCachingTokenResolver, type TokenPrincipal } from "./token-resolver.js";

const TOKEN = `api-${"A".repeat(43)}`;
const OTHER = `api-${"B".repeat(43)}`;

function principal(credentialId: string, expiresAtMs = 0): TokenPrincipal {
  return { kind: "token", tenantId: "ten_1", credentialId, tokenType: "api", expiresAtMs };
}

/** A lookup whose answers the test releases one by one, counting the calls. */
function controlledLookup() {
  const pending: ((p: TokenPrincipal) => void)[] = [];
  const state = {
    calls: 0,
    lookup: (_token: string) => {
      state.calls += 1;
      return new Promise<TokenPrincipal>((resolve) => pending.push(resolve));
    },
    /** Answers the oldest lookup in flight. */
    answer(p: TokenPrincipal) {
      pending.shift()!(p);
    },
    async settle() {
      await new Promise((r) => setImmediate(r));
    },
  };
  return state;
}

/** Answers at once, refusing expired tokens as identity does. */
const instant = (answers: Record<string, TokenPrincipal>) => {
  const state = {
    calls: 0,
    lookup: async (token: string) => {
      state.calls += 1;
      const found = answers[token];
      if (found.expiresAtMs !== 0 && found.expiresAtMs <= Date.now()) throw appError("token_expired", "expired");
      return found;
    },
  };
  return state;
};

describe("token resolver cache", () => {
  it("answers a token from the cache until it is revoked, then asks identity again", async () => {
    const fake = instant({ [TOKEN]: principal("tok_1") });
    const resolver = createCachingTokenResolver(fake.lookup, { ttlMs: 60_000, max: 100 });
    await resolver.resolve(TOKEN);
    await resolver.resolve(TOKEN);
    expect(fake.calls).toBe(1);
    resolver.forget("tok_1");
    await resolver.resolve(TOKEN);
    expect(fake.calls).toBe(2);
  });

  it("does not let an answer that was in flight during the revocation bring the token back", async () => {
    const fake = controlledLookup();
    const resolver = createCachingTokenResolver(fake.lookup, { ttlMs: 60_000, max: 100 });
    const racing = resolver.resolve(TOKEN);
    await fake.settle();
    // The revocation arrives before identity's (older) answer: that answer serves the request
    // that was under way, and is not cached.
    resolver.forget("tok_1");
    fake.answer(principal("tok_1"));
    await expect(racing).resolves.toMatchObject({ credentialId: "tok_1" });
    // The next request asks identity, which knows about the revocation.
    const next = resolver.resolve(TOKEN);
    await fake.settle();
    expect(fake.calls).toBe(2);
    fake.answer(principal("tok_1"));
    await expect(next).resolves.toMatchObject({ credentialId: "tok_1" });
  });

  it("does not cache an answer that was in flight during a gap (revocations possibly missed)", async () => {
    const fake = controlledLookup();
    const resolver = createCachingTokenResolver(fake.lookup, { ttlMs: 60_000, max: 100 });
    const racing = resolver.resolve(TOKEN);
    await fake.settle();
    resolver.forgetAll();
    fake.answer(principal("tok_1"));
    await expect(racing).resolves.toMatchObject({ credentialId: "tok_1" });
    const again = resolver.resolve(TOKEN);
    await fake.settle();
    expect(fake.calls).toBe(2);
    fake.answer(principal("tok_1"));
    await again;
    // Now it is cached as usual.
    await resolver.resolve(TOKEN);
    expect(fake.calls).toBe(2);
  });

  it("caches an answer only when no revocation came while it was asked for", async () => {
    const fake = controlledLookup();
    const resolver = createCachingTokenResolver(fake.lookup, { ttlMs: 60_000, max: 100 });
    const racing = resolver.resolve(TOKEN);
    await fake.settle();
    resolver.forget("tok_other");
    fake.answer(principal("tok_1"));
    await expect(racing).resolves.toMatchObject({ credentialId: "tok_1" });
    const again = resolver.resolve(TOKEN);
    await fake.settle();
    expect(fake.calls).toBe(2);
    fake.answer(principal("tok_1"));
    await again;
    await resolver.resolve(TOKEN);
    expect(fake.calls).toBe(2);
  });

  it("answers 401 token_expired for a cached token once its expiry passes", async () => {
    const fake = instant({ [TOKEN]: principal("tok_1", Date.now() + 60), [OTHER]: principal("tok_2") });
    const resolver = createCachingTokenResolver(fake.lookup, { ttlMs: 60_000, max: 100 });
    await resolver.resolve(TOKEN);
    await resolver.resolve(OTHER);
    await new Promise((r) => setTimeout(r, 80));
    await expect(resolver.resolve(TOKEN)).rejects.toMatchObject({ status: 401, code: "token_expired" });
    // A token without expiry is still answered from the cache.
    const calls = fake.calls;
    await resolver.resolve(OTHER);
    expect(fake.calls).toBe(calls);
  });

  it("caches nothing when the ttl is 0", async () => {
    const fake = instant({ [TOKEN]: principal("tok_1") });
    const resolver = createCachingTokenResolver(fake.lookup, { ttlMs: 0, max: 100 });
    await resolver.resolve(TOKEN);
    await resolver.resolve(TOKEN);
    expect(fake.calls).toBe(2);
  });
});
