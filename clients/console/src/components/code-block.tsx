// Pretty-printed JSON or a body as text (never as HTML), with a copy button.
import { CopyButton } from "./copy-button.js";

export function CodeBlock({ title, text, testId }: { title: string; text: string; testId?: string }) {
  return (
    <section className="code-block" aria-label={title}>
      <div className="row">
        <h3>{title}</h3>
        <CopyButton value={text} label="Copy" />
      </div>
      <pre data-testid={testId}>{text}</pre>
    </section>
  );
}
