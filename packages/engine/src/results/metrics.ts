/**
 * Scenario metrics (management-api.md "Metrics", decisions 8-17 and 36).
 *
 * Arithmetic: every computation on money, NAV, returns, standard deviations and ratios is done in
 * `Dec` (60 significant digits). Percentages and ratios are converted to JS numbers once, at the end
 * (`Dec#toNumber`, the double nearest the decimal result); money stays a canonical decimal string.
 * Durations: maxDrawdownDurationDays is one difference of integer milliseconds (exact) divided by
 * 86400000 as numbers; avgTradeDurationSeconds sums the lots' milliseconds in Dec (no 2^53 limit) and
 * divides in Dec.
 *
 * The NAV inputs are the timeseries file's arrays. The sampler keeps every point these metrics
 * depend on, so the metrics computed from the sampled file equal those of the full series.
 *
 * Speed: the scans over the NAV series and the lots decide on floats and compute exactly only where
 * the result could change (`NavSeries`: exact on near ties; a drawdown is divided out only when it
 * may be the largest); the lots' money is the position book's running totals (`LotTotals`), or read
 * from the lots' texts as scaled integers, and added in BigInt while no sum can round (`DecSum`), not
 * parsed into decimals. The results are those of the exact scans.
 */
import { Dec, toDecimalString } from '@hindsight/core';
import { scaledText } from '../numbers/scaled-decimal.ts';
import { type LotTotals, lotTotalsOf } from '../positions/lot-totals.ts';
import type { DecimalInput, TradeLot } from '../positions/trade-lot.ts';
import { NavSeries } from './nav-series.ts';
import { DAY_MS } from './timeseries-sampler.ts';

export type MetricReason =
  | 'insufficient_data_points'
  | 'zero_standard_deviation'
  | 'no_negative_returns'
  | 'no_winning_trades'
  | 'no_losing_trades'
  | 'no_closed_trades';

/**
 * Decision 17: an omitted metric `x` carries `xReason`; a present one carries none. Percentages and
 * ratios are numbers, counts integers, money decimal strings (decision 16).
 */
export interface Metrics {
  totalReturn: number;
  maxDrawdownPct: number;
  sharpeRatio?: number;
  sharpeRatioReason?: MetricReason;
  winRatePct?: number;
  winRatePctReason?: MetricReason;
  totalTrades: number;
  netPnl: string;
  grossPnl: string;
  annualizedReturnPct?: number;
  annualizedReturnPctReason?: MetricReason;
  maxDrawdownDurationDays: number;
  sortinoRatio?: number;
  sortinoRatioReason?: MetricReason;
  winningTrades: number;
  losingTrades: number;
  profitFactor?: number;
  profitFactorReason?: MetricReason;
  avgWin?: string;
  avgWinReason?: MetricReason;
  avgLoss?: string;
  avgLossReason?: MetricReason;
  largestWin?: string;
  largestWinReason?: MetricReason;
  largestLoss?: string;
  largestLossReason?: MetricReason;
  avgTradeDurationSeconds?: number;
  avgTradeDurationSecondsReason?: MetricReason;
  totalCommission: string;
}

export interface MetricsInput {
  /** Timeseries file timestamps (epoch ms, strictly increasing; the first is the run start). */
  timestamps: readonly number[];
  /** Timeseries file NAV, index-aligned with `timestamps`. */
  nav: readonly DecimalInput[];
  /** The same NAVs as decimals, when the caller has them (the sampler does): spares parsing `nav`. */
  navValues?: readonly (Dec | undefined)[];
  /** Every lot, open and closed. */
  trades: readonly TradeLot[];
  /** The lots' totals as the book kept them (used when `orderFree`, else read from `trades`). */
  lotTotals?: LotTotals;
  initialCapital: DecimalInput;
  startTime: number;
  endTime: number;
  /** Every subscribed instrument is crypto (`C:`): 365 trading days per year, else 252 (decision 10). */
  allCrypto: boolean;
}

/** Dec -> number, never -0. */
function toNum(value: Dec): number {
  const n = value.toNumber();
  return n === 0 ? 0 : n;
}

function checkSeries(timestamps: readonly number[], nav: { length: number }): void {
  if (timestamps.length === 0) throw new RangeError('the timeseries needs at least the run-start sample');
  if (timestamps.length !== nav.length) throw new RangeError('timestamps and nav must be index-aligned');
  for (let i = 0; i < timestamps.length; i++) {
    const t = timestamps[i] as number;
    if (!Number.isSafeInteger(t)) throw new RangeError('timestamps must be integer epoch ms');
    if (i > 0 && t <= (timestamps[i - 1] as number))
      throw new RangeError('timestamps must strictly increase');
  }
}

