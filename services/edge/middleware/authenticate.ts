// Bearer authentication through the cached token resolver: a request with a known token costs
// no gRPC round trip.
import type { Middleware } from "koa";
import type { Principal, TokenResolver } from "../../identity/token-resolver.js";
import { tokenTypeOf } from "../../identity/tokens.js";
import { UnauthenticatedError } from "../../platform/errors.js";

declare module "koa" {
  interface DefaultState {
    principal?: Principal;
  }
}

const BEARER = /^Bearer[ ]+([^ ]+)[ ]*$/i;

export function authenticate(resolver: TokenResolver): Middleware {
  return async (ctx, next) => {
    const header = ctx.get("authorization");
    if (!header) throw new UnauthenticatedError("missing_credentials", "Send Authorization: Bearer <token>.");
    const match = BEARER.exec(header);
    if (!match) throw new UnauthenticatedError("invalid_authorization_header", "The Authorization header must be: Bearer <token>.");
    const token = match[1];
    if (!tokenTypeOf(token)) throw new UnauthenticatedError("invalid_token", "The bearer token is not a Waybill token.");
    ctx.state.principal = await resolver.resolve(token);
    await next();
  };
}
