import type { Context, Next } from "koa";
import { describe, expect, it, vi } from "vitest";
import type { TokenType } from "@waybill/contracts/identity/tokens.js";
import { AppError } from "@waybill/platform/errors.js";
import type { Role } from "@waybill/contracts/identity/roles.js";
import { can, requires, roleCan, type Capability } from "./permissions.js";

const ALL: Capability[] = [
  "read",
  "orders:write",
  "shipments:write",
  "products:write",
  "inventory:write",
  "customers:write",
  "hooks:write",
  "tokens:manage",
  "users:manage",
  "devices:publish",
  "sessions:own",
];

// API.md "Token types": api — the whole API; machine — the whole API but token management
// (users included: an admin user could mint tokens); cli — hooks, orders, shipments, products,
// reads; sensor — device publishing and readings only.
const ALLOWED: Record<TokenType, Capability[]> = {
  // sessions:own is a user's own console sessions: no token has any.
  api: ALL.filter((c) => c !== "sessions:own"),
  machine: ALL.filter((c) => c !== "tokens:manage" && c !== "users:manage" && c !== "sessions:own"),
  cli: ["read", "hooks:write", "orders:write", "shipments:write", "products:write"],
  sensor: ["devices:publish"],
};

const ALLOWED_BY_ROLE: Record<Role, Capability[]> = { admin: [...ALLOWED.api, "sessions:own"], member: [...ALLOWED.machine, "sessions:own"] };

describe("can", () => {
  it("is false, not a crash, for a type that is not a token type", () => {
    expect(can("constructor" as TokenType, "read")).toBe(false);
    expect(can("admin" as TokenType, "read")).toBe(false);
  });

  for (const [type, allowed] of Object.entries(ALLOWED) as [TokenType, Capability[]][]) {
    it.each(ALL.map((capability) => [capability, allowed.includes(capability)] as const))(`${type} token: %s → %s`, (capability, expected) => {
      expect(can(type, capability)).toBe(expected);
    });
  }
});

describe("roleCan", () => {
  for (const [role, allowed] of Object.entries(ALLOWED_BY_ROLE) as [Role, Capability[]][]) {
    it.each(ALL.map((capability) => [capability, allowed.includes(capability)] as const))(`${role} session: %s → %s`, (capability, expected) => {
      expect(roleCan(role, capability)).toBe(expected);
    });
  }
  it("is false for a role that is not a role", () => {
    expect(roleCan("owner" as Role, "read")).toBe(false);
  });
});

function fakeCtx(principal?: { tokenType: TokenType }, params: Record<string, string> = {}): Context {
  return {
    params,
    state: principal ? { principal: { kind: "token", tenantId: "ten_1", credentialId: "tok_1", expiresAtMs: 0, ...principal } } : {},
  } as unknown as Context;
}

describe("requires", () => {
  it("calls next when the token type may do it", async () => {
    const next = vi.fn<Next>(async () => undefined);
    await requires("orders:write")(fakeCtx({ tokenType: "cli" }), next);
    expect(next).toHaveBeenCalledOnce();
  });

  it("answers 403 token_type_forbidden without calling next", async () => {
    const next = vi.fn<Next>(async () => undefined);
    const result = requires("tokens:manage")(fakeCtx({ tokenType: "machine" }), next);
    await expect(result).rejects.toBeInstanceOf(AppError);
    await expect(requires("read")(fakeCtx({ tokenType: "sensor" }), next)).rejects.toMatchObject({
      status: 403,
      code: "token_type_forbidden",
    });
    expect(next).not.toHaveBeenCalled();
  });

  it("answers 401 when there is no principal", async () => {
    const next = vi.fn<Next>(async () => undefined);
    await expect(requires("read")(fakeCtx(), next)).rejects.toBeInstanceOf(AppError);
    expect(next).not.toHaveBeenCalled();
  });

  it("lets a token act on its own id without the capability, and on no other", async () => {
    const next = vi.fn<Next>(async () => undefined);
    await requires("tokens:manage", "id")(fakeCtx({ tokenType: "cli" }, { id: "tok_1" }), next);
    expect(next).toHaveBeenCalledOnce();
    await expect(requires("tokens:manage", "id")(fakeCtx({ tokenType: "cli" }, { id: "tok_2" }), next)).rejects.toMatchObject({
      status: 403,
      code: "token_type_forbidden",
    });
    // Without the parameter named, its own id grants nothing.
    await expect(requires("tokens:manage")(fakeCtx({ tokenType: "cli" }, { id: "tok_1" }), next)).rejects.toBeInstanceOf(AppError);
    expect(next).toHaveBeenCalledOnce();
  });
});