/** The NAVs as a checked `NavSeries` (the metrics pass theirs; a file's strings are read into one). */
function seriesOf(timestamps: readonly number[], nav: readonly DecimalInput[] | NavSeries): NavSeries {
  const series = nav instanceof NavSeries ? nav : new NavSeries(nav);
  checkSeries(timestamps, series);
  return series;
}

export interface DrawdownStats {
  /** Largest (peak - trough) / peak, as a fraction (x 100 for percent). */
  maxDrawdown: Dec;
  /** Decision 15, in milliseconds. */
  maxDurationMs: number;
}

/**
 * maxDrawdownPct and decision 15's duration on one pass. The peak is the running maximum of NAV from
 * the first sample (decision 8: initialCapital). A drawdown starts at the last sample at the peak and
 * ends at the first sample at or above it again, or at the last sample if NAV never recovers.
 */
export function drawdownStats(
  timestamps: readonly number[],
  nav: readonly DecimalInput[] | NavSeries,
): DrawdownStats {
  const series = seriesOf(timestamps, nav);
  let peak = 0;
  let peakPositive = series.float(0) > 0 || series.at(0).gt(0);
  let peakTime = timestamps[0] as number;
  let trough = 0;
  let inDrawdown = false;
  let maxDrawdown = new Dec(0);
  let maxApprox = 0;
  let maxDurationMs = 0;
  // Below a positive peak the drawdown (peak - v) / peak grows as v falls, so a drawdown's largest is
  // at its lowest trough: it is divided out once, when the drawdown ends (or the series does).
  let troughPending = false;
  const measure = (at: number) => {
    if (clearlySmaller(series.float(peak), series.float(at), maxApprox)) return;
    const top = series.at(peak);
    const dd = top.minus(series.at(at)).div(top);
    if (dd.gt(maxDrawdown)) {
      maxDrawdown = dd;
      maxApprox = dd.toNumber();
    }
  };
  for (let i = 1; i < series.length; i++) {
    const t = timestamps[i] as number;
    if (series.compare(i, peak) >= 0) {
      if (inDrawdown) maxDurationMs = Math.max(maxDurationMs, t - peakTime);
      if (troughPending) measure(trough);
      troughPending = false;
      inDrawdown = false;
      peakPositive = series.float(i) > 0 || series.at(i).gt(0);
      peak = i;
      peakTime = t;
    } else if (!inDrawdown || series.compare(i, trough) < 0) {
      inDrawdown = true;
      trough = i;
      if (peakPositive) troughPending = true;
      else measure(i);
    }
  }
  if (troughPending) measure(trough);
  if (inDrawdown)
    maxDurationMs = Math.max(maxDurationMs, (timestamps[timestamps.length - 1] as number) - peakTime);
  return { maxDrawdown, maxDurationMs };
}

/**
 * Whether the drawdown from `peak` to `value` (floats of the exact NAVs) is certainly below the largest
 * so far (`max`, the float of an exact drawdown): then it need not be divided out exactly. The margin,
 * 1e-9 of the ratio's size, is far above the floats' error and far below a difference that matters.
 */
function clearlySmaller(peak: number, value: number, max: number): boolean {
  if (!(peak > 0) || !Number.isFinite(value)) return false;
  const ratio = value / peak;
  return 1 - ratio < max - 1e-9 * Math.max(1, Math.abs(ratio));
}

export interface DailyCloses {
  /** The UTC midnights, from the first at or after the first sample to the first at or after the last. */
  times: number[];
  /** For each midnight, the NAV of the last sample at or before it. */
  closes: Dec[];
}

/** Decision 10: NAV resampled to UTC daily closes; days without a sample repeat the previous close. */
export function dailyCloses(
  timestamps: readonly number[],
  nav: readonly DecimalInput[] | NavSeries,
): DailyCloses {
  const series = seriesOf(timestamps, nav);
  const first = Math.ceil((timestamps[0] as number) / DAY_MS) * DAY_MS;
  const last = Math.ceil((timestamps[timestamps.length - 1] as number) / DAY_MS) * DAY_MS;
  const times: number[] = [];
  const closes: Dec[] = [];
  let j = 0;
  for (let midnight = first; midnight <= last; midnight += DAY_MS) {
    while (j + 1 < timestamps.length && (timestamps[j + 1] as number) <= midnight) j++;
    times.push(midnight);
    closes.push(series.at(j));
  }
  return { times, closes };
}

