// Names of the API's own types that the screens share (from the SDK, generated from OpenAPI).
import type { RequestBody } from "@waybill/sdk";

export type EventKind = RequestBody<"postHooks">["on"];
