/**
 * A "Copy" button that puts a text on the clipboard and says whether it worked, next to itself, in a
 * polite live region (a screen reader hears it; nothing else moves). Used for API keys and push commands.
 */
import { useState } from 'react';

interface Props {
  /** What goes on the clipboard. */
  text: string;
  /** Accessible name when a page has several copy buttons, e.g. "Copy docker commands"; it starts with "Copy". */
  label?: string;
}

export function CopyButton({ text, label }: Props) {
  // Remembers which text the result is for: a new text (another key, another version) is not copied yet.
  const [result, setResult] = useState<{ text: string; copied: boolean } | null>(null);
  const state = result?.text === text ? (result.copied ? 'copied' : 'failed') : null;

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setResult({ text, copied: true });
    } catch {
      setResult({ text, copied: false });
    }
  };

  return (
    <span
      className="copy-button"
      style={{ display: 'inline-flex', flexWrap: 'wrap', gap: '0.5rem', alignItems: 'center' }}
    >
      <button type="button" className="secondary" aria-label={label} onClick={copy}>
        Copy
      </button>
      <span role="status" className="copy-button-status">
        {state === 'copied' && 'Copied to the clipboard.'}
        {state === 'failed' && 'The browser did not allow copying; select the text and copy it.'}
      </span>
    </span>
  );
}