/**
 * Returns between consecutive daily closes, close / previous - 1. A previous close of exactly zero
 * leaves that return undefined; it is skipped (the stop-out keeps NAV from resting at zero).
 */
export function dailyReturns(closes: readonly Dec[]): Dec[] {
  const returns: Dec[] = [];
  for (let i = 1; i < closes.length; i++) {
    const prev = closes[i - 1] as Dec;
    if (prev.isZero()) continue;
    returns.push((closes[i] as Dec).div(prev).minus(1));
  }
  return returns;
}

export interface RiskRatios {
  sharpe: { value: Dec } | { reason: MetricReason };
  sortino: { value: Dec } | { reason: MetricReason };
}

/** Decision 11: Sharpe (sample std, n - 1) and Sortino (downside deviation over all N returns). */
export function riskRatios(returns: readonly Dec[], tradingDaysPerYear: number): RiskRatios {
  const n = returns.length;
  if (n < 2)
    return {
      sharpe: { reason: 'insufficient_data_points' },
      sortino: { reason: 'insufficient_data_points' },
    };
  const mean = returns.reduce((acc, r) => acc.plus(r), new Dec(0)).div(n);
  const annualise = new Dec(tradingDaysPerYear).sqrt();
  const variance = returns.reduce((acc, r) => acc.plus(r.minus(mean).pow(2)), new Dec(0)).div(n - 1);
  const std = variance.sqrt();
  const sharpe = std.isZero()
    ? { reason: 'zero_standard_deviation' as const }
    : { value: mean.div(std).times(annualise) };
  const downsideSum = returns.reduce(
    (acc, r) => (r.isNegative() && !r.isZero() ? acc.plus(r.pow(2)) : acc),
    new Dec(0),
  );
  const sortino = downsideSum.isZero()
    ? { reason: 'no_negative_returns' as const }
    : { value: mean.div(downsideSum.div(n).sqrt()).times(annualise) };
  return { sharpe, sortino };
}

type OptionalKey =
  | 'sharpeRatio'
  | 'sortinoRatio'
  | 'annualizedReturnPct'
  | 'winRatePct'
  | 'profitFactor'
  | 'avgWin'
  | 'avgLoss'
  | 'largestWin'
  | 'largestLoss'
  | 'avgTradeDurationSeconds';

/** Sets `key` or, when omitted, `keyReason` (decision 17). */
function setOptional<K extends OptionalKey>(
  target: Metrics,
  key: K,
  result: { value: NonNullable<Metrics[K]> } | { reason: MetricReason },
): void {
  if ('value' in result) target[key] = result.value;
  else target[`${key}Reason`] = result.reason;
}

