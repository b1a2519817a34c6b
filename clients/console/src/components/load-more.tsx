// Paging over the API's cursors: one "Load more" button under a list.
export function LoadMore({ hasMore, loading, onMore, shown }: { hasMore: boolean; loading: boolean; onMore(): void; shown: number }) {
  return (
    <div className="load-more">
      <span className="muted">{shown} shown</span>
      {hasMore && (
        <button type="button" onClick={onMore} disabled={loading}>
          {loading ? "Loading…" : "Load more"}
        </button>
      )}
    </div>
  );
}
