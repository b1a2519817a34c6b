// Dialogs on the native <dialog> element opened with showModal(): the rest of the page is inert
// (focus stays inside), Escape closes, and focus returns to what opened it. No library injects
// inline styles, so the strict Content-Security-Policy (style-src 'self') holds.
import { useEffect, useId, useRef, useState, type ReactNode } from "react";

export function Modal({
  open,
  onClose,
  labelledBy,
  className,
  role,
  children,
}: {
  open: boolean;
  onClose(): void;
  labelledBy: string;
  className?: string;
  role?: "alertdialog";
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !open) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal(); // focuses its first control: Cancel in a confirmation, the field in search
    return () => {
      dialog.close();
      opener?.focus();
    };
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={labelledBy}
      role={role}
      className={className}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onKeyDown={(event) => {
        // A modal dialog keeps the page inert, but Tab past its last control would leave for the
        // browser's own interface: wrap around instead.
        if (event.key !== "Tab") return;
        const focusable = [...event.currentTarget.querySelectorAll<HTMLElement>("button:not([disabled]), input, select, textarea, a[href]")];
        const first = focusable[0];
        const last = focusable.at(-1);
        if (event.shiftKey && document.activeElement === first) {
          event.preventDefault();
          last?.focus();
        } else if (!event.shiftKey && document.activeElement === last) {
          event.preventDefault();
          first?.focus();
        }
      }}
    >
      {open && children}
    </dialog>
  );
}

/** Asks before something destructive or secret-changing; `onConfirm` runs only on the explicit action. */
export function Confirm({
  trigger,
  triggerClass = "danger",
  title,
  description,
  action,
  onConfirm,
  disabled,
}: {
  trigger: ReactNode;
  triggerClass?: string;
  title: string;
  description: ReactNode;
  action: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <>
      <button type="button" className={triggerClass} onClick={() => setOpen(true)} disabled={disabled}>
        {trigger}
      </button>
      <Modal open={open} onClose={() => setOpen(false)} labelledBy={id} role="alertdialog">
        <div>
          <h2 id={id}>{title}</h2>
          <div className="muted">{description}</div>
          <div className="dialog-actions">
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button
              type="button"
              className="danger solid"
              onClick={() => {
                setOpen(false);
                onConfirm();
              }}
            >
              {action}
            </button>
          </div>
        </div>
      </Modal>
    </>
  );
}
