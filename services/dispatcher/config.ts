import { z } from "zod";
import { baseConfigShape, DEFAULT_PORTS, loadConfig, port } from "../platform/config.js";

export const dispatcherConfigSchema = z.object({
  ...baseConfigShape,
  GRPC_PORT: port.default(DEFAULT_PORTS.dispatcher.grpc),
  OPS_PORT: port.default(DEFAULT_PORTS.dispatcher.ops),
});

export type DispatcherConfig = Readonly<z.output<typeof dispatcherConfigSchema>>;

export const loadDispatcherConfig = (env: Record<string, string | undefined> = process.env): DispatcherConfig =>
  loadConfig(dispatcherConfigSchema, env);
