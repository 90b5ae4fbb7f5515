/**
 * The sweeps page (`/sweeps`): the account's parameter sweeps (runs created together by
 * `POST .../scenarios/batch`), newest first, each with its strategy, when it was made, its runs per
 * state and the env keys it varied; each opens its sweep page. Refreshed every 2 s while a run is going.
 */
import './sweeps.css';
import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { internal, type SweepSummary } from '../api/internal.ts';
import { usePolling } from '../components/run-polling.ts';
import { anyLive, SweepStateCounts } from '../components/sweep-state-counts.tsx';
import { formatInstant } from '../format.ts';

export function SweepsPage() {
  const [sweeps, setSweeps] = useState<SweepSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setSweeps(await internal.sweeps());
      setError(null);
    } catch (caught) {
      setError((caught as Error).message || 'Could not load your sweeps.');
    }
  }, []);

  useEffect(() => {
    document.title = 'Sweeps · Hindsight';
    void load();
  }, [load]);

  usePolling(load, sweeps?.some((s) => anyLive(s.states)) ?? false, 2000);

  return (
    <section className="sweeps-page">
      <h1>Sweeps</h1>
      <p className="lead">
        A sweep runs one strategy version over a grid of env values. Launch one from{' '}
        <Link to="/runs">Runs</Link> (or <code>POST .../scenarios/batch</code>), then open it to compare its
        runs in a table and a heatmap.
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!sweeps && !error && <p className="muted">Loading sweeps…</p>}
      {sweeps && sweeps.length === 0 && <p>No sweeps yet.</p>}
      {sweeps && sweeps.length > 0 && (
        <div className="table-wrap">
          <table className="sweeps-table table-cards" data-testid="sweeps-table">
            <thead>
              <tr>
                <th scope="col">Sweep</th>
                <th scope="col">Strategy</th>
                <th scope="col">Created</th>
                <th scope="col">Runs</th>
                <th scope="col">States</th>
                <th scope="col">Grid</th>
              </tr>
            </thead>
            <tbody>
              {sweeps.map((sweep) => (
                <tr key={sweep.batchId} data-batch-id={sweep.batchId}>
                  <td data-label="Sweep" className="sweeps-nowrap">
                    <Link to={`/sweeps/${sweep.batchId}`}>
                      <span className="visually-hidden">Sweep </span>
                      <code>{sweep.batchId.slice(0, 8)}</code>
                    </Link>
                  </td>
                  <td data-label="Strategy">
                    <Link to={`/strategies/${sweep.strategyId}`}>{sweep.strategyName}</Link>
                  </td>
                  <td data-label="Created" className="sweeps-nowrap">
                    {formatInstant(sweep.createdAt)}
                  </td>
                  <td data-label="Runs">{sweep.runs}</td>
                  <td data-label="States">
                    <SweepStateCounts states={sweep.states} />
                  </td>
                  <td data-label="Grid">
                    {sweep.gridKeys.length > 0 ? (
                      <ul className="sweeps-keys">
                        {sweep.gridKeys.map((key) => (
                          <li key={key}>
                            <code>{key}</code>
                          </li>
                        ))}
                      </ul>
                    ) : (
                      <span className="muted">No grid</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
