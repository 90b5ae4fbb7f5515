/**
 * The compare page's run picker: the account's COMPLETE runs (newest first, 50 at a time with "Show
 * more"), each with a checkbox; "Compare" takes 2 to 20 of them. It starts from the runs compared now.
 */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { internal, type RunSummary } from '../api/internal.ts';
import { formatInstant } from '../format.ts';

const PAGE = 50;
export const MAX_COMPARE = 20;

export function ComparePicker({
  initial,
  onPick,
  onRuns,
}: {
  initial: readonly string[];
  onPick: (ids: string[]) => void;
  /** Hands the runs it loaded to the page, which names the compared runs with them. */
  onRuns: (runs: RunSummary[]) => void;
}) {
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string[]>([...initial]);

  useEffect(() => setSelected([...initial]), [initial]);

  const load = useCallback(
    async (cursor?: string) => {
      try {
        const page = await internal.runs({ state: 'COMPLETE', limit: PAGE, ...(cursor && { cursor }) });
        setRuns((current) => [...(cursor ? (current ?? []) : []), ...page.runs]);
        setNext(page.nextCursor);
        setError(null);
        onRuns(page.runs);
      } catch (caught) {
        setError((caught as Error).message || 'Could not load your complete runs.');
      }
    },
    [onRuns],
  );

  useEffect(() => {
    void load();
  }, [load]);

  const toggle = (id: string) =>
    setSelected((current) => (current.includes(id) ? current.filter((x) => x !== id) : [...current, id]));
  const count = selected.length;
  const ok = count >= 2 && count <= MAX_COMPARE;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (ok) onPick(selected);
  };

  return (
    <form className="compare-picker" onSubmit={submit} aria-labelledby="compare-pick-title">
      <h2 id="compare-pick-title">Pick runs</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!runs && !error && <p className="muted">Loading your complete runs…</p>}
      {runs && runs.length === 0 && <p>No complete runs yet: launch some from Runs.</p>}
      {runs && runs.length > 0 && (
        <fieldset className="compare-choices">
          <legend className="visually-hidden">Complete runs</legend>
          <ul>
            {runs.map((run) => (
              <li key={run.scenarioId}>
                <label className="compare-choice">
                  <input
                    type="checkbox"
                    checked={selected.includes(run.scenarioId)}
                    onChange={() => toggle(run.scenarioId)}
                  />
                  <span>
                    <strong>{run.strategyName}</strong>
                    {run.versionLabel && ` ${run.versionLabel}`}
                    {run.label && ` · ${run.label}`}{' '}
                    <span className="muted">
                      <code>{run.scenarioId.slice(0, 8)}</code>,{' '}
                      {formatInstant(run.finishedAt ?? run.createdAt)}
                    </span>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
      )}
      <div className="row compare-picker-actions">
        <button type="submit" disabled={!ok}>
          Compare {count} runs
        </button>
        {next && (
          <button type="button" className="secondary" onClick={() => void load(next)}>
            Show more runs
          </button>
        )}
        <span className="muted" aria-live="polite">
          {count > MAX_COMPARE
            ? `At most ${MAX_COMPARE} runs (${count} selected).`
            : `Pick 2 to ${MAX_COMPARE}.`}
        </span>
      </div>
    </form>
  );
}
