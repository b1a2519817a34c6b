// ⌘K / Ctrl-K (and the search button on a phone): paste any id (ord_, evt_, hook_, dev_, prd_,
// cus_, tok_, exe_, shp_) or an order's shortId, a device id or a tracking number, and go there.
import { useEffect, useState } from "react";
import { useNavigate } from "react-router";
import { resolveSearch } from "../data/search.js";
import { useApi } from "../session.js";
import { Modal } from "./dialog.js";
import { Search } from "./icons.js";
import { problemText } from "./states.js";

export function useSearchShortcut(open: () => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.metaKey || event.ctrlKey) && event.key.toLowerCase() === "k") {
        event.preventDefault();
        open();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open]);
}

export function SearchDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const api = useApi();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string>();
  return (
    <Modal open={open} onClose={onClose} labelledBy="search-title" className="search-dialog">
      <h2 id="search-title">Go to</h2>
      <search>
        <form
          onSubmit={async (event) => {
            event.preventDefault();
            const text = String(new FormData(event.currentTarget).get("q") ?? "");
            setBusy(true);
            setMessage(undefined);
            try {
              const target = await resolveSearch(api, text);
              if (target) {
                onClose();
                navigate(target);
              } else setMessage(`Nothing found for “${text.trim()}”.`);
            } catch (error) {
              setMessage(problemText(error));
            } finally {
              setBusy(false);
            }
          }}
        >
          <label className="visually-hidden" htmlFor="global-search">
            Id, shortId, device or tracking number
          </label>
          <input id="global-search" name="q" autoComplete="off" autoCapitalize="none" spellCheck={false} placeholder="ord_…, evt_…, ORD-1001, shelf-12…" />
          <button type="submit" className="primary" disabled={busy} aria-label="Go">
            <Search size={18} aria-hidden="true" />
          </button>
        </form>
      </search>
      <p className="muted hint" role="status">
        {busy
          ? "Looking…"
          : (message ?? "Paste an id (ord_, evt_, hook_, dev_, prd_, cus_, tok_, exe_, shp_), an order's shortId, a device id or a tracking number.")}
      </p>
    </Modal>
  );
}
