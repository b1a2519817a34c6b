// Server-Sent Events on a raw Node response, respecting the socket's backpressure: a write that
// fills the buffer makes the caller wait for 'drain', and a reader that does not drain within the
// bound is disconnected instead of being buffered for without limit.
import type { ServerResponse } from "node:http";

/** How long an ended stream may take to flush before its socket is closed. */
export const END_GRACE_MS = 1_000;

export interface SseChannel {
  /** Resolves true when more may be written, false when the connection is gone or was dropped. */
  send(frame: { id: string; event: string; data: string }): Promise<boolean>;
  /** A comment line (heartbeat); skipped while the reader is behind. */
  comment(text: string): void;
  /** Resolves when the connection ends, whoever ended it. */
  readonly closed: Promise<void>;
  isClosed(): boolean;
  end(): void;
}

export interface SseOptions {
  /** How long a full write buffer may stay full before the reader is dropped. */
  drainTimeoutMs: number;
  /** Told when a reader is dropped for staying behind. */
  onSlowReader?: () => void;
  /** Reconnection delay suggested to EventSource clients. */
  retryMs?: number;
}

/** `data:` may not hold a line break: each line becomes its own data field (readers join them with "\n"). */
export function formatEvent(frame: { id: string; event: string; data: string }): string {
  const data = frame.data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join("");
  return `id: ${frame.id}\nevent: ${frame.event}\n${data}\n`;
}

export function openSse(res: ServerResponse, headers: Record<string, string>, options: SseOptions): SseChannel {
  res.writeHead(200, {
    ...headers,
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache, no-transform",
    Connection: "keep-alive",
    // Proxies such as nginx buffer responses unless told not to.
    "X-Accel-Buffering": "no",
  });
  res.socket?.setNoDelay(true);
  let ended = false;
  const closed = new Promise<void>((resolve) =>
    res.once("close", () => {
      ended = true;
      resolve();
    }),
  );
  res.write(options.retryMs ? `retry: ${options.retryMs}\n: connected\n\n` : ": connected\n\n");

  function waitForDrain(): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        cleanup();
        options.onSlowReader?.();
        res.destroy();
        resolve(false);
      }, options.drainTimeoutMs);
      const onDrain = () => {
        cleanup();
        resolve(true);
      };
      const onClose = () => {
        cleanup();
        resolve(false);
      };
      function cleanup() {
        clearTimeout(timer);
        res.off("drain", onDrain);
        res.off("close", onClose);
      }
      res.on("drain", onDrain);
      res.on("close", onClose);
    });
  }

  return {
    closed,
    isClosed: () => ended || res.destroyed,
    async send(frame) {
      if (ended || res.destroyed) return false;
      if (res.write(formatEvent(frame))) return true;
      return waitForDrain();
    },
    comment(text) {
      if (ended || res.destroyed || res.writableNeedDrain) return;
      res.write(`: ${text}\n\n`);
    },
    end() {
      if (ended || res.destroyed) return;
      res.end();
      // A reader that is not reading never lets the end through: cut it.
      setTimeout(() => res.destroy(), END_GRACE_MS).unref();
    },
  };
}
