// The receiver side of Waybill webhooks: signature verification and a reference receiver.
export { DEFAULT_TOLERANCE_SECONDS, parseSignatureHeader, SIGNATURE_HEADER, verifyWebhook, WEBHOOK_ID_HEADER } from "./verify.js";
export type { VerifyFailure, VerifyOptions, VerifyResult } from "./verify.js";
export { createReceiver } from "./example-receiver.js";
export type { ReceivedEvent, ReceiverOptions } from "./example-receiver.js";
