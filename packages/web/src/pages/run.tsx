/**
 * The run page (`/runs/:scenarioId`): a run's state and live progress, its error when it failed, and
 * once COMPLETE its metrics, equity and drawdown, a price chart per instrument with the trades on it,
 * the trades table with CSV export, its settings and reproducibility manifest, the strategy's output
 * and the result files. The root carries `data-run-ready="true"` once every part has drawn, which the
 * e2e test and `npm run bench -- web` wait for.
 */
import './runs.css';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, errorMessage } from '../api/client.ts';
import { type Candles, internal, type RunSummary, type Timeseries, type TradeLot } from '../api/internal.ts';
import type { components } from '../api/openapi.gen.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { cancelRun, deleteRun } from '../components/run-api.ts';
import { RunAttempts } from '../components/run-attempts.tsx';
import { RunDownloads } from '../components/run-downloads.tsx';
import { RunEquityChart } from '../components/run-equity-chart.tsx';
import { RunLogs } from '../components/run-logs.tsx';
import { RunMetricCards } from '../components/run-metric-cards.tsx';
import { usePolling } from '../components/run-polling.ts';
import { loadRunCandles, RunPriceChart } from '../components/run-price-chart.tsx';
import { equitySeries } from '../components/run-series.ts';
import { RunManifest, RunSettings } from '../components/run-settings.tsx';
import { isTerminal, RunProgressBar, RunStateBadge } from '../components/run-state.tsx';
import { RunTradesTable } from '../components/run-trades-table.tsx';
import { formatInstant } from '../format.ts';

type Scenario = components['schemas']['Scenario'];

interface Results {
  metrics: Record<string, unknown>;
  timeseries: Timeseries;
  trades: TradeLot[];
  metadata: Record<string, unknown>;
}

async function loadResults(strategyId: string, scenarioId: string): Promise<Results> {
  const [metrics, timeseries, trades, metadata] = await Promise.all([
    api
      .GET('/v1/strategies/{strategy_id}/scenarios/{scenario_id}/metrics', {
        params: { path: { strategy_id: strategyId, scenario_id: scenarioId } },
      })
      .then(({ data, error }) => {
        if (!data) throw new Error(errorMessage(error, 'Could not load the metrics.'));
        return data.data as Record<string, unknown>;
      }),
    internal.timeseries(scenarioId),
    internal.trades(scenarioId),
    internal.metadata(scenarioId),
  ]);
  return { metrics, timeseries, trades: trades.trades, metadata };
}

