/**
 * The runs list's and a sweep's compare bar: a "Compare selected" link once 2 to MAX_COMPARE runs are
 * ticked (the compare page's limit), else what is missing in words, and a way to clear the ticks.
 */
import { Link } from 'react-router';
import { MAX_COMPARE } from './compare-picker.tsx';

export function CompareSelection({ ids, onClear }: { ids: readonly string[]; onClear: () => void }) {
  const count = ids.length;
  return (
    <>
      {count >= 2 && count <= MAX_COMPARE ? (
        <Link className="button-link" to={`/compare?ids=${ids.join(',')}`}>
          Compare selected ({count})
        </Link>
      ) : (
        <span className="muted">
          {count > MAX_COMPARE
            ? `At most ${MAX_COMPARE} runs can be compared (${count} selected).`
            : `Select 2 to ${MAX_COMPARE} complete runs to compare (${count} selected).`}
        </span>
      )}
      {count > 0 && (
        <button type="button" className="secondary" onClick={onClear}>
          Clear selection
        </button>
      )}
    </>
  );
}
