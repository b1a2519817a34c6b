// Sessions, API tokens and users: request and response schemas.
import { z } from "zod";

export const loginBody = z
  .object({
    email: z.string().email().max(254),
    password: z.string().min(1).max(1024),
    remember: z
      .boolean()
      .optional()
      .describe("Stay signed in: the answer also sets the HttpOnly refresh cookie `waybill_session` (Path=/v1/auth) for POST /v1/auth/refresh"),
  })
  .strict();
export const loginOutput = z.object({ accessToken: z.string(), tokenType: z.literal("Bearer"), expiresAt: z.string() });

export const createTokenBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    type: z.enum(["api", "cli", "machine", "sensor"]),
    expiresAt: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

export const tokenOutput = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(["api", "cli", "machine", "sensor"]),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

export const createdTokenOutput = tokenOutput.omit({ lastUsedAt: true, revokedAt: true }).extend({
  token: z
    .string()
    .optional()
    .describe("The token value `{type}-{secret}`; shown only in the first answer, absent when the answer is an Idempotency-Key replay"),
});

export const createUserBody = z
  .object({ email: z.string().email().max(254), password: z.string().min(8).max(1024), role: z.enum(["admin", "member"]).default("member") })
  .strict();

export const userOutput = z.object({ id: z.string(), email: z.string(), role: z.enum(["admin", "member"]), createdAt: z.string() });

export const sessionOutput = z.object({
  id: z.string().describe("The session's id (ses_…), the `sid` claim of its access tokens"),
  createdAt: z.string(),
  lastUsedAt: z.string().describe("Login or the last refresh"),
  expiresAt: z.string(),
  userAgent: z.string().nullable(),
  current: z.boolean().describe("The session of the access token this request was made with"),
});

export const sessionListOutput = z.object({ data: z.array(sessionOutput), nextCursor: z.null() });
