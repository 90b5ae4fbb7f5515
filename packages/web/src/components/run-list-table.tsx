/**
 * The runs list's table: one row per run with its state and live progress, cancel and delete (after
 * a confirmation), and a checkbox on each COMPLETE run to pick runs to compare.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import type { RunSummary } from '../api/internal.ts';
import { formatInstant } from '../format.ts';
import { ConfirmButton } from './confirm-button.tsx';
import { cancelRun, deleteRun } from './run-api.ts';
import { isTerminal, RunProgressBar, RunStateBadge } from './run-state.tsx';

export function RunListTable({
  runs,
  selected,
  onToggle,
  onChanged,
}: {
  runs: RunSummary[];
  selected: ReadonlySet<string>;
  onToggle: (scenarioId: string) => void;
  onChanged: () => Promise<void>;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const act = async (run: RunSummary, action: typeof cancelRun) => {
    setError(null);
    setBusy(run.scenarioId);
    const outcome = await action(run.strategyId, run.scenarioId);
    setBusy(null);
    if (!outcome.ok) {
      setError(outcome.message);
      return;
    }
    await onChanged();
  };

  return (
    <>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="table-wrap">
        <table className="runs-table" data-testid="runs-table">
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">Compare</span>
              </th>
              <th scope="col">Run</th>
              <th scope="col">Strategy</th>
              <th scope="col">Version</th>
              <th scope="col">Label</th>
              <th scope="col">Instruments</th>
              <th scope="col">State</th>
              <th scope="col">Progress</th>
              <th scope="col">Created</th>
              <th scope="col">Finished</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => {
              const short = run.scenarioId.slice(0, 8);
              return (
                <tr key={run.scenarioId} data-scenario-id={run.scenarioId}>
                  <td>
                    {run.state === 'COMPLETE' && (
                      <input
                        type="checkbox"
                        aria-label={`Select run ${short} to compare`}
                        checked={selected.has(run.scenarioId)}
                        onChange={() => onToggle(run.scenarioId)}
                      />
                    )}
                  </td>
                  <td>
                    <Link to={`/runs/${run.scenarioId}`} aria-label={`Open run ${short}`}>
                      <code>{short}</code>
                    </Link>
                  </td>
                  <td className="runs-wrap">{run.strategyName}</td>
                  <td className="runs-wrap">{run.versionLabel ?? run.strategyVersionId.slice(0, 8)}</td>
                  <td className="runs-wrap">
                    {run.label ?? ''}
                    {run.batchId && (
                      <>
                        {run.label ? ' ' : ''}
                        <Link to={`/sweeps/${run.batchId}`} className="runs-sweep-link">
                          sweep
                        </Link>
                      </>
                    )}
                  </td>
                  <td>{run.instruments.join(', ')}</td>
                  <td>
                    <RunStateBadge state={run.state} />
                    {run.state === 'FAILED' && run.errorMessage && (
                      <span className="runs-row-error" title={run.errorMessage}>
                        {run.errorType === 'platform' ? 'platform error' : 'strategy error'}
                      </span>
                    )}
                  </td>
                  <td className="runs-progress-cell">
                    {!isTerminal(run.state) ? (
                      <RunProgressBar
                        progress={run.progress}
                        state={run.state}
                        label={`Progress of run ${short}`}
                      />
                    ) : (
                      <span className="muted">{run.state === 'COMPLETE' ? '100 %' : '—'}</span>
                    )}
                  </td>
                  <td className="runs-date">{formatInstant(run.createdAt)}</td>
                  <td className="runs-date">{formatInstant(run.finishedAt)}</td>
                  <td className="actions">
                    <ConfirmButton
                      label="Delete"
                      ariaLabel={`Delete run ${short}`}
                      question={`Delete run ${short} and its results?`}
                      confirmLabel="Yes, delete"
                      cancelLabel="Keep it"
                      onConfirm={() => act(run, deleteRun)}
                    >
                      {!isTerminal(run.state) && (
                        <button
                          type="button"
                          className="secondary"
                          disabled={busy === run.scenarioId}
                          aria-label={`Cancel run ${short}`}
                          onClick={() => void act(run, cancelRun)}
                        >
                          Cancel
                        </button>
                      )}
                    </ConfirmButton>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