export function computeMetrics(input: MetricsInput): Metrics {
  const { timestamps, nav, trades } = input;
  checkSeries(timestamps, nav);
  if (!Number.isSafeInteger(input.startTime) || !Number.isSafeInteger(input.endTime)) {
    throw new RangeError('startTime and endTime must be integer epoch ms');
  }
  if (input.endTime <= input.startTime) throw new RangeError('endTime must be after startTime');

  // Decision 8: initial NAV is initialCapital; the final NAV is the last sample.
  const initial = new Dec(input.initialCapital);
  if (initial.lte(0)) throw new RangeError('initialCapital must be positive');
  const series = new NavSeries(nav, input.navValues);
  const finalNav = series.at(series.length - 1);
  const netPnl = finalNav.minus(initial);
  const totalReturn = netPnl.div(initial).times(100);

  // Commissions: every lot, entry fees of open lots included. The book's running totals when they are
  // those of the lots in any order, else read from the lots.
  const lots = input.lotTotals?.orderFree ? input.lotTotals : lotTotalsOf(trades);
  const totalCommission = lots.commissions.value;

  const { maxDrawdown, maxDurationMs } = drawdownStats(timestamps, series);
  const tradingDaysPerYear = input.allCrypto ? 365 : 252;
  const ratios = riskRatios(dailyReturns(dailyCloses(timestamps, series).closes), tradingDaysPerYear);

  // Decision 14: ((1 + totalReturn/100)^(365 / durationDays) - 1) x 100, durationDays fractional.
  // finalNav / initial is 1 + totalReturn/100 exactly. A final NAV at or below zero is a total loss:
  // -100 (a real power of a negative base is undefined). A result too large for a double (a very
  // short run with a large return) is omitted as insufficient data.
  const growth = finalNav.div(initial);
  let annualized: { value: number } | { reason: MetricReason };
  if (growth.lte(0)) {
    annualized = { value: -100 };
  } else {
    const exponent = new Dec(365).times(DAY_MS).div(input.endTime - input.startTime);
    const value = toNum(growth.pow(exponent).minus(1).times(100));
    annualized = Number.isFinite(value) ? { value } : { reason: 'insufficient_data_points' };
  }

  // Trades: closed lots are counted (decision 12); winners/losers on realized_pnl before fees.
  const { winners, losers, largestWin, largestLoss } = lots;
  const totalDurationMs = lots.totalDurationMs;
  const sumWin = lots.wins.value;
  const sumLoss = lots.losses.value;

  const metrics: Metrics = {
    totalReturn: toNum(totalReturn),
    maxDrawdownPct: toNum(maxDrawdown.times(100)),
    totalTrades: lots.closed,
    netPnl: toDecimalString(netPnl),
    grossPnl: toDecimalString(netPnl.plus(totalCommission)),
    maxDrawdownDurationDays: maxDurationMs / DAY_MS,
    winningTrades: winners,
    losingTrades: losers,
    totalCommission: toDecimalString(totalCommission),
  };
  setOptional(
    metrics,
    'sharpeRatio',
    'value' in ratios.sharpe ? { value: toNum(ratios.sharpe.value) } : ratios.sharpe,
  );
  setOptional(
    metrics,
    'sortinoRatio',
    'value' in ratios.sortino ? { value: toNum(ratios.sortino.value) } : ratios.sortino,
  );
  setOptional(metrics, 'annualizedReturnPct', annualized);

  const count = lots.closed;
  const noClosed = { reason: 'no_closed_trades' as const };
  const money = (value: Dec) => ({ value: toDecimalString(value) });
  setOptional(
    metrics,
    'winRatePct',
    count === 0 ? noClosed : { value: toNum(new Dec(winners).div(count).times(100)) },
  );
  setOptional(
    metrics,
    'profitFactor',
    count === 0
      ? noClosed
      : losers === 0
        ? { reason: 'no_losing_trades' }
        : { value: winners === 0 ? 0 : toNum(sumWin.div(sumLoss)) },
  );
  const noWinner = count === 0 ? noClosed : { reason: 'no_winning_trades' as const };
  const noLoser = count === 0 ? noClosed : { reason: 'no_losing_trades' as const };
  setOptional(metrics, 'avgWin', winners === 0 ? noWinner : money(sumWin.div(winners)));
  setOptional(metrics, 'avgLoss', losers === 0 ? noLoser : money(sumLoss.div(losers)));
  setOptional(metrics, 'largestWin', winners === 0 ? noWinner : { value: scaledText(largestWin) });
  setOptional(metrics, 'largestLoss', losers === 0 ? noLoser : { value: scaledText(largestLoss) });
  setOptional(
    metrics,
    'avgTradeDurationSeconds',
    count === 0 ? noClosed : { value: toNum(totalDurationMs.div(count).div(1000)) },
  );
  return orderMetrics(metrics);
}

/** The spec's table order, each reason right after its metric (presentation only). */
const METRIC_ORDER: readonly (keyof Metrics)[] = [
  'totalReturn',
  'maxDrawdownPct',
  'sharpeRatio',
  'sharpeRatioReason',
  'winRatePct',
  'winRatePctReason',
  'totalTrades',
  'netPnl',
  'grossPnl',
  'annualizedReturnPct',
  'annualizedReturnPctReason',
  'maxDrawdownDurationDays',
  'sortinoRatio',
  'sortinoRatioReason',
  'winningTrades',
  'losingTrades',
  'profitFactor',
  'profitFactorReason',
  'avgWin',
  'avgWinReason',
  'avgLoss',
  'avgLossReason',
  'largestWin',
  'largestWinReason',
  'largestLoss',
  'largestLossReason',
  'avgTradeDurationSeconds',
  'avgTradeDurationSecondsReason',
  'totalCommission',
];

function orderMetrics(metrics: Metrics): Metrics {
  const ordered: Record<string, unknown> = {};
  for (const key of METRIC_ORDER) if (metrics[key] !== undefined) ordered[key] = metrics[key];
  return ordered as unknown as Metrics;
}
