/**
 * Adaptive sampling of the account curve into the timeseries result file (management-api.md,
 * "Timeseries file": four parallel arrays with a non-uniform step).
 *
 * The engine offers one point per base bar, in time order. The sampler keeps:
 *
 * Mandatory points (never capped):
 *  1. the run start, at `startTime` with units = nav = initialCapital and margin 0 (decision 8); the
 *     sampler writes it itself;
 *  2. every point the caller flags as a position or balance change, and every point whose balance
 *     differs from the previous offered point's (funding, fees: caught even when not flagged);
 *  3. every new NAV peak (nav above every earlier nav) and every point back at or above the peak after
 *     a drawdown (its recovery, decision 15), and the last point at the peak before NAV drops below it
 *     (where decision 15's duration starts);
 *  4. every new drawdown trough: a point below the peak and below every earlier point since the peak
 *     (decision 9). With 3, this makes maxDrawdownPct and maxDrawdownDurationDays recomputed from the
 *     file equal those of the full series (and so the served metrics);
 *  5. the last point at or before each UTC midnight (decision 10's daily closes, so Sharpe and Sortino
 *     recomputed from the file are equal too);
 *  6. the final point offered.
 *
 * Optional points (the cap): one point per grid step, the last one at or before each multiple of the
 * step (epoch-aligned, so steps nest in UTC days). The step is the smallest of GRID_STEPS_MS giving at
 * most `maxGridPoints` (default 2000) steps over [startTime, endTime], and one day when no step does.
 * So optional points number at most maxGridPoints + 1 per run whatever the run's length or base
 * timeframe: a 1-day 1m run keeps every bar (1440), a 30-day run one point per 30 minutes, and a 10-year
 * 1m run (5.3 million bars) has a one-day grid that coincides with the daily closes: about 3650 points
 * plus its peaks, troughs and balance changes.
 *
 * Points in between are dropped. Decimal inputs are canonicalised (decision 37).
 */
import { Dec, toDecimalString } from '@hindsight/core';
import type { DecimalInput } from './trade-lot.ts';

export const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** Candidate grid steps; each divides a day. */
export const GRID_STEPS_MS: readonly number[] = [
  MINUTE_MS,
  2 * MINUTE_MS,
  5 * MINUTE_MS,
  10 * MINUTE_MS,
  15 * MINUTE_MS,
  30 * MINUTE_MS,
  HOUR_MS,
  2 * HOUR_MS,
  3 * HOUR_MS,
  4 * HOUR_MS,
  6 * HOUR_MS,
  8 * HOUR_MS,
  12 * HOUR_MS,
  DAY_MS,
];

export const DEFAULT_MAX_GRID_POINTS = 2000;

/** The timeseries file: four index-aligned arrays. `units` is the account balance. */
export interface TimeseriesFile {
  timestamps: number[];
  units: string[];
  nav: string[];
  margin_used: string[];
}

export interface SamplePoint {
  /** Epoch ms, strictly after the previous point (and after startTime). */
  time: number;
  /** Account balance (excludes unrealized P&L). */
  balance: DecimalInput;
  nav: DecimalInput;
  marginUsed: DecimalInput;
  /** The position or balance changed at this point (fill, funding, liquidation...). */
  changed?: boolean;
}

export interface TimeseriesSamplerOptions {
  startTime: number;
  endTime: number;
  initialCapital: DecimalInput;
  /** Optional-point budget; see the module comment. */
  maxGridPoints?: number;
}

/** The grid step used for a run window: the smallest candidate giving at most maxGridPoints steps. */
export function gridStepFor(
  startTime: number,
  endTime: number,
  maxGridPoints = DEFAULT_MAX_GRID_POINTS,
): number {
  const span = Math.max(0, endTime - startTime);
  for (const step of GRID_STEPS_MS) {
    if (Math.ceil(span / step) <= maxGridPoints) return step;
  }
  return DAY_MS;
}

interface Held {
  time: number;
  balance: Dec;
  units: string;
  nav: string;
  marginUsed: string;
  keep: boolean;
}

