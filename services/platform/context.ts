// The operation a piece of work belongs to: carried in HTTP headers, gRPC metadata and NATS
// headers so that one request can be followed across services and its events share one
// transaction id.
import { AsyncLocalStorage } from "node:async_hooks";
import { newId } from "./ids.js";

export interface OperationContext {
  requestId: string;
  transactionId: string;
}

const storage = new AsyncLocalStorage<OperationContext>();

export const REQUEST_ID_HEADER = "x-request-id";
export const TRANSACTION_ID_HEADER = "x-transaction-id";

export function currentContext(): OperationContext | undefined {
  return storage.getStore();
}

export function runInContext<T>(context: OperationContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The transaction id of the current operation, or a fresh one when there is none. */
export function currentTransactionId(): string {
  return storage.getStore()?.transactionId ?? newId("txn");
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * What a client may send as X-Transaction-Id to group several of its requests into one
 * operation: the txn_ prefix of our ids and a body of 10 to 64 letters and digits.
 */
export const CLIENT_TRANSACTION_ID = /^txn_[0-9A-Za-z]{10,64}$/;

export function isClientTransactionId(value: string): boolean {
  return CLIENT_TRANSACTION_ID.test(value);
}

/** Builds a context from incoming values, replacing anything missing or unsafe to log. */
export function contextFrom(requestId: string | undefined, transactionId: string | undefined): OperationContext {
  return {
    requestId: requestId && SAFE_ID.test(requestId) ? requestId : newId("req"),
    transactionId: transactionId && SAFE_ID.test(transactionId) ? transactionId : newId("txn"),
  };
}
