// Public surface of the Waybill SDK.
export { createWaybillClient, data, apiRoot, DEFAULT_BASE_URL, type WaybillClient, type WaybillClientOptions } from "./client.js";
export { WaybillApiError, WaybillConnectionError, problemFromResponse, type Problem, type ProblemFieldError } from "./errors.js";
export { streamEvents, type EventStreamOptions, type StreamedEvent } from "./event-stream.js";
export type { paths, components, operations } from "./schema.js";

import type { operations } from "./schema.js";

type JsonBody<R> = R extends { content: { "application/json": infer B } } ? B : never;
type Success<Op extends keyof operations> = operations[Op]["responses"] extends infer Rs
  ? 200 extends keyof Rs
    ? Rs[200]
    : 201 extends keyof Rs
      ? Rs[201]
      : 202 extends keyof Rs
        ? Rs[202]
        : never
  : never;

/** The JSON body an operation answers with on success: `ResponseBody<"getOrdersById">` is an order. */
export type ResponseBody<Op extends keyof operations> = JsonBody<Success<Op>>;
/** The JSON body an operation accepts. */
export type RequestBody<Op extends keyof operations> = operations[Op] extends { requestBody?: infer B } ? JsonBody<NonNullable<B>> : never;

// The objects integrators handle most, named.
export type Order = ResponseBody<"getOrdersById">;
export type Hook = ResponseBody<"getHooksById">;
export type Execution = ResponseBody<"getHooksByIdExecutions">["data"][number];
export type Product = ResponseBody<"getProductsById">;
export type Customer = ResponseBody<"getCustomersById">;
export type Shipment = ResponseBody<"getShipmentsById">;
export type StockLevel = ResponseBody<"getInventory">["data"][number];
export type ApiToken = ResponseBody<"getTokens">["data"][number];
export type EventRecord = ResponseBody<"getEvents">["data"][number];
export type Device = ResponseBody<"getDevices">["data"][number];
