// Hook secrets: generated here, kept sealed at rest with AES-256-GCM. Each sealed value is bound
// to its hook (additional authenticated data), so a sealed secret copied onto another hook row
// does not open.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

export const SECRET_PREFIX = "whsec_";
export const SECRET_BYTES = 32;
export const SECRET_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = "v1";

/** A new signing secret: "whsec_" + base64 of 32 random bytes. */
export function generateHookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

export class SecretUnavailableError extends Error {
  constructor() {
    super("the hook's secret cannot be opened (was WEBHOOK_SECRET_KEY changed?)");
  }
}

export interface SecretBox {
  /** Seals `secret` for the hook `hookId`. */
  seal(secret: string, hookId: string): string;
  /** Opens what `seal` made for the same hook; throws SecretUnavailableError otherwise. */
  open(sealed: string, hookId: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`the secret key must be ${SECRET_KEY_BYTES} bytes`);
  return {
    seal(secret, hookId) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(hookId, "utf8"));
      const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
      return [FORMAT, iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ciphertext.toString("base64url")].join(".");
    },
    open(sealed, hookId) {
      const [format, iv, tag, ciphertext] = sealed.split(".");
      if (format !== FORMAT || !iv || !tag || ciphertext === undefined) throw new SecretUnavailableError();
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"), { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(hookId, "utf8"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretUnavailableError();
      }
    },
  };
}

/** WEBHOOK_SECRET_KEY (base64) → key bytes. */
export function parseSecretKey(base64: string): Buffer {
  const key = Buffer.from(base64, "base64");
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`WEBHOOK_SECRET_KEY must be the base64 of ${SECRET_KEY_BYTES} bytes`);
  return key;
}

export function generateSecretKey(): string {
  return randomBytes(SECRET_KEY_BYTES).toString("base64");
}
