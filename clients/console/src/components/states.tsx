// Loading, empty and error states, the same on every screen. An empty state names the next step
// and the CLI command that does it.
import { WaybillApiError } from "@waybill/sdk";
import type { ReactNode } from "react";
import { CircleAlert, LoaderCircle, type LucideIcon } from "./icons.js";

export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      <LoaderCircle size={18} aria-hidden="true" className="spin" />
      Loading {what}…
    </p>
  );
}

export function Empty({ icon: Icon, title, children, cli }: { icon?: LucideIcon; title: string; children?: ReactNode; cli?: string }) {
  return (
    <div className="empty" data-testid="empty">
      <p className="empty-title">
        {Icon && <Icon size={20} aria-hidden="true" />}
        {title}
      </p>
      {children && <p className="muted">{children}</p>}
      {cli && (
        <>
          <span className="muted">From a terminal:</span>
          <code>{cli}</code>
        </>
      )}
    </div>
  );
}

/** A refusal's detail as the API gave it (rendered as text, never as HTML). */
export function problemText(error: unknown): string {
  if (error instanceof WaybillApiError) return `${error.detail || error.title} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="alert" role="alert">
      <CircleAlert size={18} aria-hidden="true" className="icon" />
      <div>
        <p>{problemText(error)}</p>
        {retry && (
          <button type="button" onClick={retry}>
            Try again
          </button>
        )}
      </div>
    </div>
  );
}

/** Renders a query's three states, and its data when it has some (kept while offline). */
export function QueryView<T>({
  query,
  what,
  children,
}: {
  query: { isPending: boolean; error: unknown; data: T | undefined; refetch: () => unknown };
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (query.data !== undefined) return <>{children(query.data)}</>;
  if (query.error) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  return <Loading what={what} />;
}
