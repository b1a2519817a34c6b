// The dispatcher's public surface: what the launcher composes. Everything else is internal.
export { loadDispatcherConfig, type DispatcherConfig } from "./config.js";
/** Under `npm start` without WEBHOOK_SECRET_KEY: the data folder file that holds it. */
export const WEBHOOK_SECRET_KEY_FILE = "webhook-secret-key";
export { DISPATCHER_SERVICE_SCHEMA, startDispatcher, type DispatcherHandle } from "./service.js";
/** The stream the dispatcher owns (the launcher lists it at start). */
export { DELIVERIES_STREAM } from "./deliveries-stream.js";
