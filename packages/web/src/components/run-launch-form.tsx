/**
 * The runs page's launch form: a strategy and one of its ready versions, then either a saved
 * configuration or a compact set of inline settings (one instrument, its events, a window, the
 * capital), and optionally an env grid. "Launch run" starts one run (POST .../scenarios or
 * .../scenarios/from-configs); "Launch sweep" starts one run per grid cell (POST .../scenarios/batch
 * with the settings, or the saved configuration's, as `base`).
 */
import { type FormEvent, useEffect, useState } from 'react';
import { api, errorMessage } from '../api/client.ts';
import type { components } from '../api/openapi.gen.ts';
import type { Loaded } from './cursor-list.ts';
import {
  type Configuration,
  type Instrument,
  loadConfigurations,
  loadInstruments,
  loadReadyVersions,
  type Strategy,
  type Version,
} from './run-choices.ts';

type Base = NonNullable<components['schemas']['ScenarioBatchRequest']['base']>;

export interface Launched {
  strategyId: string;
  scenarioIds: string[];
  sweep: boolean;
  /** Requested cells the platform did not create (quota), for a sweep. */
  dropped: number;
}

interface GridRow {
  id: number;
  key: string;
  values: string;
}

const DAY_MS = 86_400_000;
const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

export function RunLaunchForm({
  strategies,
  initialStrategyId,
  initialVersionId,
  onLaunched,
}: {
  strategies: Strategy[];
  initialStrategyId?: string;
  initialVersionId?: string;
  onLaunched: (launched: Launched) => void;
}) {
  const [strategyId, setStrategyId] = useState(initialStrategyId ?? '');
  const [versions, setVersions] = useState<Loaded<Version> | null>(null);
  const [versionId, setVersionId] = useState(initialVersionId ?? '');
  const [source, setSource] = useState<'settings' | 'config'>('settings');
  const [configurations, setConfigurations] = useState<Loaded<Configuration> | null>(null);
  const [configId, setConfigId] = useState('');
  const [instruments, setInstruments] = useState<Loaded<Instrument> | null>(null);
  const [instrument, setInstrument] = useState('');
  const [events, setEvents] = useState('candle_1m, order_update');
  const [startDay, setStartDay] = useState('');
  const [endDay, setEndDay] = useState('');
  const [capital, setCapital] = useState('100000');
  const [grid, setGrid] = useState<GridRow[]>([]);
  const [nextRowId, setNextRowId] = useState(1);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!strategyId && strategies.length > 0) setStrategyId(strategies[0]?.strategyId ?? '');
  }, [strategies, strategyId]);

  useEffect(() => {
    if (!strategyId) return;
    let live = true;
    setVersions(null);
    void loadReadyVersions(strategyId).then((loaded) => {
      if (!live) return;
      setVersions(loaded);
      if (loaded.ok) {
        setVersionId((current) =>
          loaded.items.some((v) => v.versionId === current) ? current : (loaded.items[0]?.versionId ?? ''),
        );
      }
    });
    return () => {
      live = false;
    };
  }, [strategyId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the lists load once, on mount
  useEffect(() => {
    void loadConfigurations().then((loaded) => {
      setConfigurations(loaded);
      if (loaded.ok) setConfigId((current) => current || (loaded.items[0]?.configId ?? ''));
    });
    void loadInstruments().then((loaded) => {
      setInstruments(loaded);
      const first = loaded.ok ? loaded.items.find((i) => i.dataStartDate) : undefined;
      if (first) pickInstrument(first);
    });
  }, []);

  /** A new instrument starts with the first week it has data for, the quick default run. */
  function pickInstrument(item: Instrument) {
    setInstrument(item.symbol);
    if (item.dataStartDate) {
      setStartDay(item.dataStartDate);
      const week = addDays(item.dataStartDate, 7);
      const last = item.dataEndDate ? addDays(item.dataEndDate, 1) : week;
      setEndDay(week < last ? week : last);
    }
  }

  const settingsBase = (): Base => ({
    subscriptions: [
      {
        instrument,
        events: events
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean),
      },
    ],
    startTime: `${startDay}T00:00:00Z`,
    positionMode: 'netting',
    endTime: `${endDay}T00:00:00Z`,
    initialCapital: Number(capital),
  });

  const configBase = (config: Configuration): Base => ({
    subscriptions: config.subscriptions,
    startTime: config.startTime,
    endTime: config.endTime,
    positionMode: config.positionMode,
    initialCapital: config.initialCapital,
    ...(config.env && { env: config.env }),
    ...(config.costs && { costs: config.costs }),
  });

  const envGrid = (): Record<string, string[]> | string => {
    const result: Record<string, string[]> = {};
    for (const row of grid) {
      const key = row.key.trim();
      if (!key && !row.values.trim()) continue;
      const values = row.values
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v.length > 0);
      if (!key) return 'Every grid row needs a key.';
      if (values.length === 0) return `Give at least one value for ${key}.`;
      if (result[key]) return `${key} is in the grid twice.`;
      result[key] = values;
    }
    return Object.keys(result).length > 0
      ? result
      : 'Add at least one grid row (a key and its values) to sweep.';
  };

  const launch = async (sweep: boolean) => {
    setError(null);
    if (!versionId) {
      setError('Choose a version that is ready to run.');
      return;
    }
    const config = configurations?.ok ? configurations.items.find((c) => c.configId === configId) : undefined;
    if (source === 'config' && !config) {
      setError('Choose a saved configuration.');
      return;
    }
    const path = { strategy_id: strategyId };
    setBusy(true);
    try {
      if (sweep) {
        const grid = envGrid();
        if (typeof grid === 'string') {
          setError(grid);
          return;
        }
        const base = config && source === 'config' ? configBase(config) : settingsBase();
        const { data, error: failure } = await api.POST('/v1/strategies/{strategy_id}/scenarios/batch', {
          params: { path },
          body: { strategyVersionId: versionId, base, envGrid: grid },
        });
        if (!data) return setError(errorMessage(failure, 'Could not launch the sweep.'));
        onLaunched({
          strategyId,
          scenarioIds: data.data.map((s) => s.scenarioId),
          sweep: true,
          dropped: data.dropped,
        });
      } else if (config && source === 'config') {
        const { data, error: failure } = await api.POST(
          '/v1/strategies/{strategy_id}/scenarios/from-configs',
          {
            params: { path },
            body: { strategyVersionId: versionId, configIds: [config.configId] },
          },
        );
        if (!data) return setError(errorMessage(failure, 'Could not launch the run.'));
        const created = data.data.flatMap((r) => (r.status === 'created' ? [r.scenario.scenarioId] : []));
        const failed = data.data.find((r) => r.status === 'failed');
        if (failed && failed.status === 'failed') setError(failed.error.message);
        if (created.length > 0) onLaunched({ strategyId, scenarioIds: created, sweep: false, dropped: 0 });
      } else {
        const { data, error: failure } = await api.POST('/v1/strategies/{strategy_id}/scenarios', {
          params: { path },
          body: { strategyVersionId: versionId, ...settingsBase() },
        });
        if (!data) return setError(errorMessage(failure, 'Could not launch the run.'));
        onLaunched({ strategyId, scenarioIds: [data.data.scenarioId], sweep: false, dropped: 0 });
      }
    } finally {
      setBusy(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void launch(false);
  };

  const selectedInstrument = instruments?.ok
    ? instruments.items.find((i) => i.symbol === instrument)
    : undefined;

  return (
    <form className="runs-launch" onSubmit={submit} aria-labelledby="launch-title">
      <h2 id="launch-title">Launch a run</h2>
      <div className="runs-launch-grid">
        <div className="runs-field">
          <label htmlFor="launch-strategy">Strategy</label>
          <select id="launch-strategy" value={strategyId} onChange={(e) => setStrategyId(e.target.value)}>
            {strategies.length === 0 && <option value="">No strategies yet</option>}
            {strategies.map((s) => (
              <option key={s.strategyId} value={s.strategyId}>
                {s.name}
              </option>
            ))}
          </select>
        </div>
        <div className="runs-field">
          <label htmlFor="launch-version">Version</label>
          <select
            id="launch-version"
            value={versionId}
            onChange={(e) => setVersionId(e.target.value)}
            disabled={!versions?.ok || versions.items.length === 0}
          >
            {versions?.ok && versions.items.length === 0 && <option value="">No ready versions</option>}
            {!versions && <option value="">Loading…</option>}
            {versions?.ok &&
              versions.items.map((v) => (
                <option key={v.versionId} value={v.versionId}>
                  {v.label ?? v.versionId.slice(0, 8)} ({v.createdAt.slice(0, 10)})
                </option>
              ))}
          </select>
        </div>
      </div>
      {versions && !versions.ok && (
        <p className="error" role="alert">
          {versions.message}
        </p>
      )}

      <fieldset className="runs-fieldset">
        <legend>Settings from</legend>
        <div className="row">
          <label className="runs-choice">
            <input
              type="radio"
              name="launch-source"
              checked={source === 'settings'}
              onChange={() => setSource('settings')}
            />
            These settings
          </label>
          <label className="runs-choice">
            <input
              type="radio"
              name="launch-source"
              checked={source === 'config'}
              onChange={() => setSource('config')}
            />
            A saved configuration
          </label>
        </div>
      </fieldset>

      {source === 'config' ? (
        <div className="runs-field">
          <label htmlFor="launch-config">Configuration</label>
          <select id="launch-config" value={configId} onChange={(e) => setConfigId(e.target.value)}>
            {configurations?.ok && configurations.items.length === 0 && (
              <option value="">No saved configurations</option>
            )}
            {configurations?.ok &&
              configurations.items.map((c) => (
                <option key={c.configId} value={c.configId}>
                  {c.name}
                </option>
              ))}
          </select>
          {configurations && !configurations.ok && (
            <p className="error" role="alert">
              {configurations.message}
            </p>
          )}
        </div>
      ) : (
        <div className="runs-launch-grid">
          <div className="runs-field">
            <label htmlFor="launch-instrument">Instrument</label>
            <select
              id="launch-instrument"
              value={instrument}
              onChange={(e) => {
                const item = instruments?.ok
                  ? instruments.items.find((i) => i.symbol === e.target.value)
                  : undefined;
                if (item) pickInstrument(item);
              }}
            >
              {instruments?.ok &&
                instruments.items.map((i) => (
                  <option key={i.symbol} value={i.symbol}>
                    {i.symbol} ({i.name})
                  </option>
                ))}
            </select>
            {selectedInstrument?.dataStartDate && (
              <span className="runs-hint">
                Data {selectedInstrument.dataStartDate} to {selectedInstrument.dataEndDate}
              </span>
            )}
            {instruments && !instruments.ok && (
              <p className="error" role="alert">
                {instruments.message}
              </p>
            )}
          </div>
          <div className="runs-field">
            <label htmlFor="launch-events">Events (comma-separated)</label>
            <input id="launch-events" value={events} onChange={(e) => setEvents(e.target.value)} />
          </div>
          <div className="runs-field">
            <label htmlFor="launch-start">Start (UTC day)</label>
            <input
              id="launch-start"
              type="date"
              value={startDay}
              onChange={(e) => setStartDay(e.target.value)}
            />
          </div>
          <div className="runs-field">
            <label htmlFor="launch-end">End (UTC day, not included)</label>
            <input id="launch-end" type="date" value={endDay} onChange={(e) => setEndDay(e.target.value)} />
          </div>
          <div className="runs-field">
            <label htmlFor="launch-capital">Initial capital (USD)</label>
            <input
              id="launch-capital"
              type="number"
              min={1}
              max={100_000_000}
              step="any"
              value={capital}
              onChange={(e) => setCapital(e.target.value)}
            />
          </div>
        </div>
      )}

      <fieldset className="runs-fieldset">
        <legend>Env grid (for a sweep)</legend>
        <p className="runs-hint">
          One run per combination of values, each with those env values over the settings' own env.
        </p>
        {grid.map((row, index) => (
          <div className="row runs-grid-row" key={row.id}>
            <label className="visually-hidden" htmlFor={`grid-key-${row.id}`}>
              Env key, row {index + 1}
            </label>
            <input
              id={`grid-key-${row.id}`}
              className="runs-grid-key"
              placeholder="FAST"
              value={row.key}
              onChange={(e) =>
                setGrid(grid.map((r) => (r.id === row.id ? { ...r, key: e.target.value } : r)))
              }
            />
            <label className="visually-hidden" htmlFor={`grid-values-${row.id}`}>
              Env values, row {index + 1} (comma-separated)
            </label>
            <input
              id={`grid-values-${row.id}`}
              placeholder="5, 10, 20"
              value={row.values}
              onChange={(e) =>
                setGrid(grid.map((r) => (r.id === row.id ? { ...r, values: e.target.value } : r)))
              }
            />
            <button
              type="button"
              className="secondary"
              aria-label={`Remove grid row ${index + 1}`}
              onClick={() => setGrid(grid.filter((r) => r.id !== row.id))}
            >
              Remove
            </button>
          </div>
        ))}
        <div>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setGrid([...grid, { id: nextRowId, key: '', values: '' }]);
              setNextRowId(nextRowId + 1);
            }}
          >
            Add grid row
          </button>
        </div>
      </fieldset>

      <div className="row runs-launch-actions">
        <button type="submit" disabled={busy || !versionId}>
          Launch run
        </button>
        <button
          type="button"
          disabled={busy || !versionId || grid.length === 0}
          onClick={() => void launch(true)}
        >
          Launch sweep
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
