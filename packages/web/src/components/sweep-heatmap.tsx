/**
 * The sweep page's heatmap: a chosen metric over two grid parameters, as an HTML table (rows are the
 * Y values, columns the X values), each cell a link to its run, coloured on a diverging scale for
 * signed metrics and a sequential one otherwise, with its value printed and a legend. A sweep over
 * one key is one row. With more than two keys, each other key is held at one value picked in a select
 * (default its first): every cell is then one real run, which a link can open, where an average over
 * the other keys would be no run at all. Cells of runs that are not COMPLETE show their state.
 */
import { type CSSProperties, useState } from 'react';
import { Link } from 'react-router';
import type { SweepRun } from '../api/internal.ts';
import { digitsFor, formatMetric, METRICS, type MetricDef, metricDef, reasonInWords } from './metrics.ts';
import {
  buildHeatGrid,
  type ColourScale,
  colourScale,
  cssColour,
  type HeatCell,
  paramValues,
  textOn,
} from './sweep-heatmap-model.ts';

const STATE_WORDS: Record<string, string> = {
  QUEUED: 'Queued',
  PENDING: 'Pending',
  RUNNING: 'Running',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
};

export function SweepHeatmap({ runs, gridKeys }: { runs: readonly SweepRun[]; gridKeys: readonly string[] }) {
  const [metric, setMetric] = useState('totalReturn');
  const [xKey, setXKey] = useState(gridKeys[0] ?? '');
  const [yKey, setYKey] = useState<string | null>(gridKeys[1] ?? null);
  const [held, setHeld] = useState<Record<string, string>>({});

  if (gridKeys.length === 0) {
    return (
      <p className="muted">This sweep has no grid (its runs share their env), so there is no heatmap.</p>
    );
  }

  const values = paramValues(runs, gridKeys);
  const others = gridKeys.filter((key) => key !== xKey && key !== yKey);
  const fixed = Object.fromEntries(
    others.flatMap((key) => {
      const value = held[key] ?? values[key]?.[0];
      return value === undefined ? [] : [[key, value]];
    }),
  );
  const def = metricDef(metric);
  const grid = buildHeatGrid(runs, { metric, xKey, yKey, fixed });
  const scale = grid.min !== null && grid.max !== null ? colourScale(def.signed, grid.min, grid.max) : null;
  const digits = scale ? digitsFor(Math.max(Math.abs(scale.low), Math.abs(scale.high))) : 2;

  const chooseX = (key: string) => {
    if (key === yKey) setYKey(xKey);
    setXKey(key);
  };
  const chooseY = (key: string) => setYKey(key === '' ? null : key);
  const heldText = Object.entries(fixed)
    .map(([key, value]) => `${key} = ${value}`)
    .join(', ');

  return (
    <div className="sweeps-heatmap-block">
      <div className="sweeps-controls">
        <div className="sweeps-field">
          <label htmlFor="heatmap-metric">Metric</label>
          <select id="heatmap-metric" value={metric} onChange={(e) => setMetric(e.target.value)}>
            {METRICS.map((m) => (
              <option key={m.key} value={m.key}>
                {m.label}
              </option>
            ))}
          </select>
        </div>
        <div className="sweeps-field">
          <label htmlFor="heatmap-x">X parameter</label>
          <select id="heatmap-x" value={xKey} onChange={(e) => chooseX(e.target.value)}>
            {gridKeys.map((key) => (
              <option key={key} value={key}>
                {key}
              </option>
            ))}
          </select>
        </div>
        <div className="sweeps-field">
          <label htmlFor="heatmap-y">Y parameter</label>
          <select id="heatmap-y" value={yKey ?? ''} onChange={(e) => chooseY(e.target.value)}>
            <option value="">None (one row)</option>
            {gridKeys
              .filter((key) => key !== xKey)
              .map((key) => (
                <option key={key} value={key}>
                  {key}
                </option>
              ))}
          </select>
        </div>
        {others.map((key) => (
          <div className="sweeps-field" key={key}>
            <label htmlFor={`heatmap-hold-${key}`}>Hold {key} at</label>
            <select
              id={`heatmap-hold-${key}`}
              value={fixed[key] ?? ''}
              onChange={(e) => setHeld({ ...held, [key]: e.target.value })}
            >
              {(values[key] ?? []).map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </div>
        ))}
      </div>
      <div className="table-wrap sweeps-heatmap-scroll">
        <table className="sweeps-heatmap" data-testid="sweep-heatmap" data-metric={metric}>
          <caption>
            {def.label} by {xKey} (across){yKey ? ` and ${yKey} (down)` : ''}
            {heldText ? `, with ${heldText}` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col" className="sweeps-heatmap-corner">
                {yKey ? (
                  <>
                    {yKey} <span aria-hidden="true">↓</span> / {xKey} <span aria-hidden="true">→</span>
                  </>
                ) : (
                  <>
                    {xKey} <span aria-hidden="true">→</span>
                  </>
                )}
              </th>
              {grid.xs.map((x) => (
                <th scope="col" key={x}>
                  {x}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {grid.rows.map((row, r) => (
              <tr key={String(grid.ys[r])}>
                <th scope="row">{yKey ? grid.ys[r] : def.label}</th>
                {row.map((cell) => (
                  <Cell
                    key={cell.x}
                    cell={cell}
                    def={def}
                    scale={scale}
                    digits={digits}
                    xKey={xKey}
                    yKey={yKey}
                  />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {grid.outside > 0 && (
        <p className="muted">
          {grid.outside} of {runs.length} runs are not in this view
          {heldText ? ' (other values of the held keys)' : ' (they lack these parameters)'}.
        </p>
      )}
      <Legend def={def} scale={scale} digits={digits} />
    </div>
  );
}

function Cell({
  cell,
  def,
  scale,
  digits,
  xKey,
  yKey,
}: {
  cell: HeatCell;
  def: MetricDef;
  scale: ColourScale | null;
  digits: number;
  xKey: string;
  yKey: string | null;
}) {
  const where = `${xKey} ${cell.x}${yKey ? `, ${yKey} ${cell.y}` : ''}`;
  const attributes = {
    'data-testid': 'heatmap-cell',
    'data-x': cell.x,
    'data-y': cell.y ?? '',
    'data-value': cell.value === null ? '' : String(cell.value),
  };
  const { run } = cell;
  if (!run) {
    return (
      <td {...attributes} className="sweeps-cell sweeps-cell-empty">
        <span className="visually-hidden">{where}: </span>no run
      </td>
    );
  }
  let text: string;
  let style: CSSProperties | undefined;
  let className = 'sweeps-cell';
  if (run.state !== 'COMPLETE') {
    text = STATE_WORDS[run.state] ?? run.state;
    className += ` sweeps-cell-pending sweeps-cell-${run.state.toLowerCase()}`;
  } else if (cell.value === null) {
    const reason = run.metrics?.[`${def.key}Reason`];
    text = typeof reason === 'string' ? reasonInWords(reason) : '—';
    className += ' sweeps-cell-missing';
  } else {
    text = formatMetric(cell.value, def.kind, undefined, digits);
    if (scale) {
      const fill = scale.colour(Number(cell.value));
      style = { background: cssColour(fill), color: textOn(fill) };
    }
  }
  return (
    <td {...attributes} className={className} style={style} data-state={run.state}>
      <Link to={`/runs/${run.scenarioId}`} title={cell.value === null ? undefined : String(cell.value)}>
        <span className="visually-hidden">{where}: </span>
        {text}
      </Link>
    </td>
  );
}

/** The scale's ends and middle with their colours, and what a grey or hatched cell means. */
function Legend({ def, scale, digits }: { def: MetricDef; scale: ColourScale | null; digits: number }) {
  if (!scale) {
    return <p className="muted">No run in view has a {def.label.toLowerCase()} yet.</p>;
  }
  const stops = [0, 0.25, 0.5, 0.75, 1].map((t) => {
    const value = scale.low + (scale.high - scale.low) * t;
    return `${cssColour(scale.colour(value))} ${t * 100}%`;
  });
  const middle = scale.kind === 'diverging' ? 0 : (scale.low + scale.high) / 2;
  return (
    <div className="sweeps-legend" data-testid="heatmap-legend">
      <div
        className="sweeps-legend-bar"
        style={{ background: `linear-gradient(to right, ${stops.join(', ')})` }}
      />
      <div className="sweeps-legend-labels">
        <span>{formatMetric(scale.low, def.kind, undefined, digits)}</span>
        <span>{formatMetric(middle, def.kind, undefined, digits)}</span>
        <span>{formatMetric(scale.high, def.kind, undefined, digits)}</span>
      </div>
      <p className="muted">
        {scale.kind === 'diverging'
          ? 'Red below zero, blue above; the further from zero, the darker.'
          : 'Lighter is lower, darker is higher.'}{' '}
        Hatched cells are runs not yet complete (or that failed); open any cell for its run.
      </p>
    </div>
  );
}
