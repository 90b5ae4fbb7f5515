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
import type { DecimalInput } from '../positions/trade-lot.ts';

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

/** The exact values of a sample point. */
export interface ExactSample {
  balance: DecimalInput;
  nav: DecimalInput;
  marginUsed: DecimalInput;
  /**
   * The three are canonical decimal strings already (the engine's scaled valuation writes them): they
   * are used as they are, and NAV is parsed only if a comparison needs its decimal.
   */
  canonical?: boolean;
}

/**
 * Where an offered point's exact values come from, asked only if the point is kept (or near a tie). The
 * sampler hands a dropped point's source back (`releasedSource`) so the caller can refill it for the
 * next point instead of allocating one per bar.
 */
export interface SampleSource {
  sample(): ExactSample;
}

interface Values {
  /** Decimals of the texts when at hand (else made on demand from them). */
  balance: Dec | undefined;
  units: string;
  nav: Dec | undefined;
  navText: string;
  marginUsed: string;
}

interface Held {
  time: number;
  navApprox: number;
  balanceVersion: number;
  exact: SampleSource | undefined;
  values: Values | undefined;
  nav: Dec | undefined;
  keep: boolean;
}

/**
 * Whether some multiple of `step` lies in [a, b): then the point at `a` is the last one at or before it.
 * The first multiple at or after `a` is kept from one offered point to the next (it changes once a
 * step, where `Math.ceil(a / step) * step` was two divisions per bar). For safe-integer times the
 * division is exact enough that the kept multiple is the one it would give.
 */
class StepBoundary {
  private next = Number.NaN;

  constructor(private readonly step: number) {}

  crossedBetween(a: number, b: number): boolean {
    if (!(a <= this.next && a > this.next - this.step)) this.next = Math.ceil(a / this.step) * this.step;
    return this.next < b;
  }
}

function valuesOf(sample: ExactSample): Values {
  if (sample.canonical) {
    return {
      balance: typeof sample.balance === 'string' ? undefined : sample.balance,
      units: sample.balance as string,
      nav: typeof sample.nav === 'string' ? undefined : sample.nav,
      navText: sample.nav as string,
      marginUsed: sample.marginUsed as string,
    };
  }
  const balance = new Dec(sample.balance);
  const nav = new Dec(sample.nav);
  return {
    balance,
    units: toDecimalString(balance),
    nav,
    navText: toDecimalString(nav),
    marginUsed: toDecimalString(sample.marginUsed),
  };
}

function navOfValues(values: Values): Dec {
  values.nav ??= new Dec(values.navText);
  return values.nav;
}

function balanceOf(values: Values): Dec {
  values.balance ??= new Dec(values.units);
  return values.balance;
}

/** Relative tolerance under which two float NAVs are compared exactly instead. */
const TIE_TOLERANCE = 1e-9;

export class TimeseriesSampler {
  readonly gridStepMs: number;
  private readonly out: TimeseriesFile = { timestamps: [], units: [], nav: [], margin_used: [] };
  /** The written points' NAVs as decimals when made, index-aligned with `out.nav` (the metrics read them). */
  private readonly navDecimals: (Dec | undefined)[] = [];
  /** The last offered point, not yet written: whether it is kept depends on the next one. */
  private held: Held;
  /** The points at the NAV peak and at the current drawdown's trough (always kept points). */
  private peak: Held;
  private inDrawdown = false;
  private trough: Held;
  private finished = false;
  /** A dropped point's object, reused for the next one. */
  private spare: Held | undefined;
  private readonly dayBoundary = new StepBoundary(DAY_MS);
  private readonly gridBoundary: StepBoundary;

  constructor(options: TimeseriesSamplerOptions) {
    if (!Number.isSafeInteger(options.startTime) || !Number.isSafeInteger(options.endTime)) {
      throw new RangeError('startTime and endTime must be integer epoch ms');
    }
    const maxGridPoints = options.maxGridPoints ?? DEFAULT_MAX_GRID_POINTS;
    if (!Number.isSafeInteger(maxGridPoints) || maxGridPoints < 1) {
      throw new RangeError('maxGridPoints must be a positive integer');
    }
    this.gridStepMs = gridStepFor(options.startTime, options.endTime, maxGridPoints);
    this.gridBoundary = new StepBoundary(this.gridStepMs);
    const capital = new Dec(options.initialCapital);
    this.held = {
      time: options.startTime,
      navApprox: capital.toNumber(),
      balanceVersion: 0,
      exact: undefined,
      values: valuesOf({ balance: capital, nav: capital, marginUsed: '0' }),
      nav: capital,
      keep: true, // decision 8
    };
    this.peak = this.held;
    this.trough = this.held;
  }

  /** Offers a point with its exact values (tests and small series). */
  offer(point: SamplePoint): void {
    const values = valuesOf(point);
    const prev = this.held;
    const sameBalance = prev.values !== undefined && balanceOf(prev.values).eq(balanceOf(values));
    this.offerPoint({
      time: point.time,
      navApprox: navOfValues(values).toNumber(),
      balanceVersion: sameBalance ? prev.balanceVersion : prev.balanceVersion + 1,
      exact: undefined,
      values,
      nav: navOfValues(values),
      keep: point.changed === true,
    });
  }

