// Identity's public surface: what the launcher composes. Everything else is internal.
export { bootstrapCredentialsText, hasGeneratedSecrets, writeCredentialsFile } from "./bootstrap-credentials.js";
export { loadIdentityConfig, type IdentityConfig } from "./config.js";
export { startIdentity, type IdentityHandle } from "./service.js";
