// The edge's public surface: what the launcher composes. Everything else is internal.
export { DEFAULT_HTTP_PORT, loadEdgeConfig, type EdgeConfig } from "./config.js";
export { startEdge, type EdgeHandle } from "./service.js";
