// What a secret looks like in a log line: Waybill's own credentials by their shape (API tokens,
// hook secrets, session JWTs, private keys), and fields that name a secret but were not redacted.
export interface SecretFinding {
  kind: string;
  /** The line, with the secret itself cut short. */
  excerpt: string;
}

const PATTERNS: [kind: string, pattern: RegExp][] = [
  ["API token", /\b(?:api|machine|cli|sensor|device)-[A-Za-z0-9_-]{40,}/],
  ["hook secret", /whsec_[A-Za-z0-9+/]{40,}/],
  ["session JWT", /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,}/],
  ["private key", /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ["bearer credential", /\bBearer\s+[A-Za-z0-9._~+/-]{20,}/i],
  [
    "unredacted secret field",
    /"(?:authorization|password|newPassword|accessToken|secret|token|privateKey|private_pem|x-service-signature)"\s*:\s*"(?!\[redacted\])[^"]{6,}"/i,
  ],
];

/** Every secret-looking thing in `text`, one finding per line and kind. */
export function findSecrets(text: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  for (const line of text.split("\n")) {
    for (const [kind, pattern] of PATTERNS) {
      const match = pattern.exec(line);
      if (!match) continue;
      const start = Math.max(0, match.index - 80);
      findings.push({ kind, excerpt: `${line.slice(start, match.index)}${match[0].slice(0, 12)}…` });
    }
  }
  return findings;
}
