// Bearer authentication: API tokens through the cached resolver, session JWTs verified locally.
// Either way a request with a known credential costs no gRPC round trip.
import type { Middleware } from "koa";
import type { Principal, TokenResolver } from "@waybill/contracts/identity-client/token-resolver.js";
import { tokenTypeOf } from "@waybill/contracts/identity/tokens.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { SessionVerifier } from "@waybill/contracts/identity-client/session-verifier.js";

declare module "koa" {
  interface DefaultState {
    principal?: Principal;
  }
}

const BEARER = /^Bearer[ ]+([^ ]+)[ ]*$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export function authenticate(tokens: TokenResolver, sessions: SessionVerifier): Middleware {
  return async (ctx, next) => {
    const header = ctx.get("authorization");
    if (!header) throw appError("missing_credentials", "Send Authorization: Bearer <token>.");
    const match = BEARER.exec(header);
    if (!match) throw appError("invalid_authorization_header", "The Authorization header must be: Bearer <token>.");
    const credential = match[1];
    if (tokenTypeOf(credential)) ctx.state.principal = await tokens.resolve(credential);
    else if (JWT_SHAPE.test(credential)) ctx.state.principal = await sessions.verify(credential);
    else throw appError("invalid_token", "The bearer token is not a Waybill token.");
    await next();
  };
}
