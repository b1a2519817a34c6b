// A value the API shows only once (a token, a signing secret): a copy button and a warning.
import { CopyButton } from "./copy-button.js";
import { TriangleAlert } from "./icons.js";

export function SecretOnce({ label, value }: { label: string; value: string }) {
  return (
    <section className="secret" aria-label={label}>
      <p className="warning row">
        <TriangleAlert size={18} aria-hidden="true" />
        <span>
          <strong>{label}</strong>: shown only now. Copy it and keep it safe; it cannot be shown again.
        </span>
      </p>
      <code data-testid="secret-value">{value}</code>
      <div>
        <CopyButton value={value} label={`Copy ${label.toLowerCase()}`} />
      </div>
    </section>
  );
}
