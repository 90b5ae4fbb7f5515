/**
 * A sweep's page (`/sweeps/:batchId`): its runs as a sortable table (grid values, state, key metrics;
 * pick runs to compare) and a heatmap of a chosen metric over two grid parameters. While any run is
 * still queued or running, it refreshes every 2 s (paused in a hidden tab), so cells fill in live.
 */
import './sweeps.css';
import { useCallback, useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { internal, type SweepDetail } from '../api/internal.ts';
import { CompareSelection } from '../components/compare-selection.tsx';
import { usePolling } from '../components/run-polling.ts';
import { isTerminal } from '../components/run-state.tsx';
import { SweepHeatmap } from '../components/sweep-heatmap.tsx';
import { SweepRunsTable } from '../components/sweep-runs-table.tsx';
import { SweepStateCounts } from '../components/sweep-state-counts.tsx';
import { formatInstant } from '../format.ts';

export function SweepPage() {
  const { batchId = '' } = useParams();
  const [sweep, setSweep] = useState<SweepDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());

  const load = useCallback(async () => {
    try {
      setSweep(await internal.sweep(batchId));
      setError(null);
    } catch (caught) {
      setError((caught as Error).message || 'Could not load this sweep.');
    }
  }, [batchId]);

  useEffect(() => {
    document.title = `Sweep ${batchId.slice(0, 8)} · Hindsight`;
    setSweep(null);
    setSelected(new Set());
    void load();
  }, [load, batchId]);

  usePolling(load, sweep?.items.some((run) => !isTerminal(run.state)) ?? false, 2000);

  const toggle = (scenarioId: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(scenarioId)) next.delete(scenarioId);
      else next.add(scenarioId);
      return next;
    });
  const compareIds = sweep
    ? sweep.items.filter((r) => selected.has(r.scenarioId)).map((r) => r.scenarioId)
    : [];

  return (
    <section className="sweeps-page">
      <p className="sweeps-back">
        <Link to="/sweeps">All sweeps</Link>
      </p>
      <h1>
        Sweep <code>{batchId.slice(0, 8)}</code>
      </h1>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!sweep && !error && <p className="muted">Loading the sweep…</p>}
      {sweep && (
        <>
          <dl className="sweeps-facts">
            <div>
              <dt>Strategy</dt>
              <dd>
                <Link to={`/strategies/${sweep.strategyId}`}>{sweep.strategyName}</Link>
              </dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{formatInstant(sweep.createdAt)}</dd>
            </div>
            <div>
              <dt>Runs</dt>
              <dd>{sweep.runs}</dd>
            </div>
            <div>
              <dt>Grid</dt>
              <dd>{sweep.gridKeys.length > 0 ? sweep.gridKeys.join(', ') : 'none'}</dd>
            </div>
            <div className="sweeps-facts-wide">
              <dt>States</dt>
              <dd>
                <SweepStateCounts states={sweep.states} />
              </dd>
            </div>
          </dl>

          <h2>Heatmap</h2>
          <SweepHeatmap key={batchId} runs={sweep.items} gridKeys={sweep.gridKeys} />

          <h2>Runs</h2>
          <div className="row sweeps-toolbar">
            <CompareSelection ids={compareIds} onClear={() => setSelected(new Set())} />
          </div>
          <SweepRunsTable
            runs={sweep.items}
            gridKeys={sweep.gridKeys}
            selected={selected}
            onToggle={toggle}
          />
        </>
      )}
    </section>
  );
}
