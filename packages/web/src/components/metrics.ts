/**
 * The run metrics of the spec's table, as the run, sweep and compare pages show them: each with a
 * label, a unit (the format.ts rounding its kind calls for), whether it is signed (a diverging colour
 * scale, centred on zero) and which way is better (the compare table's highlight), and the reasons
 * the engine gives for leaving one out, in words. Values are compared exactly: money metrics are
 * decimal strings, compared digit by digit rather than as floats. No DOM.
 */
import { formatDecimal, formatDuration, formatMoney, formatPercent } from '../format.ts';

export type MetricKind = 'percent' | 'money' | 'ratio' | 'count' | 'days' | 'seconds';

export interface MetricDef {
  key: string;
  label: string;
  kind: MetricKind;
  /** Can be below zero, with zero meaning "neither": coloured on a diverging scale. */
  signed: boolean;
  /** Which way is better; `null` when neither is (a trade count, a duration). */
  better: 'higher' | 'lower' | null;
}

const m = (
  key: string,
  label: string,
  kind: MetricKind,
  signed: boolean,
  better: MetricDef['better'],
): MetricDef => ({ key, label, kind, signed, better });

/** Every metric of the spec's table, in its order. */
export const METRICS: readonly MetricDef[] = [
  m('totalReturn', 'Total return', 'percent', true, 'higher'),
  m('annualizedReturnPct', 'Annualized return', 'percent', true, 'higher'),
  m('netPnl', 'Net P&L', 'money', true, 'higher'),
  m('grossPnl', 'Gross P&L', 'money', true, 'higher'),
  m('totalCommission', 'Total commission', 'money', false, 'lower'),
  m('maxDrawdownPct', 'Max drawdown', 'percent', false, 'lower'),
  m('maxDrawdownDurationDays', 'Longest drawdown', 'days', false, 'lower'),
  m('sharpeRatio', 'Sharpe ratio', 'ratio', true, 'higher'),
  m('sortinoRatio', 'Sortino ratio', 'ratio', true, 'higher'),
  m('totalTrades', 'Closed trades', 'count', false, null),
  m('winningTrades', 'Winning trades', 'count', false, 'higher'),
  m('losingTrades', 'Losing trades', 'count', false, 'lower'),
  m('winRatePct', 'Win rate', 'percent', false, 'higher'),
  m('profitFactor', 'Profit factor', 'ratio', false, 'higher'),
  m('avgWin', 'Average win', 'money', false, 'higher'),
  m('avgLoss', 'Average loss', 'money', false, 'lower'),
  m('largestWin', 'Largest win', 'money', false, 'higher'),
  m('largestLoss', 'Largest loss', 'money', false, 'lower'),
  m('avgTradeDurationSeconds', 'Average trade duration', 'seconds', false, null),
];

const REASONS: Record<string, string> = {
  insufficient_data_points: 'Not enough data points',
  zero_standard_deviation: 'Returns did not vary',
  no_negative_returns: 'No losing days',
  no_winning_trades: 'No winning trades',
  no_losing_trades: 'No losing trades',
  no_closed_trades: 'No closed trades',
};

/** Why the engine left a metric out (its `<key>Reason`), in words. */
export const reasonInWords = (reason: string) => REASONS[reason] ?? reason.replaceAll('_', ' ');

/** The sweep table's columns: the metrics a parameter search is usually judged by. */
export const KEY_METRICS: readonly string[] = [
  'totalReturn',
  'sharpeRatio',
  'maxDrawdownPct',
  'netPnl',
  'totalTrades',
  'winRatePct',
];

const BY_KEY = new Map(METRICS.map((def) => [def.key, def]));

export function metricDef(key: string): MetricDef {
  return BY_KEY.get(key) ?? m(key, key, 'ratio', true, null);
}

/**
 * A metric value as the pages show it, with its unit; `—` when absent. `digits` overrides the two
 * places of percents and ratios (the heatmap shows more when its values are all small).
 */
export function formatMetric(value: unknown, kind: MetricKind, currency?: string, digits = 2): string {
  if (value === null || value === undefined) return '—';
  const v = value as string | number;
  switch (kind) {
    case 'percent':
      return formatPercent(v, digits);
    case 'money':
      return formatMoney(v, currency);
    case 'ratio':
      return formatDecimal(v, digits);
    case 'count':
      return formatDecimal(v, 0);
    case 'days':
      return formatDuration(Number(v) * 86_400);
    case 'seconds':
      return formatDuration(v);
  }
}

/** The value of `key` in a metrics object when it is a number or a decimal string, else null. */
export function metricValue(metrics: Record<string, unknown> | null | undefined, key: string) {
  const value = metrics?.[key];
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && DECIMAL.test(value)) return value;
  return null;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Orders two metric values: numbers as numbers, two decimal strings exactly (a float would round
 * "0.30000000000000001" and "0.3" to the same value). Mixed or unusual forms fall back to Number.
 */
export function compareMetricValues(a: number | string, b: number | string): number {
  if (typeof a === 'string' && typeof b === 'string') {
    const x = DECIMAL.exec(a);
    const y = DECIMAL.exec(b);
    if (x && y) return compareDecimals(x, y);
  }
  const difference = Number(a) - Number(b);
  return difference < 0 ? -1 : difference > 0 ? 1 : 0;
}

function compareDecimals(x: RegExpExecArray, y: RegExpExecArray): number {
  const xZero = isZero(x);
  const yZero = isZero(y);
  const xSign = xZero ? 0 : x[1] ? -1 : 1;
  const ySign = yZero ? 0 : y[1] ? -1 : 1;
  if (xSign !== ySign) return xSign < ySign ? -1 : 1;
  if (xSign === 0) return 0;
  const magnitude = compareMagnitudes(x, y);
  return magnitude === 0 ? 0 : xSign * magnitude;
}

const isZero = (match: RegExpExecArray) => !/[1-9]/.test(`${match[2]}${match[3] ?? ''}`);

function compareMagnitudes(x: RegExpExecArray, y: RegExpExecArray): number {
  const xInt = (x[2] as string).replace(/^0+/, '');
  const yInt = (y[2] as string).replace(/^0+/, '');
  if (xInt.length !== yInt.length) return xInt.length < yInt.length ? -1 : 1;
  if (xInt !== yInt) return xInt < yInt ? -1 : 1;
  const width = Math.max(x[3]?.length ?? 0, y[3]?.length ?? 0);
  const xFrac = (x[3] ?? '').padEnd(width, '0');
  const yFrac = (y[3] ?? '').padEnd(width, '0');
  return xFrac === yFrac ? 0 : xFrac < yFrac ? -1 : 1;
}

/**
 * Places that tell small values apart: 2 when the largest magnitude is 0.1 or more, one more per
 * decade below (0.05 -> 3, 0.005 -> 4), at most 4.
 */
export function digitsFor(largest: number): number {
  if (!(largest > 0) || largest >= 1) return 2;
  return Math.min(4, Math.max(2, 1 - Math.floor(Math.log10(largest))));
}
