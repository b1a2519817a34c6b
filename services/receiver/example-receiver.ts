// A small reference receiver (node:http): reads the raw body, verifies the signature, answers
// 401 when it does not verify, drops duplicates by event id (deliveries are at-least-once) and
// hands each new event to `onEvent`.
//
// Run it:  WEBHOOK_SECRET=whsec_… PORT=4000 node services/receiver/dist/example-receiver.js   (after npm ci, or npm run build:receiver)
//     or:  WEBHOOK_SECRET=whsec_… PORT=4000 npx tsx services/receiver/example-receiver.ts
import http from "node:http";
import { fileURLToPath } from "node:url";
import { SIGNATURE_HEADER, verifyWebhook, WEBHOOK_ID_HEADER, type VerifyFailure } from "./verify.js";

export const MAX_BODY_BYTES = 1024 * 1024;
/** How many event ids are remembered for duplicate detection. */
export const SEEN_IDS_MAX = 10_000;

export interface ReceivedEvent {
  hookId: string;
  event: { id: string; kind: string; time: string; transactionId: string; [field: string]: unknown };
  rawBody: string;
  duplicate: boolean;
}

export interface ReceiverOptions {
  /** The hook's secret, or a function giving the current one (e.g. after a rotation). */
  secret: string | (() => string);
  onEvent?(received: ReceivedEvent): void | Promise<void>;
  onRejected?(reason: VerifyFailure | "body too large" | "not JSON"): void;
  toleranceSeconds?: number;
}

export function createReceiver(options: ReceiverOptions): http.Server {
  const seen = new Set<string>();
  return http.createServer(async (req, res) => {
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        options.onRejected?.("body too large");
        return void res.writeHead(413).end();
      }
      chunks.push(chunk as Buffer);
    }
    const raw = Buffer.concat(chunks);
    const secret = typeof options.secret === "function" ? options.secret() : options.secret;
    const verdict = verifyWebhook(secret, req.headers[SIGNATURE_HEADER], raw, { toleranceSeconds: options.toleranceSeconds });
    if (!verdict.ok) {
      options.onRejected?.(verdict.reason);
      return void res.writeHead(401, { "content-type": "text/plain" }).end(verdict.reason);
    }
    let event: ReceivedEvent["event"];
    try {
      event = JSON.parse(raw.toString("utf8"));
    } catch {
      options.onRejected?.("not JSON");
      return void res.writeHead(400).end();
    }
    const duplicate = seen.has(event.id);
    if (!duplicate) {
      seen.add(event.id);
      if (seen.size > SEEN_IDS_MAX) seen.delete(seen.values().next().value!);
    }
    try {
      await options.onEvent?.({ hookId: String(req.headers[WEBHOOK_ID_HEADER] ?? ""), event, rawBody: raw.toString("utf8"), duplicate });
    } catch {
      // Not processed: a non-2xx answer makes Waybill try again later.
      seen.delete(event.id);
      return void res.writeHead(500).end();
    }
    res.writeHead(204).end();
  });
}

// Run as a script: print every verified event.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    process.stderr.write("set WEBHOOK_SECRET to the hook's secret (whsec_…)\n");
    process.exit(2);
  }
  const port = Number(process.env.PORT ?? 4000);
  const server = createReceiver({
    secret,
    onEvent: ({ event, duplicate }) => void process.stdout.write(`${duplicate ? "duplicate" : "received"} ${event.kind} ${event.id}\n`),
    onRejected: (reason) => void process.stdout.write(`rejected: ${reason}\n`),
  });
  server.listen(port, process.env.HOST ?? "127.0.0.1", () =>
    process.stdout.write(`webhook receiver listening on http://${process.env.HOST ?? "127.0.0.1"}:${port}/\n`),
  );
}
