// Loading, empty and error states, the same on every screen.
import { WaybillApiError } from "@waybill/sdk";
import type { ReactNode } from "react";

export function Loading({ what }: { what: string }) {
  return (
    <p className="state" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="state empty">{children}</p>;
}

/** A refusal's detail as the API gave it (rendered as text, never as HTML). */
export function problemText(error: unknown): string {
  if (error instanceof WaybillApiError) return `${error.detail || error.title} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="state error" role="alert">
      <p>{problemText(error)}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Renders a query's three states, and its data when it has some. */
export function QueryView<T>({
  query,
  what,
  children,
}: {
  query: { isPending: boolean; error: unknown; data: T | undefined; refetch: () => unknown };
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading what={what} />;
  if (query.error) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  return <>{children(query.data as T)}</>;
}
