import type { Metrics } from '@hindsight/engine';

/**
 * The metrics a person reads first, as rows of a table (`hindsight backtest` prints them at the end
 * of a run and per cell of a sweep): money as the exact decimals the files hold, ratios rounded.
 */
export interface MetricColumn {
  key: keyof Metrics;
  label: string;
  unit: string;
}

export const METRIC_COLUMNS: readonly MetricColumn[] = [
  { key: 'netPnl', label: 'Net P&L', unit: 'USD' },
  { key: 'totalReturn', label: 'Return', unit: '%' },
  { key: 'annualizedReturnPct', label: 'CAGR', unit: '%' },
  { key: 'maxDrawdownPct', label: 'Max drawdown', unit: '%' },
  { key: 'sharpeRatio', label: 'Sharpe', unit: '' },
  { key: 'sortinoRatio', label: 'Sortino', unit: '' },
  { key: 'totalTrades', label: 'Trades', unit: '' },
  { key: 'winRatePct', label: 'Win rate', unit: '%' },
  { key: 'profitFactor', label: 'Profit factor', unit: '' },
  { key: 'totalCommission', label: 'Commission', unit: 'USD' },
];

/** One metric as shown: exact decimals as they are, numbers to 2 places, `n/a` with no value. */
export function metricText(metrics: Metrics, key: keyof Metrics): string {
  const value = metrics[key];
  if (value === undefined) return 'n/a';
  return typeof value === 'number'
    ? Number.isInteger(value)
      ? String(value)
      : value.toFixed(2)
    : String(value);
}

/** The metrics as a two-column table. */
export function metricsTable(metrics: Metrics): string {
  const rows = METRIC_COLUMNS.map((c) => [
    c.unit ? `${c.label} (${c.unit})` : c.label,
    metricText(metrics, c.key),
  ]);
  const width = Math.max(...rows.map(([label]) => (label as string).length));
  return rows.map(([label, value]) => `  ${(label as string).padEnd(width)}  ${value}`).join('\n');
}

/** Rows under a header, columns padded to their widest cell. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)))
      .join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
