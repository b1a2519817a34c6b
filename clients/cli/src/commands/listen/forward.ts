// POSTs one event to the local receiver exactly as the dispatcher delivers it: the same body bytes
// and the same headers (Content-Type, X-Service-Webhook-Id, X-Service-Signature, User-Agent
// Waybill-Webhooks/1, traceparent, plus Host, Content-Length and Connection: keep-alive that HTTP/1.1 adds),
// and nothing a browser-like fetch would add (accept-language, sec-fetch-mode …). node:http does
// that without bundling an HTTP client.
import { randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { deliveryHeaders } from "../../signing.js";

/** The dispatcher's User-Agent (services/dispatcher/sender.ts). */
export const DELIVERY_USER_AGENT = "Waybill-Webhooks/1";
/** How long the local receiver may take to answer one forward. */
export const FORWARD_TIMEOUT_MS = 30_000;

export interface ForwardResult {
  status: number | null;
  statusText: string;
  durationMs: number;
  error?: string;
}

/**
 * A delivery carries the W3C traceparent of the dispatcher's POST; the event stream does not say
 * which trace an event belongs to, so each forward starts a trace of its own (sampled, as the
 * dispatcher's are when tracing is on) and a receiver that reads the header sees the same shape.
 */
function newTraceparent(): string {
  return `00-${randomBytes(16).toString("hex")}-${randomBytes(8).toString("hex")}-01`;
}

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

export function forward(url: string, hookId: string, secret: string, body: string): Promise<ForwardResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(url);
  const secure = target.protocol === "https:";
  const headers = {
    ...deliveryHeaders(hookId, secret, body),
    "User-Agent": DELIVERY_USER_AGENT,
    traceparent: newTraceparent(),
    "Content-Length": String(Buffer.byteLength(body)),
  };
  return new Promise((resolve) => {
    const request = (secure ? https : http).request(
      target,
      { method: "POST", headers, agent: secure ? agents.https : agents.http, timeout: FORWARD_TIMEOUT_MS },
      (response) => {
        response.resume(); // read and drop the answer, so that the connection is reused
        response.on("end", () => resolve({ status: response.statusCode ?? null, statusText: response.statusMessage ?? "", durationMs: elapsed() }));
        response.on("error", (error) =>
          resolve({ status: response.statusCode ?? null, statusText: response.statusMessage ?? "", durationMs: elapsed(), error: error.message }),
        );
      },
    );
    request.on("timeout", () => request.destroy(new Error(`no answer within ${FORWARD_TIMEOUT_MS / 1000} s`)));
    request.on("error", (error: NodeJS.ErrnoException) =>
      resolve({
        status: null,
        statusText: "",
        durationMs: elapsed(),
        error: error.code && !error.message.includes(error.code) ? `${error.code} ${error.message}` : error.message,
      }),
    );
    request.end(body);
  });
}

/** Lets the process end once listen stops (idle keep-alive sockets would hold it). */
export function closeForwardConnections(): void {
  agents.http.destroy();
  agents.https.destroy();
}