/** True when some multiple of `step` lies in [a, b): the point at `a` is the last one at or before it. */
function crossesBoundary(a: number, b: number, step: number): boolean {
  return Math.ceil(a / step) * step < b;
}

export class TimeseriesSampler {
  readonly gridStepMs: number;
  private readonly out: TimeseriesFile = { timestamps: [], units: [], nav: [], margin_used: [] };
  /** The last offered point, not yet written: whether it is kept depends on the next one. */
  private held: Held;
  private peak: Dec;
  private inDrawdown = false;
  private trough: Dec;
  private finished = false;

  constructor(options: TimeseriesSamplerOptions) {
    if (!Number.isSafeInteger(options.startTime) || !Number.isSafeInteger(options.endTime)) {
      throw new RangeError('startTime and endTime must be integer epoch ms');
    }
    const maxGridPoints = options.maxGridPoints ?? DEFAULT_MAX_GRID_POINTS;
    if (!Number.isSafeInteger(maxGridPoints) || maxGridPoints < 1) {
      throw new RangeError('maxGridPoints must be a positive integer');
    }
    this.gridStepMs = gridStepFor(options.startTime, options.endTime, maxGridPoints);
    const capital = new Dec(options.initialCapital);
    const capitalString = toDecimalString(capital);
    this.held = {
      time: options.startTime,
      balance: capital,
      units: capitalString,
      nav: capitalString,
      marginUsed: '0',
      keep: true, // decision 8
    };
    this.peak = capital;
    this.trough = capital;
  }

  offer(point: SamplePoint): void {
    if (this.finished) throw new Error('the sampler is finished');
    const prev = this.held;
    if (!Number.isSafeInteger(point.time) || point.time <= prev.time) {
      throw new RangeError(
        `sample times must be integers and strictly increasing (${point.time} after ${prev.time})`,
      );
    }
    const balance = new Dec(point.balance);
    const nav = new Dec(point.nav);
    const next: Held = {
      time: point.time,
      balance,
      units: toDecimalString(balance),
      nav: toDecimalString(nav),
      marginUsed: toDecimalString(point.marginUsed),
      keep: point.changed === true || !balance.eq(prev.balance),
    };

    // Daily closes and grid points: the previous point is the last one at or before a boundary.
    if (
      crossesBoundary(prev.time, next.time, DAY_MS) ||
      crossesBoundary(prev.time, next.time, this.gridStepMs)
    ) {
      prev.keep = true;
    }

    if (nav.gte(this.peak)) {
      // New peak, or back at the peak: a recovery ends the drawdown (decision 15's end point).
      if (nav.gt(this.peak) || this.inDrawdown) next.keep = true;
      this.inDrawdown = false;
      this.peak = nav;
    } else if (!this.inDrawdown) {
      // First point below the peak: the previous point is the last one at the peak (duration start)
      // and this one is the drawdown's first trough.
      prev.keep = true;
      next.keep = true;
      this.inDrawdown = true;
      this.trough = nav;
    } else if (nav.lt(this.trough)) {
      next.keep = true;
      this.trough = nav;
    }

    if (prev.keep) this.write(prev);
    this.held = next;
  }

  /** Writes the final point and returns the file. The sampler accepts no more points afterwards. */
  finish(): TimeseriesFile {
    if (!this.finished) {
      this.finished = true;
      this.write(this.held);
    }
    return this.out;
  }

  private write(point: Held): void {
    this.out.timestamps.push(point.time);
    this.out.units.push(point.units);
    this.out.nav.push(point.nav);
    this.out.margin_used.push(point.marginUsed);
  }
}

/** Samples a whole series at once (the run-start point is added by the sampler). */
export function sampleTimeseries(
  options: TimeseriesSamplerOptions,
  points: Iterable<SamplePoint>,
): TimeseriesFile {
  const sampler = new TimeseriesSampler(options);
  for (const point of points) sampler.offer(point);
  return sampler.finish();
}
