/**
 * The three result files of a completed scenario (management-api.md "Result files"): metadata,
 * timeseries and trades, as plain objects, and their deterministic encoding.
 *
 * Encoding: UTF-8 JSON with object keys sorted (by UTF-16 code units, the order of JS `sort`) at every
 * level, no whitespace, numbers in JS shortest round-trip form. Identical inputs give identical bytes
 * whatever order their keys were built in. No compression here: the engine is pure, compression
 * belongs to the storage edge.
 */
import { Dec, toDecimalString } from '@hindsight/core';
import type { LotTotals } from '../positions/lot-totals.ts';
import type { DecimalInput, TradeLot } from '../positions/trade-lot.ts';
import { computeMetrics, type Metrics } from './metrics.ts';
import type { TimeseriesFile } from './timeseries-sampler.ts';

export const RESULT_FORMAT_VERSION = 1;

/** Trades file: every lot, sorted by id (plain string order = creation order, decision 7). */
export interface TradesFile {
  trades: TradeLot[];
}

/**
 * Metadata file: a small, scenario-independent summary of headline figures. Money is decimal
 * strings in USD, times epoch ms, percentages numbers in percent units.
 */
export interface ResultMetadata {
  /** Layout version of the result files (this module's RESULT_FORMAT_VERSION). */
  formatVersion: number;
  /** The engine build that produced the run. */
  engineVersion: string;
  /** Account currency (decision 1). */
  currency: 'USD';
  /** Run window: inclusive start, exclusive end. */
  startTime: number;
  endTime: number;
  initialCapital: string;
  /** Last timeseries sample: balance (excludes unrealized P&L), NAV and margin used at the end. */
  finalBalance: string;
  finalNav: string;
  finalMarginUsed: string;
  netPnl: string;
  totalReturn: number;
  maxDrawdownPct: number;
  totalCommission: string;
  /** Closed lots (the metrics' totalTrades). */
  totalTrades: number;
  /** Lots still open at the end of the run (no close-side fields in the trades file). */
  openTrades: number;
  /** 365 when every subscribed instrument is crypto, else 252 (decision 10). */
  tradingDaysPerYear: 252 | 365;
  /** Length of the timeseries arrays. */
  timeseriesPoints: number;
}

export interface MetadataInput {
  engineVersion: string;
  startTime: number;
  endTime: number;
  initialCapital: DecimalInput;
  allCrypto: boolean;
  timeseries: TimeseriesFile;
  trades: readonly TradeLot[];
  metrics: Metrics;
}

export function buildMetadata(input: MetadataInput): ResultMetadata {
  const { timeseries, metrics } = input;
  const last = timeseries.timestamps.length - 1;
  if (last < 0) throw new RangeError('the timeseries needs at least the run-start sample');
  return {
    formatVersion: RESULT_FORMAT_VERSION,
    engineVersion: input.engineVersion,
    currency: 'USD',
    startTime: input.startTime,
    endTime: input.endTime,
    initialCapital: toDecimalString(new Dec(input.initialCapital)),
    finalBalance: timeseries.units[last] as string,
    finalNav: timeseries.nav[last] as string,
    finalMarginUsed: timeseries.margin_used[last] as string,
    netPnl: metrics.netPnl,
    totalReturn: metrics.totalReturn,
    maxDrawdownPct: metrics.maxDrawdownPct,
    totalCommission: metrics.totalCommission,
    totalTrades: metrics.totalTrades,
    openTrades: input.trades.filter((lot) => lot.state === 'Open').length,
    tradingDaysPerYear: input.allCrypto ? 365 : 252,
    timeseriesPoints: timeseries.timestamps.length,
  };
}

/** The trades file: lots sorted by id as plain strings; duplicate ids are an error. */
export function buildTradesFile(trades: readonly TradeLot[]): TradesFile {
  const sorted = [...trades].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    if ((sorted[i] as TradeLot).id === (sorted[i - 1] as TradeLot).id) {
      throw new RangeError(`duplicate trade id ${(sorted[i] as TradeLot).id}`);
    }
  }
  return { trades: sorted };
}

/** Checks the four arrays are index-aligned; returns the file unchanged. */
export function buildTimeseriesFile(timeseries: TimeseriesFile): TimeseriesFile {
  const n = timeseries.timestamps.length;
  if (timeseries.units.length !== n || timeseries.nav.length !== n || timeseries.margin_used.length !== n) {
    throw new RangeError('timeseries arrays must be index-aligned');
  }
  return timeseries;
}

