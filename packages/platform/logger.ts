// pino JSON logs; every line written inside an operation carries its request and transaction id
// (and trace). Credentials never reach a log line: the fields that can hold one are redacted
// wherever a logged object carries them (two levels deep, which covers headers and bodies).
import { pino, type Logger } from "pino";
import { currentContext } from "./context.js";

export type { Logger };

const SECRET_FIELDS = [
  "authorization",
  "cookie",
  "set-cookie",
  "password",
  "newPassword",
  "token",
  "accessToken",
  "secret",
  "privateKey",
  "private_pem",
  "x-service-signature",
];

/** Where a secret can sit in a logged object: the field itself, or one or two objects down. */
export const REDACTED_PATHS = SECRET_FIELDS.flatMap((field) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
  const join = (prefix: string) => (key.startsWith("[") ? `${prefix}${key}` : `${prefix}.${key}`);
  return [key.startsWith("[") ? key.slice(2, -2) : key, join("*"), join("*.*")];
});

const fileDestinations = new Map<string, pino.DestinationStream>();

/**
 * Standard output, or the file LOG_FILE names (appended to; written asynchronously). Services in
 * one process (npm start, tests) share one stream per file.
 */
export function logDestination(file: string | undefined): pino.DestinationStream | undefined {
  if (!file) return undefined;
  let destination = fileDestinations.get(file);
  if (!destination) {
    destination = pino.destination({ dest: file, append: true, mkdir: true, sync: false });
    fileDestinations.set(file, destination);
  }
  return destination;
}

export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      mixin() {
        const context = currentContext();
        return context ? { reqId: context.requestId, transactionId: context.transactionId, traceparent: context.traceparent } : {};
      },
    },
    destination,
  );
}
