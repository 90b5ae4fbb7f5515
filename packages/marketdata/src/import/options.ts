import type { ProgressListener } from './sources.ts';

/** Column mapping of the generic CSV importer: header names, or 0-based field indices. */
export interface ColumnMapping {
  /** The timestamp (with `date`: the time of day). */
  time?: string | number;
  /** A separate date column; the row's time is then `date + ' ' + time`. */
  date?: string | number;
  open?: string | number;
  high?: string | number;
  low?: string | number;
  close?: string | number;
  volume?: string | number;
  bidOpen?: string | number;
  bidHigh?: string | number;
  bidLow?: string | number;
  bidClose?: string | number;
  askOpen?: string | number;
  askHigh?: string | number;
  askLow?: string | number;
  askClose?: string | number;
  bid?: string | number;
  ask?: string | number;
  bidVolume?: string | number;
  askVolume?: string | number;
}

export interface ImportOptions {
  /** Catalog symbol the batches are for (`F:EURUSD`). */
  symbol: string;
  /**
   * Time zone of wall-clock timestamps that carry no offset (generic CSV, native NinjaTrader):
   * `UTC` (default), a fixed offset `+02:00`, or an IANA zone. HistData is always EST = UTC-5.
   */
  tz?: string;
  /** Generic CSV: which column holds what (default: recognised header names). */
  columns?: ColumnMapping;
  /**
   * Generic CSV: `auto` (default), `iso`, `unix-s`, `unix-ms`, `unix-us`, `unix-ns`, or a pattern of
   * `YYYY MM DD HH mm ss SSS` and literal characters (`DD.MM.YYYY HH:mm:ss.SSS`).
   */
  timeFormat?: string;
  /** Generic CSV: field delimiter (default: sniffed from the first line). */
  delimiter?: string;
  /** Generic CSV: whether the first line is a header (default: detected). */
  header?: boolean;
  /** Generic CSV: whether bar timestamps mark the bar's start (default) or its end. */
  barTime?: 'start' | 'end';
  /** Dukascopy bar files: the side when the file name does not say BID or ASK. */
  side?: 'bid' | 'ask';
  /** Dukascopy bar files: keep zero-volume (filled, no ticks) bars instead of dropping them. */
  keepEmptyBars?: boolean;
  onProgress?: ProgressListener;
}
