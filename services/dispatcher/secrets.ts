// Hook secrets: generated here, kept sealed at rest (platform's sealed box, bound to the hook's
// id, so a sealed secret copied onto another hook row does not open). A sealed secret ends with
// the fingerprint of the key that sealed it, so a key rotation knows which hooks are left to
// re-seal: WEBHOOK_SECRET_KEY seals, WEBHOOK_SECRET_KEY_PREVIOUS is still accepted for reading.
// Values sealed before the fingerprint was added carry none; they are tried with each key.
import { randomBytes } from "node:crypto";
import {
  createSealedBox,
  generateSealingKey,
  keyFingerprint,
  parseSealingKey,
  SealedValueUnavailableError,
  type SealedBox,
} from "@waybill/platform/sealed-box.js";

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
  /** Seals `secret` for the hook `hookId` under the current key. */
  seal(secret: string, hookId: string): string;
  /** Opens what `seal` made for the same hook, under either key; throws SecretUnavailableError otherwise. */
  open(sealed: string, hookId: string): string;
  /** Fingerprint of the current key (never the key): the suffix of what it seals. */
  readonly fingerprint: string;
  /** Whether a previous key is configured for reading. */
  readonly hasPrevious: boolean;
}

/** The fingerprint a sealed value names, if it names one. */
function sealedWith(sealed: string): { body: string; fingerprint?: string } {
  const parts = sealed.split(".");
  if (parts.length !== 5) return { body: sealed };
  return { body: parts.slice(0, 4).join("."), fingerprint: parts[4] };
}

/** Whether `sealed` was sealed under the key of this fingerprint (SQL twin: secretNotSealedWithSql). */
export const isSealedWith = (sealed: string, fingerprint: string): boolean => sealedWith(sealed).fingerprint === fingerprint;

/** SQL condition over hooks: the secret is not (yet) sealed with the key of fingerprint `$n`. */
export const secretNotSealedWithSql = (param: string): string => `secret_sealed NOT LIKE '%.' || ${param}`;

export function createSecretBox(key: Buffer, previous?: Buffer): SecretBox {
  const keys: { fingerprint: string; box: SealedBox }[] = [{ fingerprint: keyFingerprint(key), box: createSealedBox(key) }];
  if (previous && !previous.equals(key)) keys.push({ fingerprint: keyFingerprint(previous), box: createSealedBox(previous) });
  const [current] = keys;
  return {
    fingerprint: current.fingerprint,
    hasPrevious: keys.length > 1,
    seal: (secret, hookId) => `${current.box.seal(secret, hookId)}.${current.fingerprint}`,
    open(sealed, hookId) {
      const { body, fingerprint } = sealedWith(sealed);
      for (const candidate of keys) {
        if (fingerprint !== undefined && candidate.fingerprint !== fingerprint) continue;
        try {
          return candidate.box.open(body, hookId);
        } catch {
          // the next key, if any
        }
      }
      throw new SecretUnavailableError();
    },
  };
}

/** WEBHOOK_SECRET_KEY (base64) → key bytes. */
export const parseSecretKey = (base64: string, name = "WEBHOOK_SECRET_KEY"): Buffer => parseSealingKey(base64, name);

export const generateSecretKey = generateSealingKey;