  /**
   * Offers a point without its exact values (the engine's per-bar path, arguments rather than an
   * object so it allocates nothing): `navApprox` (a float) decides which points are kept; `exact` is
   * asked only for kept points (and near ties), possibly much later, so it must compute from values
   * captured when the point was offered, and must not change until the sampler releases it.
   * `balanceVersion` changes whenever the balance changes (a point with a new balance is always
   * kept); `changed` flags a position or balance change; `nav` is the exact NAV when it is at hand
   * without computing (a flat account: the balance).
   */
  offerLazy(
    time: number,
    navApprox: number,
    balanceVersion: number,
    changed: boolean,
    exact: SampleSource,
    nav?: Dec,
  ): void {
    // The held point is garbage unless it is written: recycle it for the next one.
    const recycled = this.spare;
    this.spare = undefined;
    const next: Held = recycled ?? {
      time,
      navApprox,
      balanceVersion,
      exact,
      values: undefined,
      nav,
      keep: changed,
    };
    if (recycled) {
      recycled.time = time;
      recycled.navApprox = navApprox;
      recycled.balanceVersion = balanceVersion;
      recycled.exact = exact;
      recycled.values = undefined;
      recycled.nav = nav;
      recycled.keep = changed;
    }
    this.offerPoint(next);
  }

  /**
   * The source of the last dropped point, which nothing references any more: the caller may refill it
   * for its next `offerLazy` (only a source it made itself, for that one point). Undefined when no
   * dropped point awaits reuse or its values were already taken.
   */
  releasedSource(): SampleSource | undefined {
    return this.spare?.exact;
  }

  private offerPoint(next: Held): void {
    if (this.finished) throw new Error('the sampler is finished');
    const prev = this.held;
    if (!Number.isSafeInteger(next.time) || next.time <= prev.time) {
      throw new RangeError(
        `sample times must be integers and strictly increasing (${next.time} after ${prev.time})`,
      );
    }
    if (next.balanceVersion !== prev.balanceVersion) next.keep = true;

    // Daily closes and grid points: the previous point is the last one at or before a boundary.
    if (
      this.dayBoundary.crossedBetween(prev.time, next.time) ||
      this.gridBoundary.crossedBetween(prev.time, next.time)
    ) {
      prev.keep = true;
    }

    const vsPeak = this.compare(next, this.peak);
    if (vsPeak >= 0) {
      // New peak, or back at the peak: a recovery ends the drawdown (decision 15's end point).
      if (vsPeak > 0 || this.inDrawdown) {
        next.keep = true;
        this.peak = next;
      }
      this.inDrawdown = false;
    } else if (!this.inDrawdown) {
      // First point below the peak: the previous point is the last one at the peak (duration start)
      // and this one is the drawdown's first trough.
      prev.keep = true;
      next.keep = true;
      this.inDrawdown = true;
      this.trough = next;
    } else if (this.compare(next, this.trough) < 0) {
      next.keep = true;
      this.trough = next;
    }

    if (prev.keep) this.write(prev);
    else if (prev !== this.peak && prev !== this.trough) this.spare = prev;
    this.held = next;
  }

  /**
   * Compares two points' NAVs: by their floats when they clearly differ, exactly otherwise. A flat
   * account offers the same balance object bar after bar: after one exact tie the two points share it,
   * so the next ties are decided by identity.
   */
  private compare(a: Held, b: Held): number {
    const difference = a.navApprox - b.navApprox;
    const tolerance = TIE_TOLERANCE * Math.max(1, Math.abs(a.navApprox), Math.abs(b.navApprox));
    if (difference > tolerance) return 1;
    if (difference < -tolerance) return -1;
    const navA = this.navOf(a);
    const navB = this.navOf(b);
    if (navA === navB) return 0;
    const order = navA.comparedTo(navB);
    // Equal values: either object will do for the later comparisons (decimals are immutable).
    if (order === 0) b.nav = navA;
    return order;
  }

  private navOf(point: Held): Dec {
    point.nav ??= navOfValues(this.valuesOfPoint(point));
    return point.nav;
  }

  private valuesOfPoint(point: Held): Values {
    if (!point.values) {
      point.values = valuesOf((point.exact as SampleSource).sample());
      point.exact = undefined;
    }
    return point.values;
  }

  /** Writes the final point and returns the file. The sampler accepts no more points afterwards. */
  finish(): TimeseriesFile {
    if (!this.finished) {
      this.finished = true;
      this.write(this.held);
    }
    return this.out;
  }

  /**
   * The NAVs of the points written so far as decimals where the sampler made them (undefined where it
   * kept only the text), index-aligned with the file's `nav`.
   */
  navValues(): readonly (Dec | undefined)[] {
    return this.navDecimals;
  }

  private write(point: Held): void {
    const values = this.valuesOfPoint(point);
    this.navDecimals.push(values.nav);
    this.out.timestamps.push(point.time);
    this.out.units.push(values.units);
    this.out.nav.push(values.navText);
    this.out.margin_used.push(values.marginUsed);
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