export interface ResultFiles {
  metadata: ResultMetadata;
  timeseries: TimeseriesFile;
  trades: TradesFile;
}

export interface RunResultInput {
  engineVersion: string;
  startTime: number;
  endTime: number;
  initialCapital: DecimalInput;
  allCrypto: boolean;
  /** The sampler's output. */
  timeseries: TimeseriesFile;
  /**
   * The timeseries NAVs as decimals (the sampler keeps them), so the metrics need not parse the file's
   * strings back; they are the same values.
   */
  navValues?: readonly (Dec | undefined)[];
  /** Every lot, open and closed, in any order. */
  trades: readonly TradeLot[];
  /** The lots' totals as the position book kept them (see `computeMetrics`). */
  lotTotals?: LotTotals;
}

/** Metrics (computed from the sampled timeseries, as the file holds it) and the three files. */
export function buildResultFiles(input: RunResultInput): ResultFiles & { metrics: Metrics } {
  const timeseries = buildTimeseriesFile(input.timeseries);
  const trades = buildTradesFile(input.trades);
  const metrics = computeMetrics({
    timestamps: timeseries.timestamps,
    nav: timeseries.nav,
    ...(input.navValues && { navValues: input.navValues }),
    trades: trades.trades,
    ...(input.lotTotals && { lotTotals: input.lotTotals }),
    initialCapital: input.initialCapital,
    startTime: input.startTime,
    endTime: input.endTime,
    allCrypto: input.allCrypto,
  });
  const metadata = buildMetadata({ ...input, timeseries, trades: trades.trades, metrics });
  return { metadata, timeseries, trades, metrics };
}

export interface EncodedResultFiles {
  metadata: Uint8Array;
  timeseries: Uint8Array;
  trades: Uint8Array;
}

/** Strings and finite numbers: written by `JSON.stringify` exactly as here, without a path. */
const isLeaf = (value: unknown): boolean =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

/** Indexed, so that a hole reads as undefined (refused) rather than being skipped as `every` does. */
function allLeaves(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (!isLeaf(values[i])) return false;
  return true;
}

const leafText = (value: unknown): string | undefined => (isLeaf(value) ? JSON.stringify(value) : undefined);

/**
 * `path` names the value in errors; it is built only for containers and refused values, since a
 * timeseries holds hundreds of thousands of leaves.
 */
function canonicalValue(value: unknown, path: () => string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new RangeError(`${path()}: ${value} is not representable in JSON`);
      return JSON.stringify(value); // -0 is written 0
    case 'object': {
      if (Array.isArray(value)) {
        // The timeseries' long arrays of numbers and decimal strings: one native call.
        if (allLeaves(value)) return JSON.stringify(value);
        const items = new Array<string>(value.length);
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          items[i] = leafText(item) ?? canonicalValue(item, () => `${path()}[${i}]`);
        }
        return `[${items.join(',')}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null)
        throw new TypeError(`${path()}: only plain objects are allowed`);
      const record = value as Record<string, unknown>;
      const parts: string[] = [];
      for (const key of Object.keys(record).sort()) {
        const item = record[key];
        if (item === undefined) continue; // absent, as JSON.stringify does
        parts.push(
          `${JSON.stringify(key)}:${leafText(item) ?? canonicalValue(item, () => `${path()}.${key}`)}`,
        );
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new TypeError(`${path()}: ${typeof value} is not representable in JSON`);
  }
}

/** Deterministic JSON text: sorted keys, no whitespace; rejects non-finite numbers and non-JSON values. */
export function canonicalJson(value: unknown): string {
  return canonicalValue(value, () => '$');
}

const utf8 = new TextEncoder();

/** UTF-8 bytes of `canonicalJson(value)`: byte-identical for identical input. */
export function encodeResultFile(value: unknown): Uint8Array {
  return utf8.encode(canonicalJson(value));
}

export function encodeResultFiles(files: ResultFiles): EncodedResultFiles {
  return {
    metadata: encodeResultFile(files.metadata),
    timeseries: encodeResultFile(buildTimeseriesFile(files.timeseries)),
    trades: encodeResultFile(files.trades),
  };
}
