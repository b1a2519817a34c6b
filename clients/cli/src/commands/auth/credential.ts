// What a credential is (an API token's type from its prefix, a session's claims) and whether it works.
import { WaybillApiError, type WaybillClient } from "@waybill/sdk";

export const TOKEN_TYPE = /^(api|cli|machine|sensor)-/;

export type TokenType = "api" | "cli" | "machine" | "sensor";

export function tokenTypeOf(token: string): TokenType | undefined {
  return TOKEN_TYPE.exec(token)?.[1] as TokenType | undefined;
}

/** "ok" when the credential may read; a valid credential that may not is still accepted (sensor tokens). */
export async function verify(api: WaybillClient): Promise<string> {
  try {
    await api.GET("/event-kinds");
    return "ok";
  } catch (error) {
    if (error instanceof WaybillApiError && error.status === 403) return "valid, but may not read business data";
    throw error;
  }
}

export interface CredentialDescription {
  credential: string;
  user?: string;
  role?: string;
  tenantId?: string;
  expiresAt?: string;
}

export function describeCredential(token: string): CredentialDescription {
  const type = TOKEN_TYPE.exec(token);
  if (type) return { credential: `${type[1]} token ${token.slice(0, type[0].length + 4)}…` };
  try {
    const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString("utf8")) as Record<string, unknown>;
    const str = (key: string) => (typeof claims[key] === "string" ? (claims[key] as string) : undefined);
    return {
      credential: "session",
      user: str("email") ?? str("sub"),
      role: str("role"),
      tenantId: str("tenantId") ?? str("tid"),
      expiresAt: typeof claims.exp === "number" ? new Date(claims.exp * 1000).toISOString() : undefined,
    };
  } catch {
    return { credential: "session" };
  }
}
