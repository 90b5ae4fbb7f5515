/**
 * The compare page (`/compare?ids=a,b,c`): 2 to 20 COMPLETE runs, from any strategies, side by side,
 * through the API's `POST /v1/scenarios/compare`: their equity curves overlaid on one time axis (NAV
 * or percent return) and their metrics in one table with the best of each row highlighted. Runs are
 * picked in the list below (or arrive in the address, e.g. from a sweep); the API's refusal (a run
 * not complete, missing, another account's) is shown where the results would be.
 */
import './compare.css';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, errorMessage } from '../api/client.ts';
import { internal, type RunSummary } from '../api/internal.ts';
import type { components } from '../api/openapi.gen.ts';
import { CompareChart, type CompareCurve } from '../components/compare-chart.tsx';
import { CompareMetricsTable } from '../components/compare-metrics-table.tsx';
import { runName } from '../components/compare-model.ts';
import { ComparePicker } from '../components/compare-picker.tsx';

type Comparison = components['schemas']['ScenarioComparison'];

export function ComparePage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const idsParam = params.get('ids') ?? '';
  const ids = useMemo(
    () =>
      idsParam
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    [idsParam],
  );
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [asReturn, setAsReturn] = useState(false);
  const [summaries, setSummaries] = useState<Map<string, RunSummary>>(new Map());

  useEffect(() => {
    document.title = 'Compare · Hindsight';
  }, []);

  const remember = useCallback((runs: RunSummary[]) => {
    setSummaries((current) => {
      const next = new Map(current);
      for (const run of runs) next.set(run.scenarioId, run);
      return next;
    });
  }, []);

  useEffect(() => {
    setComparison(null);
    setError(null);
    setLoading(ids.length > 0);
    if (ids.length === 0) return;
    let stale = false;
    void (async () => {
      const { data, error: failure } = await api.POST('/v1/scenarios/compare', {
        body: { scenarioIds: ids },
      });
      if (stale) return;
      setLoading(false);
      if (!data) {
        setError(errorMessage(failure, 'Could not compare these runs.'));
        return;
      }
      setComparison(data.data);
      // Names (strategy, version label) are not in the comparison: the runs' summaries have them.
      const named = await Promise.allSettled(ids.map((id) => internal.run(id)));
      if (!stale) remember(named.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])));
    })();
    return () => {
      stale = true;
    };
  }, [ids, remember]);

  const curves: CompareCurve[] = useMemo(
    () =>
      comparison?.scenarios.map((s) => ({
        scenarioId: s.scenarioId,
        initialCapital: s.initialCapital,
        nav: comparison.equity.nav[s.scenarioId] ?? [],
      })) ?? [],
    [comparison],
  );
  const names =
    comparison?.scenarios.map((s) => runName(s.scenarioId, summaries.get(s.scenarioId), s.label)) ?? [];

  return (
    <section className="compare-page">
      <h1>Compare runs</h1>
      <p className="lead">
        Equity curves and metrics of 2 to 20 complete runs side by side, from any strategies. Pick them below
        or from a <Link to="/sweeps">sweep</Link> or the <Link to="/runs">runs</Link> list.
      </p>
      {loading && <p className="muted">Comparing {ids.length} runs…</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {comparison && (
        <>
          <h2>Equity</h2>
          <div className="compare-options">
            <label className="compare-toggle">
              <input type="checkbox" checked={asReturn} onChange={(e) => setAsReturn(e.target.checked)} />
              Show as % return on initial capital
            </label>
          </div>
          <CompareChart
            timestamps={comparison.equity.timestamps}
            curves={curves}
            names={names}
            asReturn={asReturn}
          />
          <h2>Metrics</h2>
          <CompareMetricsTable
            columns={comparison.scenarios.map((s, index) => ({
              scenarioId: s.scenarioId,
              name: names[index] ?? s.scenarioId.slice(0, 8),
              metrics: s.metrics,
            }))}
          />
          <ul className="compare-links">
            {comparison.scenarios.map((s, index) => (
              <li key={s.scenarioId}>
                <Link to={`/runs/${s.scenarioId}`}>Open {names[index] ?? 'run'}</Link>
              </li>
            ))}
          </ul>
        </>
      )}
      <ComparePicker
        initial={ids}
        onRuns={remember}
        // Commas left as they are (URLSearchParams would write %2C): the address stays readable.
        onPick={(picked) => navigate(`/compare?ids=${picked.join(',')}`)}
      />
    </section>
  );
}