export function RunPage() {
  const { scenarioId = '' } = useParams();
  const navigate = useNavigate();
  const [summary, setSummary] = useState<RunSummary | null>(null);
  const [summaryError, setSummaryError] = useState<string | null>(null);
  const [scenario, setScenario] = useState<Scenario | null>(null);
  const [scenarioError, setScenarioError] = useState<string | null>(null);
  const [results, setResults] = useState<Results | null>(null);
  const [resultsError, setResultsError] = useState<string | null>(null);
  const [candles, setCandles] = useState<Record<string, Candles | { error: string }>>({});
  const [drawn, setDrawn] = useState<ReadonlySet<string>>(new Set());

  const refresh = useCallback(async () => {
    try {
      const next = await internal.run(scenarioId);
      setSummary(next);
      setSummaryError(null);
    } catch (error) {
      setSummaryError((error as Error).message);
    }
  }, [scenarioId]);

  useEffect(() => {
    setSummary(null);
    setScenario(null);
    setScenarioError(null);
    setResults(null);
    setResultsError(null);
    setCandles({});
    setDrawn(new Set());
    void refresh();
  }, [refresh]);

  const state = summary?.state;
  const strategyId = summary?.strategyId;
  usePolling(refresh, state !== undefined && !isTerminal(state), 1000);

  useEffect(() => {
    document.title = `Run ${scenarioId.slice(0, 8)}${state ? ` (${state.toLowerCase()})` : ''} · Hindsight`;
  }, [scenarioId, state]);

  // The record again at each state change: the manifest appears when a worker starts the run.
  useEffect(() => {
    if (!state) return;
    let live = true;
    void api
      .GET('/v1/scenarios/{scenario_id}', { params: { path: { scenario_id: scenarioId } } })
      .then(({ data, error }) => {
        if (!live) return;
        if (data) setScenario(data.data);
        setScenarioError(data ? null : errorMessage(error, 'Could not load the configuration of this run.'));
      });
    return () => {
      live = false;
    };
  }, [scenarioId, state]);

  useEffect(() => {
    if (state !== 'COMPLETE' || !strategyId) return;
    let live = true;
    loadResults(strategyId, scenarioId)
      .then((loaded) => {
        // User-timing marks: `npm run bench -- web` reports where the page's time goes.
        performance.mark('run-results-loaded');
        if (live) setResults(loaded);
      })
      .catch((error: Error) => live && setResultsError(error.message || 'Could not load the results.'));
    return () => {
      live = false;
    };
  }, [scenarioId, state, strategyId]);

  // The candles load beside the results: they need only the window and the instruments.
  const windowStart = summary?.progress.windowStart;
  const windowEnd = summary?.progress.windowEnd;
  const instrumentList = summary?.instruments.join(',');
  useEffect(() => {
    if (state !== 'COMPLETE' || !windowStart || !windowEnd || !instrumentList) return;
    let live = true;
    for (const symbol of instrumentList.split(',')) {
      loadRunCandles(symbol, Date.parse(windowStart), Date.parse(windowEnd))
        .then((loaded) => live && setCandles((all) => ({ ...all, [symbol]: loaded })))
        .catch(
          (error: Error) => live && setCandles((all) => ({ ...all, [symbol]: { error: error.message } })),
        );
    }
    return () => {
      live = false;
    };
  }, [state, windowStart, windowEnd, instrumentList]);

  const series = useMemo(() => (results ? equitySeries(results.timeseries) : null), [results]);
  const markDrawn = useCallback(
    (part: string) =>
      setDrawn((parts) => {
        if (parts.has(part)) return parts;
        performance.mark(`run-drawn-${part}`);
        return new Set(parts).add(part);
      }),
    [],
  );
  const drawnEquity = useCallback(() => markDrawn('equity'), [markDrawn]);
  const drawnTrades = useCallback(() => markDrawn('trades'), [markDrawn]);

  const currency = typeof results?.metadata.currency === 'string' ? results.metadata.currency : 'USD';
  const instruments = summary?.instruments ?? [];
  const ready =
    summary !== null &&
    scenario !== null &&
    isTerminal(summary.state) &&
    (summary.state !== 'COMPLETE' ||
      (results !== null &&
        drawn.has('equity') &&
        drawn.has('trades') &&
        instruments.every((symbol) => drawn.has(`price:${symbol}`))));

  if (!summary) {
    return (
      <section className="runs-page" data-run-ready="false">
        <h1>Run</h1>
        {summaryError ? (
          <p className="error" role="alert">
            {summaryError} <Link to="/runs">Back to runs</Link>
          </p>
        ) : (
          <p className="muted">Loading the run…</p>
        )}
      </section>
    );
  }

  return (
    <section className="runs-page" data-run-ready={ready ? 'true' : 'false'} data-state={summary.state}>
      <p>
        <Link to="/runs">← Runs</Link>
      </p>
      <RunHeader summary={summary} onDeleted={() => navigate('/runs')} onChanged={refresh} />
      {scenario && <RunAttempts attempt={scenario.attempt} attempts={scenario.attempts} />}
      {summaryError && (
        <p className="error" role="alert">
          {summaryError}
        </p>
      )}

      {summary.state === 'COMPLETE' && (
        <>
          {resultsError && (
            <p className="error" role="alert">
              {resultsError}
            </p>
          )}
          {!results && !resultsError && <p className="muted">Loading the results…</p>}
          {results && series && (
            <>
              <section className="runs-section" aria-labelledby="metrics-title">
                <h2 id="metrics-title">Metrics</h2>
                <RunMetricCards metrics={results.metrics} currency={currency} />
              </section>
              <section className="runs-section" aria-labelledby="equity-title">
                <h2 id="equity-title">Equity and drawdown</h2>
                <RunEquityChart series={series} currency={currency} onDrawn={drawnEquity} />
              </section>
              <section className="runs-section" aria-labelledby="prices-title">
                <h2 id="prices-title">
                  {instruments.length === 1 ? 'Price and trades' : 'Prices and trades'}
                </h2>
                {instruments.map((symbol) => {
                  const loaded = candles[symbol];
                  return (
                    <RunPriceChart
                      key={symbol}
                      symbol={symbol}
                      candles={loaded && 'candles' in loaded ? loaded : null}
                      error={loaded && 'error' in loaded ? loaded.error : null}
                      trades={results.trades}
                      onDrawn={() => markDrawn(`price:${symbol}`)}
                    />
                  );
                })}
              </section>
              <section className="runs-section" aria-labelledby="trades-title">
                <h2 id="trades-title">Trades</h2>
                <RunTradesTable
                  trades={results.trades}
                  scenarioId={scenarioId}
                  currency={currency}
                  onDrawn={drawnTrades}
                />
              </section>
            </>
          )}
        </>
      )}

      <section className="runs-section" aria-labelledby="settings-title">
        <h2 id="settings-title">Configuration</h2>
        {scenario ? (
          <RunSettings scenario={scenario} currency={currency} />
        ) : scenarioError ? (
          <p className="error" role="alert">
            {scenarioError}
          </p>
        ) : (
          <p className="muted">Loading…</p>
        )}
      </section>
      <section className="runs-section" aria-labelledby="manifest-title">
        <h2 id="manifest-title">Reproducibility manifest</h2>
        <p className="runs-hint">Two runs with equal manifests produce byte-identical result files.</p>
        {scenario && <RunManifest manifest={scenario.manifest} />}
      </section>
      <section className="runs-section" aria-labelledby="logs-title">
        <h2 id="logs-title">Output</h2>
        {isTerminal(summary.state) ? (
          <RunLogs strategyId={summary.strategyId} scenarioId={scenarioId} />
        ) : (
          <p className="muted">The strategy's output is stored when the run ends.</p>
        )}
      </section>
      {summary.state === 'COMPLETE' && results && (
        <section className="runs-section" aria-labelledby="downloads-title">
          <h2 id="downloads-title">Downloads</h2>
          <RunDownloads
            strategyId={summary.strategyId}
            scenarioId={scenarioId}
            decoded={{
              trades: { trades: results.trades },
              timeseries: results.timeseries,
              metadata: results.metadata,
            }}
          />
        </section>
      )}
    </section>
  );
}

