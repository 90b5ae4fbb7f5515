/**
 * The report's metric cards: each metric of the run with a label, a unit and a rounding fit for
 * reading. Percentages and ratios are rounded for display (the exact number is in the card's
 * tooltip). Money is a decimal string never read as a float: shown to the cent (rounded half-even in
 * decimal) with the metrics' exact string under it whenever the two differ (a mean or a slipped fill
 * can carry dozens of digits). An omitted metric shows "n/a" with its reason (decision 17).
 */
import { Dec } from '@hindsight/core';
import type { Metrics } from '@hindsight/engine';
import { escapeHtml } from './html-text.ts';

type Kind = 'percent' | 'ratio' | 'count' | 'money' | 'days' | 'duration';

interface MetricSpec {
  key: keyof Metrics;
  label: string;
  kind: Kind;
  /** Colour the value by its sign (green above zero, red below). */
  signed?: boolean;
}

/** Headline figures first, then trade statistics. Every Metrics field that has a value appears. */
const METRIC_SPECS: readonly MetricSpec[] = [
  { key: 'netPnl', label: 'Net P&L', kind: 'money', signed: true },
  { key: 'totalReturn', label: 'Total return', kind: 'percent', signed: true },
  { key: 'annualizedReturnPct', label: 'CAGR', kind: 'percent', signed: true },
  { key: 'maxDrawdownPct', label: 'Max drawdown', kind: 'percent' },
  { key: 'maxDrawdownDurationDays', label: 'Max drawdown duration', kind: 'days' },
  { key: 'sharpeRatio', label: 'Sharpe ratio', kind: 'ratio', signed: true },
  { key: 'sortinoRatio', label: 'Sortino ratio', kind: 'ratio', signed: true },
  { key: 'totalTrades', label: 'Closed trades', kind: 'count' },
  { key: 'winRatePct', label: 'Win rate', kind: 'percent' },
  { key: 'profitFactor', label: 'Profit factor', kind: 'ratio' },
  { key: 'winningTrades', label: 'Winning trades', kind: 'count' },
  { key: 'losingTrades', label: 'Losing trades', kind: 'count' },
  { key: 'avgWin', label: 'Average win', kind: 'money' },
  { key: 'avgLoss', label: 'Average loss', kind: 'money' },
  { key: 'largestWin', label: 'Largest win', kind: 'money' },
  { key: 'largestLoss', label: 'Largest loss', kind: 'money' },
  { key: 'avgTradeDurationSeconds', label: 'Average trade duration', kind: 'duration' },
  { key: 'grossPnl', label: 'Gross P&L', kind: 'money', signed: true },
  { key: 'totalCommission', label: 'Commissions', kind: 'money' },
];

export interface MetricCard {
  key: string;
  label: string;
  /** The value as displayed, without its unit. */
  text: string;
  unit: string;
  /** The exact value (the metrics' number or string), or the reason it is omitted. */
  exact: string;
  /** A line under the value: the exact amount when `text` rounds it, or the omission's reason. */
  note?: string;
  tone: 'positive' | 'negative' | 'neutral' | 'missing';
}

const fixed = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Two decimals with thousands separators; beyond a billion, scientific notation. Never "-0.00". */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 1e9) return value.toExponential(3);
  const text = fixed.format(value);
  return /^-0\.0+$/.test(text) ? text.slice(1) : text;
}

/** A duration in seconds as its two largest units: "45 s", "12 min 5 s", "3 h 20 min", "2 d 4 h". */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${formatNumber(seconds)} s`;
  const whole = Math.round(seconds);
  const d = Math.floor(whole / 86_400);
  const h = Math.floor((whole % 86_400) / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  if (d > 0) return `${integer.format(d)} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  return `${m} min ${s} s`;
}

/**
 * A decimal amount to two places: rounded half-even in decimal when it has more, padded with zeros
 * when it has fewer (which changes no value).
 */
export function toCents(amount: string): string {
  const dot = amount.indexOf('.');
  const places = dot < 0 ? 0 : amount.length - dot - 1;
  if (places <= 2) return `${amount}${dot < 0 ? '.' : ''}${'0'.repeat(2 - places)}`;
  const rounded = new Dec(amount).toFixed(2);
  return rounded === '-0.00' ? '0.00' : rounded;
}

/** Whether `toCents` rounds the amount (it has more than two decimal places). */
const roundsAmount = (amount: string): boolean => {
  const dot = amount.indexOf('.');
  return dot >= 0 && amount.length - dot - 1 > 2;
};

const humanReason = (reason: string): string => reason.replace(/_/g, ' ');

function toneOf(spec: MetricSpec, sign: number): MetricCard['tone'] {
  if (!spec.signed || sign === 0) return 'neutral';
  return sign > 0 ? 'positive' : 'negative';
}

/** Sign of a decimal string without parsing it: "-..." is negative, all zeros is zero. */
const decimalSign = (text: string): number => (/^-?[0.]*$/.test(text) ? 0 : text.startsWith('-') ? -1 : 1);

function card(spec: MetricSpec, value: unknown, reason: unknown): MetricCard | undefined {
  const base = { key: spec.key, label: spec.label };
  if (value === undefined) {
    if (reason === undefined) return undefined;
    const why = humanReason(String(reason));
    return { ...base, text: 'n/a', unit: '', exact: why, note: why, tone: 'missing' };
  }
  if (typeof value === 'string') {
    const cents = toCents(value);
    const tone = toneOf(spec, decimalSign(value));
    return {
      ...base,
      text: cents,
      unit: 'USD',
      exact: value,
      tone,
      ...(roundsAmount(value) && { note: value }),
    };
  }
  const n = value as number;
  const tone = toneOf(spec, Math.sign(n));
  const exact = String(n);
  switch (spec.kind) {
    case 'percent':
      return { ...base, text: formatNumber(n), unit: '%', exact, tone };
    case 'days':
      return { ...base, text: formatNumber(n), unit: 'days', exact, tone };
    case 'duration':
      return { ...base, text: formatDuration(n), unit: '', exact: `${exact} s`, tone };
    case 'count':
      return { ...base, text: integer.format(n), unit: '', exact, tone };
    default:
      return { ...base, text: formatNumber(n), unit: '', exact, tone };
  }
}

/** The cards of every metric present (or omitted with a reason), in display order. */
export function metricCards(metrics: Metrics): MetricCard[] {
  const record = metrics as unknown as Record<string, unknown>;
  const cards: MetricCard[] = [];
  for (const spec of METRIC_SPECS) {
    const made = card(spec, record[spec.key], record[`${spec.key}Reason`]);
    if (made) cards.push(made);
  }
  return cards;
}

export function metricCardsHtml(metrics: Metrics): string {
  return metricCards(metrics)
    .map(
      (c) =>
        `<div class="card ${c.tone}" data-metric="${escapeHtml(c.key)}" title="${escapeHtml(c.exact)}">` +
        `<div class="card-label">${escapeHtml(c.label)}</div>` +
        `<div class="card-value"><span class="value">${escapeHtml(c.text)}</span>` +
        (c.unit ? ` <span class="unit">${escapeHtml(c.unit)}</span>` : '') +
        '</div>' +
        (c.note === undefined ? '' : `<div class="card-note">${escapeHtml(c.note)}</div>`) +
        '</div>',
    )
    .join('\n');
}
