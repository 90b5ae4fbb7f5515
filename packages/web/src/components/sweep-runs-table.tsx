/**
 * The sweep page's table: one row per run with its grid values, state and key metrics, sortable by
 * any column (click its header; again to reverse), each row linking to its run, and a checkbox on
 * each COMPLETE run to pick runs to compare. Runs without a value sort last either way.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import type { SweepRun } from '../api/internal.ts';
import { compareMetricValues, formatMetric, KEY_METRICS, metricDef, metricValue } from './metrics.ts';
import { RunStateBadge } from './run-state.tsx';
import { sortParamValues } from './sweep-heatmap-model.ts';

type SortKey = { kind: 'param' | 'metric' | 'state' | 'label'; key: string };

const STATE_ORDER = ['COMPLETE', 'RUNNING', 'PENDING', 'QUEUED', 'FAILED', 'CANCELLED'];

export function SweepRunsTable({
  runs,
  gridKeys,
  selected,
  onToggle,
}: {
  runs: readonly SweepRun[];
  gridKeys: readonly string[];
  selected: ReadonlySet<string>;
  onToggle: (scenarioId: string) => void;
}) {
  const [sort, setSort] = useState<{ by: SortKey; descending: boolean } | null>(null);

  const sorted = sort ? sortRuns(runs, sort.by, sort.descending) : runs;
  const header = (by: SortKey, label: string) => {
    const active = sort?.by.kind === by.kind && sort.by.key === by.key;
    const direction = active ? (sort?.descending ? 'descending' : 'ascending') : 'none';
    return (
      <th scope="col" aria-sort={direction} key={`${by.kind}:${by.key}`}>
        <button
          type="button"
          className="sweeps-sort"
          onClick={() => setSort({ by, descending: active ? !sort?.descending : by.kind === 'metric' })}
        >
          {label}
          <span aria-hidden="true" className="sweeps-sort-mark">
            {active ? (sort?.descending ? ' ▼' : ' ▲') : ''}
          </span>
        </button>
      </th>
    );
  };

  return (
    <div className="table-wrap">
      <table className="sweeps-runs" data-testid="sweep-runs">
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Compare</span>
            </th>
            {header({ kind: 'label', key: '' }, 'Run')}
            {gridKeys.map((key) => header({ kind: 'param', key }, key))}
            {header({ kind: 'state', key: '' }, 'State')}
            {KEY_METRICS.map((key) => header({ kind: 'metric', key }, metricDef(key).label))}
          </tr>
        </thead>
        <tbody>
          {sorted.map((run) => {
            const name = run.label ?? run.scenarioId.slice(0, 8);
            return (
              <tr key={run.scenarioId} data-scenario-id={run.scenarioId}>
                <td>
                  {run.state === 'COMPLETE' && (
                    <input
                      type="checkbox"
                      aria-label={`Select run ${name} to compare`}
                      checked={selected.has(run.scenarioId)}
                      onChange={() => onToggle(run.scenarioId)}
                    />
                  )}
                </td>
                <td className="sweeps-nowrap">
                  <Link to={`/runs/${run.scenarioId}`}>
                    <code>{run.scenarioId.slice(0, 8)}</code>
                  </Link>
                </td>
                {gridKeys.map((key) => (
                  <td key={key} className="sweeps-num">
                    {run.params[key] ?? '—'}
                  </td>
                ))}
                <td>
                  <RunStateBadge state={run.state} />
                </td>
                {KEY_METRICS.map((key) => {
                  const value = metricValue(run.metrics, key);
                  return (
                    <td
                      key={key}
                      className="sweeps-num sweeps-nowrap"
                      title={value === null ? undefined : String(value)}
                    >
                      {formatMetric(value, metricDef(key).kind)}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function sortRuns(runs: readonly SweepRun[], by: SortKey, descending: boolean): SweepRun[] {
  const direction = descending ? -1 : 1;
  const value = (run: SweepRun): string | number | null => {
    switch (by.kind) {
      case 'label':
        return run.label ?? run.scenarioId;
      case 'state':
        return STATE_ORDER.indexOf(run.state);
      case 'param':
        return run.params[by.key] ?? null;
      case 'metric':
        return metricValue(run.metrics, by.key);
    }
  };
  // Parameters sort as their values do on the heatmap's axes: numerically when all are numbers.
  const paramRank =
    by.kind === 'param'
      ? new Map(
          sortParamValues(runs.flatMap((r) => (by.key in r.params ? [r.params[by.key] as string] : []))).map(
            (v, i) => [v, i],
          ),
        )
      : null;
  return [...runs].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    if (paramRank) return direction * ((paramRank.get(x as string) ?? 0) - (paramRank.get(y as string) ?? 0));
    if (by.kind === 'label') return direction * String(x).localeCompare(String(y), 'en', { numeric: true });
    return direction * compareMetricValues(x, y);
  });
}