function RunHeader({
  summary,
  onDeleted,
  onChanged,
}: {
  summary: RunSummary;
  onDeleted: () => void;
  onChanged: () => Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const short = summary.scenarioId.slice(0, 8);

  const cancel = async () => {
    setBusy(true);
    setError(null);
    const outcome = await cancelRun(summary.strategyId, summary.scenarioId);
    setBusy(false);
    if (!outcome.ok) setError(outcome.message);
    await onChanged();
  };
  const remove = async () => {
    setError(null);
    const outcome = await deleteRun(summary.strategyId, summary.scenarioId);
    if (outcome.ok) onDeleted();
    else setError(outcome.message);
  };

  return (
    <header>
      <div className="runs-run-header">
        <h1>
          Run <code>{short}</code>
        </h1>
        <RunStateBadge state={summary.state} />
      </div>
      <ul className="runs-run-facts">
        <li>
          Strategy{' '}
          <Link to={`/strategies/${summary.strategyId}`}>
            <strong>{summary.strategyName}</strong>
          </Link>
        </li>
        <li>
          Version <strong>{summary.versionLabel ?? summary.strategyVersionId.slice(0, 8)}</strong>
        </li>
        {summary.label && (
          <li>
            Label <strong>{summary.label}</strong>
          </li>
        )}
        {summary.batchId && (
          <li>
            <Link to={`/sweeps/${summary.batchId}`}>Part of a sweep</Link>
          </li>
        )}
        <li>
          Instruments <strong>{summary.instruments.join(', ')}</strong>
        </li>
        <li>
          Window <strong>{formatInstant(summary.progress.windowStart)}</strong> to{' '}
          <strong>{formatInstant(summary.progress.windowEnd)}</strong>
        </li>
        <li>Created {formatInstant(summary.createdAt)}</li>
        {summary.finishedAt && <li>Finished {formatInstant(summary.finishedAt)}</li>}
      </ul>
      {!isTerminal(summary.state) && (
        <div className="runs-run-progress">
          <RunProgressBar progress={summary.progress} state={summary.state} label="Run progress" />
        </div>
      )}
      {summary.state === 'FAILED' && (
        <div className="runs-failure" role="alert">
          <strong>{summary.errorType === 'platform' ? 'Platform error' : 'Strategy error'}:</strong>{' '}
          {summary.errorMessage ?? 'the run failed.'}
        </div>
      )}
      <div className="row runs-run-actions">
        {!isTerminal(summary.state) && (
          <button type="button" className="secondary" disabled={busy} onClick={() => void cancel()}>
            Cancel run
          </button>
        )}
        <ConfirmButton
          label="Delete run"
          question="Delete this run and its results?"
          confirmLabel="Yes, delete"
          cancelLabel="Keep it"
          onConfirm={remove}
        />
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </header>
  );
}
