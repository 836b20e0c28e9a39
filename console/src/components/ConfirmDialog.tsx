// A modal confirmation on the native <dialog>: the browser traps focus, Escape cancels, and focus
// returns to the button that opened it. Each opening puts focus on Cancel, the choice that changes nothing:
// the browser's own pick is the first control, which differs as the content loads (Cancel while a preview
// loads, a <summary> of it once it is in). Title and lead are read out with it (aria-labelledby/describedby).
import { type ReactNode, useEffect, useId, useRef } from "react";

type Props = {
  open: boolean;
  title: string;
  /** What confirming will really do, said first (and read out with the title when the dialog opens). */
  lead?: string;
  confirmLabel: string;
  /** "danger" for what takes something away (a rollback). */
  tone?: "primary" | "danger";
  confirmDisabled?: boolean;
  onConfirm(): void;
  onCancel(): void;
  children: ReactNode;
};

export function ConfirmDialog({
  open,
  title,
  lead,
  confirmLabel,
  tone = "primary",
  confirmDisabled,
  onConfirm,
  onCancel,
  children,
}: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const cancelRef = useRef<HTMLButtonElement>(null);
  const leadId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      cancelRef.current?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog ref={ref} aria-labelledby={titleId} aria-describedby={lead ? leadId : undefined} onClose={() => open && onCancel()}>
      <form
        method="dialog"
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          if (!confirmDisabled) onConfirm();
        }}
      >
        <h2 id={titleId}>{title}</h2>
        {lead && (
          <p id={leadId} className="lead">
            {lead}
          </p>
        )}
        {children}
        <div className="row dialog-actions">
          <button type="button" onClick={onCancel} ref={cancelRef}>
            Cancel
          </button>
          <button type="submit" className={tone} disabled={confirmDisabled}>
            {confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
