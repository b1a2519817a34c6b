// Identity's public surface: what the launcher composes. Everything else is internal.
export { bootstrapCredentialsText, hasGeneratedSecrets, writeCredentialsFile } from "./bootstrap-credentials.js";
/** Under `npm start` without IDENTITY_SECRET_KEY: the data folder file that holds it. */
export const IDENTITY_SECRET_KEY_FILE = "identity-secret-key";
export { loadIdentityConfig, type IdentityConfig } from "./config.js";
export { IDENTITY_SERVICE_SCHEMA, startIdentity, type IdentityHandle } from "./service.js";
/** The stream identity owns (the launcher lists it at start). */
export { REVOCATIONS_STREAM } from "@waybill/contracts/identity/revocations.js";
