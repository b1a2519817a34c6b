// Values kept sealed at rest (hook secrets, session signing keys): AES-256-GCM under a 32-byte
// key the operator supplies. Each sealed value is bound to what it belongs to (additional
// authenticated data), so a sealed value copied onto another row does not open.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { z } from "zod";

export const SEALING_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = "v1";

export class SealedValueUnavailableError extends Error {
  constructor(message = "a sealed value cannot be opened with this key") {
    super(message);
  }
}

export interface SealedBox {
  /** Seals `plaintext` for the owner `boundTo` (a row id). */
  seal(plaintext: string, boundTo: string): string;
  /** Opens what `seal` made for the same owner; throws SealedValueUnavailableError otherwise. */
  open(sealed: string, boundTo: string): string;
}

export function createSealedBox(key: Buffer): SealedBox {
  if (key.length !== SEALING_KEY_BYTES) throw new Error(`a sealing key must be ${SEALING_KEY_BYTES} bytes`);
  return {
    seal(plaintext, boundTo) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(boundTo, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [FORMAT, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ciphertext.toString("base64url")].join(".");
    },
    open(sealed, boundTo) {
      const [format, iv, tag, ciphertext] = sealed.split(".");
      if (format !== FORMAT || !iv || !tag || ciphertext === undefined) throw new SealedValueUnavailableError();
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"), { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(boundTo, "utf8"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        throw new SealedValueUnavailableError();
      }
    },
  };
}

/** A sealing key setting (`name`, base64) → key bytes. */
export function parseSealingKey(base64: string, name: string): Buffer {
  const key = Buffer.from(base64, "base64");
  if (key.length !== SEALING_KEY_BYTES) throw new Error(`${name} must be the base64 of ${SEALING_KEY_BYTES} bytes`);
  return key;
}

export function generateSealingKey(): string {
  return randomBytes(SEALING_KEY_BYTES).toString("base64");
}

/** 16 hex digits of SHA-256 over the raw key: names a key in messages without revealing it. */
export function keyFingerprint(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/** Config schema of a sealing key setting. */
export const sealingKeySetting = z
  .string()
  .refine((value) => /^[A-Za-z0-9+/_-]+={0,2}$/.test(value) && Buffer.from(value, "base64").length === SEALING_KEY_BYTES, {
    message: `must be the base64 of ${SEALING_KEY_BYTES} random bytes`,
  });
