// Hook secrets: generated here, kept sealed at rest (platform's sealed box, bound to the hook's
// id, so a sealed secret copied onto another hook row does not open).
import { randomBytes } from "node:crypto";
import { createSealedBox, generateSealingKey, parseSealingKey, SealedValueUnavailableError } from "@waybill/platform/sealed-box.js";

export const SECRET_PREFIX = "whsec_";
export const SECRET_BYTES = 32;

/** A new signing secret: "whsec_" + base64 of 32 random bytes. */
export function generateHookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

export class SecretUnavailableError extends SealedValueUnavailableError {
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
  const box = createSealedBox(key);
  return {
    seal: (secret, hookId) => box.seal(secret, hookId),
    open(sealed, hookId) {
      try {
        return box.open(sealed, hookId);
      } catch {
        throw new SecretUnavailableError();
      }
    },
  };
}

/** WEBHOOK_SECRET_KEY (base64) → key bytes. */
export const parseSecretKey = (base64: string): Buffer => parseSealingKey(base64, "WEBHOOK_SECRET_KEY");

export const generateSecretKey = generateSealingKey;
