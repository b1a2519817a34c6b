// A value the API shows only once (a token, a signing secret): a copy button and a warning.
import { useState } from "react";

export function SecretOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <section className="secret" aria-label={label}>
      <p className="warning">
        <strong>{label}</strong>: shown only now. Copy it and keep it safe; it cannot be shown again.
      </p>
      <code data-testid="secret-value">{value}</code>
      <button
        type="button"
        onClick={async () => {
          await navigator.clipboard?.writeText(value).catch(() => {});
          setCopied(true);
        }}
      >
        {copied ? "Copied" : `Copy ${label.toLowerCase()}`}
      </button>
    </section>
  );
}
