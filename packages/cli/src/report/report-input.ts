/**
 * What the HTML report is made from: a run's result files with their metrics, and optionally the
 * candles each instrument traded on and the strategy's parameters.
 */
import type { Metrics, ResultFiles } from '@hindsight/engine';

/** One bar of an instrument's price chart; prices are decimal strings as the data stores them. */
export interface ReportBar {
  /** Bar start, epoch ms. */
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
}

export interface ReportCandles {
  symbol: string;
  timeframe: string;
  /** In time order. */
  bars: ReportBar[];
}

export type ReportParams = Record<string, string | number | boolean>;

export interface ReportInput {
  /** Shown as the page title and heading (escaped: any text is safe). */
  title: string;
  files: ResultFiles & { metrics: Metrics };
  /** Candlesticks per instrument; without them an instrument's chart is a line through its fills. */
  candles?: ReportCandles[];
  /** The strategy parameters of the run, shown in the header. */
  params?: ReportParams;
}
