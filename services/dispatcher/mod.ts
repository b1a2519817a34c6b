// The dispatcher's public surface: what the launcher composes. Everything else is internal.
export { loadDispatcherConfig, type DispatcherConfig } from "./config.js";
export { ensureSecretKeyFile } from "./secret-key-file.js";
export { startDispatcher, type DispatcherHandle } from "./service.js";
