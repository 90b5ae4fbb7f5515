/**
 * A destructive action that asks first: the button ("Delete") turns into the question with a
 * confirm button ("Yes, delete") and a way back ("Cancel"). Used by every delete, revoke, evict and
 * archive in the app, so they all ask the same way and behave the same with a keyboard.
 */
import { type ReactNode, useEffect, useRef, useState } from 'react';

interface Props {
  /** The button's visible text, e.g. "Delete". */
  label: string;
  /** The button's accessible name when the visible text is ambiguous in a table ("Delete run 1a2b3c4d"). */
  ariaLabel?: string;
  /** The question shown while confirming. */
  question: ReactNode;
  /** The confirm button's text, e.g. "Yes, delete". */
  confirmLabel: string;
  /** The text of the way back; "Cancel" unless that would read as cancelling something else (a run). */
  cancelLabel?: string;
  /** Runs the action. The question closes when it settles; its caller shows any error. */
  onConfirm: () => Promise<unknown>;
  /** Other actions shown beside the button, hidden while the question is asked so it stands alone. */
  children?: ReactNode;
}

export function ConfirmButton({
  label,
  ariaLabel,
  question,
  confirmLabel,
  cancelLabel = 'Cancel',
  onConfirm,
  children,
}: Props) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  // Whether the last change of `confirming` came from the user, so focus moves only then (not on mount).
  const moved = useRef(false);

  // The button that had focus disappears when the question opens or closes: keep keyboard users in
  // place by moving focus to the safe answer, and back to the button afterwards.
  useEffect(() => {
    if (!moved.current) return;
    moved.current = false;
    (confirming ? cancelButton : trigger).current?.focus();
  }, [confirming]);

  const toggle = (next: boolean) => {
    moved.current = true;
    setConfirming(next);
  };

  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      // After a success the row may be gone and this unmounted; React ignores these updates then.
      setBusy(false);
      toggle(false);
    }
  };

  if (confirming) {
    return (
      <span className="confirm">
        <span>{question}</span>
        <button type="button" className="danger" disabled={busy} onClick={() => void confirm()}>
          {confirmLabel}
        </button>
        <button type="button" className="secondary" ref={cancelButton} onClick={() => toggle(false)}>
          {cancelLabel}
        </button>
      </span>
    );
  }
  return (
    <span className="confirm">
      {children}
      <button
        type="button"
        className="secondary"
        ref={trigger}
        {...(ariaLabel && { 'aria-label': ariaLabel })}
        onClick={() => toggle(true)}
      >
        {label}
      </button>
    </span>
  );
}
