// Receivers on 127.0.0.1 (node:http, ephemeral ports) that record every request with its raw
// body. No vitest here: the chaos run imports it outside the runner.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eventually } from "./http-client.js";

export interface ReceivedRequest {
  at: number;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  // biome-ignore lint/suspicious/noExplicitAny: the body a receiver got, as the tests of each event kind read it
  json: any;
}

/** What the receiver answers; "hang" never answers (until the receiver closes). */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | "hang";

export interface TestReceiver {
  url: string;
  received: ReceivedRequest[];
  /** Decides each answer; receives the request's position (0-based) and the request. */
  respond: (index: number, request: ReceivedRequest) => Answer | Promise<Answer>;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(respond: TestReceiver["respond"] = () => ({ status: 200, body: "ok" })): Promise<TestReceiver> {
  const hanging = new Set<http.ServerResponse>();
  const receiver: TestReceiver = {
    url: "",
    received: [],
    respond,
    waitFor: (count, timeoutMs = 15_000) => eventually(async () => (receiver.received.length >= count ? receiver.received : undefined), timeoutMs, 20),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(rawBody);
      } catch {
        json = undefined;
      }
      const request = { at: Date.now(), headers: req.headers, rawBody, json };
      const index = receiver.received.push(request) - 1;
      const answer = await receiver.respond(index, request);
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      if (!res.destroyed) res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers }).end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
