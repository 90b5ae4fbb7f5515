/**
 * The common output of every importer: exact, validated, sorted, de-duplicated 1-minute bars of one
 * instrument (bid/ask or trade), the ticks they were built from where the source has ticks, and a
 * summary for the CLI.
 */
import type { BidAskBarBatch, QuoteTickBatch, TradeBarBatch } from '@hindsight/core';
import { formatUtc, MINUTE_MS } from './time.ts';

export interface ImportSummary {
  /** Data rows read (header and empty lines excluded), over all files. */
  rows: number;
  /** Bars in the result. */
  bars: number;
  /** Ticks in the result, where the source has ticks. */
  ticks?: number;
  /** Start of the first and last bar, epoch ms UTC. */
  first: number;
  last: number;
  /** Rows dropped because an identical row had the same time (bars) or was identical (ticks). */
  duplicates: number;
  /** Holes between consecutive bars (bar start to bar start more than one minute apart); kept as holes. */
  gaps: { count: number; largestMs: number };
  /** Rows earlier than the row before them in reading order (they were sorted). */
  outOfOrder: number;
}

/**
 * Which prices the bars hold. Trade bars (`kind: 'trade'`) are trades, or one side only when the
 * source has no other (HistData M1 bars are BID prices; a Dukascopy BID or ASK file on its own).
 */
export type PriceSide = 'bidask' | 'trade' | 'bid' | 'ask';

interface ImportResultBase {
  summary: ImportSummary;
  priceSide: PriceSide;
  /** The files (zip members as `archive.zip!member.csv`) the result was read from. */
  sources: string[];
  /** Things worth telling the user that did not stop the import (one side only, DST folds, ...). */
  warnings: string[];
}

export interface BidAskImportResult extends ImportResultBase {
  kind: 'bidask';
  bars: BidAskBarBatch;
  ticks?: QuoteTickBatch;
}

export interface TradeImportResult extends ImportResultBase {
  kind: 'trade';
  bars: TradeBarBatch;
  ticks?: undefined;
}

export type ImportResult = BidAskImportResult | TradeImportResult;

/** Holes between consecutive bar starts more than `stepMs` apart. */
export function findGaps(
  time: Float64Array,
  length: number,
  stepMs = MINUTE_MS,
): { count: number; largestMs: number } {
  let count = 0;
  let largestMs = 0;
  for (let i = 1; i < length; i++) {
    const step = (time[i] as number) - (time[i - 1] as number);
    if (step > stepMs) {
      count++;
      if (step - stepMs > largestMs) largestMs = step - stepMs;
    }
  }
  return { count, largestMs };
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

function duration(ms: number): string {
  const minutes = Math.round(ms / MINUTE_MS);
  if (minutes < 60) return `${minutes} min`;
  const hours = minutes / 60;
  if (hours < 48) return `${Number.isInteger(hours) ? hours : hours.toFixed(1)} h`;
  return `${(hours / 24).toFixed(1)} d`;
}

/** One-paragraph human summary: rows, range, gaps, duplicates. */
export function describeImport(result: ImportResult): string {
  const s = result.summary;
  const parts = [
    `${plural(s.rows, 'row')} -> ${plural(s.bars, `${result.priceSide === 'bidask' ? 'bid/ask' : result.priceSide} bar`)}`,
  ];
  if (s.ticks !== undefined) parts.push(`${plural(s.ticks, 'tick')} kept`);
  parts.push(`${formatUtc(s.first)} .. ${formatUtc(s.last)}`);
  parts.push(
    s.gaps.count === 0 ? 'no gaps' : `${plural(s.gaps.count, 'gap')} (largest ${duration(s.gaps.largestMs)})`,
  );
  parts.push(plural(s.duplicates, 'duplicate'));
  if (s.outOfOrder > 0) parts.push(`${plural(s.outOfOrder, 'row')} out of order (sorted)`);
  return parts.join(', ');
}
