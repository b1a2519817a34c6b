// The MQTT listener's certificate follows its files: cert-manager renews the Secret, the kubelet
// swaps the mounted files (an atomic symlink switch, which file watchers miss), and the gateway
// reads them again on a timer and hands new connections the new certificate through
// setSecureContext. Open device sessions keep the one they started with; nothing restarts.
import { createHash, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import tls from "node:tls";
import type { Logger } from "@waybill/platform/logger.js";

export const DEFAULT_TLS_RELOAD_INTERVAL_MS = 10_000;

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
}

export const readTlsFiles = async (files: TlsFiles): Promise<TlsMaterial> => ({ cert: await readFile(files.certFile), key: await readFile(files.keyFile) });

const fingerprint = (m: TlsMaterial) => createHash("sha256").update(m.cert).update(m.key).digest("hex");

/** Polls the files every `intervalMs`; returns the function that stops it. */
export function reloadCertificateOnChange(server: tls.Server, files: TlsFiles, loaded: TlsMaterial, deps: { logger: Logger; intervalMs?: number }): () => void {
  let current = fingerprint(loaded);
  let checking = false;
  const check = async () => {
    if (checking) return;
    checking = true;
    try {
      const next = await readTlsFiles(files);
      const print = fingerprint(next);
      if (print === current) return;
      // A certificate and key that do not match (read between two writes) throw here; the
      // previous certificate stays until the next check finds a consistent pair.
      const context = { cert: next.cert, key: next.key };
      tls.createSecureContext(context);
      server.setSecureContext(context);
      current = print;
      const certificate = new X509Certificate(next.cert);
      deps.logger.info({ subject: certificate.subject, validTo: certificate.validTo }, "MQTT TLS certificate reloaded");
    } catch (error) {
      deps.logger.warn({ err: (error as Error).message }, "MQTT TLS certificate files changed but cannot be used yet; keeping the current one");
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void check(), deps.intervalMs ?? DEFAULT_TLS_RELOAD_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
