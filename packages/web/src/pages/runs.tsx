/**
 * The runs page (`/runs`): launch a run or a sweep, and every run of the account, newest first, with
 * live progress while any run on screen is still going (polled each second, paused in a hidden tab),
 * filters by state and strategy, cancel and delete, and a pick of COMPLETE runs to compare.
 */
import './runs.css';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { internal, type RunSummary } from '../api/internal.ts';
import { CompareSelection } from '../components/compare-selection.tsx';
import { loadStrategies, type Strategy } from '../components/run-choices.ts';
import { type Launched, RunLaunchForm } from '../components/run-launch-form.tsx';
import { RunListTable } from '../components/run-list-table.tsx';
import { usePolling } from '../components/run-polling.ts';
import { isTerminal, RUN_STATES } from '../components/run-state.tsx';

const PAGE_SIZE = 20;

interface LaunchNotice {
  runs: number;
  firstId: string;
  sweep: boolean;
  dropped: number;
  batchId: string | null;
}

export function RunsPage() {
  const [params] = useSearchParams();
  const [strategies, setStrategies] = useState<Strategy[]>([]);
  const [strategiesError, setStrategiesError] = useState<string | null>(null);
  const [stateFilter, setStateFilter] = useState('');
  const [strategyFilter, setStrategyFilter] = useState('');
  // Cursors of the pages before the one shown: "Previous" pops one.
  const [cursors, setCursors] = useState<(string | undefined)[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [notice, setNotice] = useState<LaunchNotice | null>(null);

  useEffect(() => {
    document.title = 'Runs · Hindsight';
    void loadStrategies().then((loaded) => {
      if (loaded.ok) setStrategies(loaded.items.filter((s) => s.status === 'active'));
      else setStrategiesError(loaded.message);
    });
  }, []);

  // The query the latest load was for: a page answered for an earlier filter or page is dropped.
  const query = useRef('');
  const load = useCallback(async () => {
    const asked = JSON.stringify([cursor, stateFilter, strategyFilter]);
    query.current = asked;
    try {
      const page = await internal.runs({
        limit: PAGE_SIZE,
        ...(cursor && { cursor }),
        ...(stateFilter && { state: stateFilter }),
        ...(strategyFilter && { strategyId: strategyFilter }),
      });
      if (query.current !== asked) return;
      setRuns(page.runs);
      setNextCursor(page.nextCursor);
      setListError(null);
    } catch (error) {
      if (query.current === asked) setListError((error as Error).message || 'Could not load your runs.');
    }
  }, [cursor, stateFilter, strategyFilter]);

  useEffect(() => {
    void load();
  }, [load]);

  const live = runs?.some((run) => !isTerminal(run.state)) ?? false;
  usePolling(load, live, 1000);

  const resetPaging = () => {
    setCursors([]);
    setCursor(undefined);
  };

  const launched = async (result: Launched) => {
    const first = result.scenarioIds[0];
    if (!first) return;
    setNotice({
      runs: result.scenarioIds.length,
      firstId: first,
      sweep: result.sweep,
      dropped: result.dropped,
      batchId: null,
    });
    resetPaging();
    await load();
    if (result.sweep) {
      // The batch id is not in the create response; the run's summary carries it.
      const summary = await internal.run(first).catch(() => null);
      if (summary?.batchId)
        setNotice((n) => (n && n.firstId === first ? { ...n, batchId: summary.batchId } : n));
    }
  };

  const toggle = (scenarioId: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(scenarioId)) next.delete(scenarioId);
      else next.add(scenarioId);
      return next;
    });

  const compareIds = [...selected];

  return (
    <section className="runs-page">
      <h1>Runs</h1>
      <p className="lead">Launch a backtest or a parameter sweep, and follow your runs as they replay.</p>
      {strategiesError && (
        <p className="error" role="alert">
          {strategiesError}
        </p>
      )}
      <RunLaunchForm
        strategies={strategies}
        initialStrategyId={params.get('strategyId') ?? undefined}
        initialVersionId={params.get('versionId') ?? undefined}
        onLaunched={(result) => void launched(result)}
      />
      {notice && (
        <div className="notice" role="status">
          <p>
            {notice.sweep ? `Sweep launched: ${notice.runs} runs` : `Run launched`}
            {notice.dropped > 0 && ` (${notice.dropped} more were not created: quota)`}.{' '}
            {notice.sweep ? (
              notice.batchId ? (
                <Link to={`/sweeps/${notice.batchId}`}>Open the sweep</Link>
              ) : null
            ) : (
              <Link to={`/runs/${notice.firstId}`}>Open the run</Link>
            )}
          </p>
          <button type="button" className="secondary" onClick={() => setNotice(null)}>
            Dismiss
          </button>
        </div>
      )}

      <h2>Your runs</h2>
      <div className="row runs-toolbar">
        <div className="runs-field">
          <label htmlFor="runs-state">State</label>
          <select
            id="runs-state"
            value={stateFilter}
            onChange={(e) => {
              setStateFilter(e.target.value);
              resetPaging();
            }}
          >
            <option value="">Any state</option>
            {RUN_STATES.map((state) => (
              <option key={state} value={state}>
                {state}
              </option>
            ))}
          </select>
        </div>
        <div className="runs-field">
          <label htmlFor="runs-strategy">Strategy</label>
          <select
            id="runs-strategy"
            value={strategyFilter}
            onChange={(e) => {
              setStrategyFilter(e.target.value);
              resetPaging();
            }}
          >
            <option value="">Any strategy</option>
            {strategies.map((s) => (
              <option key={s.strategyId} value={s.strategyId}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <div className="runs-compare">
          <CompareSelection ids={compareIds} onClear={() => setSelected(new Set())} />
        </div>
      </div>
      {listError && (
        <p className="error" role="alert">
          {listError}
        </p>
      )}
      {runs && runs.length === 0 && <p>No runs here yet.</p>}
      {runs && runs.length > 0 && (
        <RunListTable runs={runs} selected={selected} onToggle={toggle} onChanged={load} />
      )}
      {!runs && !listError && <p className="muted">Loading runs…</p>}
      <div className="row runs-paging">
        {cursors.length > 0 && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setCursor(cursors[cursors.length - 1]);
              setCursors(cursors.slice(0, -1));
            }}
          >
            Previous page
          </button>
        )}
        {nextCursor && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setCursors([...cursors, cursor]);
              setCursor(nextCursor);
            }}
          >
            Next page
          </button>
        )}
      </div>
    </section>
  );
}
