// pino JSON logs; every line written inside an operation carries its request and transaction id.
import { pino, type Logger } from "pino";
import { currentContext } from "./context.js";

export type { Logger };

export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service },
    mixin() {
      const context = currentContext();
      return context ? { reqId: context.requestId, transactionId: context.transactionId } : {};
    },
  });
}
