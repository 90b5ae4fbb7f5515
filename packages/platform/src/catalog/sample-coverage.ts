import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decompress, init } from '@bokuweb/zstd-wasm';
import type { DataCoverage } from '@hindsight/core';

/**
 * How the first CSV column encodes a bar's time:
 * - `epoch-ms-open`: Binance `open_time`, Unix epoch milliseconds of the bar open (microseconds in Binance
 *   files from 2025 on; values of 16 digits are read as microseconds).
 * - `iso-open`: ISO-8601 UTC bar open (`time` in the forex files).
 * - `iso-end-1m`: ISO-8601 UTC bar END of a 1-minute bar (NinjaTrader `time_end`); the bar starts 60 s earlier.
 */
export type SampleTimeFormat = 'epoch-ms-open' | 'iso-open' | 'iso-end-1m';

export interface SampleMinuteFile {
  /** Path relative to the sample directory, zstd-compressed CSV with a header line. */
  path: string;
  /** Platform symbol the bars belong to. */
  symbol: string;
  /** Expected name of the first header column (guards against a format mix-up). */
  column: string;
  format: SampleTimeFormat;
}

/** The 1-minute sample files and the platform symbol each one feeds. Other files (1h, daily, factors) are not base data. */
export const SAMPLE_MINUTE_FILES: readonly SampleMinuteFile[] = [
  {
    path: 'crypto/binance_spot_BTCUSDT_1m_2024-01.csv.zst',
    symbol: 'C:BTCUSD',
    column: 'open_time',
    format: 'epoch-ms-open',
  },
  {
    path: 'crypto/binance_spot_BTCUSDT_1m_2024-02.csv.zst',
    symbol: 'C:BTCUSD',
    column: 'open_time',
    format: 'epoch-ms-open',
  },
  {
    path: 'crypto/binance_spot_BTCUSDT_1m_2024-03.csv.zst',
    symbol: 'C:BTCUSD',
    column: 'open_time',
    format: 'epoch-ms-open',
  },
  {
    path: 'forex/oanda_EURUSD_1m_bidask_2014-05-01_2014-05-15.csv.zst',
    symbol: 'F:EURUSD',
    column: 'time',
    format: 'iso-open',
  },
  {
    path: 'forex/fxcm_USDJPY_1m_bidask_2013-02.csv.zst',
    symbol: 'F:USDJPY',
    column: 'time',
    format: 'iso-open',
  },
  {
    path: 'equity/ninjatrader_SPY_1m_2011-03.csv.zst',
    symbol: 'S:SPY',
    column: 'time_end',
    format: 'iso-end-1m',
  },
];

const MINUTE_MS = 60_000;
/** Epoch values at or above this are microseconds (1e15 µs is 2001; 1e15 ms would be year 33658). */
const EPOCH_MICROS_THRESHOLD = 1e15;

let wasmReady: Promise<void> | undefined;

/**
 * Initialises the zstd wasm module once per process. Use this instead of calling `init()` from
 * `@bokuweb/zstd-wasm` directly: a second `init()` re-instantiates the module and breaks later decompression of
 * large inputs.
 */
export function ensureZstd(): Promise<void> {
  wasmReady ??= init();
  return wasmReady;
}

/**
 * Scans the bundled 1-minute sample files under `sampleDir` and returns, per platform symbol, the first and last
 * UTC day holding a bar (by bar start). Files missing from `sampleDir` are skipped; the result is sorted by symbol.
 */
export async function scanSampleCoverage(sampleDir: string): Promise<DataCoverage[]> {
  await ensureZstd();

  const ranges = new Map<string, { first: number; last: number }>();
  for (const file of SAMPLE_MINUTE_FILES) {
    let compressed: Buffer;
    try {
      compressed = await readFile(join(sampleDir, file.path));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    const text = new TextDecoder().decode(decompress(compressed));
    const range = barStartRange(text, file.column, file.format, file.path);
    if (!range) continue;
    const seen = ranges.get(file.symbol);
    if (!seen) ranges.set(file.symbol, range);
    else
      ranges.set(file.symbol, {
        first: Math.min(seen.first, range.first),
        last: Math.max(seen.last, range.last),
      });
  }

  return [...ranges.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([symbol, { first, last }]) => ({ symbol, firstDay: utcDay(first), lastDay: utcDay(last) }));
}

/**
 * Earliest and latest bar start (epoch ms) in a CSV whose first column is the bar time; `undefined` when the file
 * has no data rows. Only the first column is read. The sample files are sorted, so when every key has the same
 * width and keys never decrease (a string comparison, no date parsing) only the first and last rows are parsed;
 * otherwise every row is parsed and the minimum and maximum are taken.
 */
export function barStartRange(
  text: string,
  column: string,
  format: SampleTimeFormat,
  label = 'sample file',
): { first: number; last: number } | undefined {
  const keys: string[] = [];
  let pos = 0;
  let header = true;
  while (pos < text.length) {
    const newline = text.indexOf('\n', pos);
    const end = newline < 0 ? text.length : newline;
    const comma = text.indexOf(',', pos);
    let key = text.slice(pos, comma >= 0 && comma < end ? comma : end);
    if (key.endsWith('\r')) key = key.slice(0, -1);
    pos = end + 1;
    if (header) {
      header = false;
      if (key.replace(/^\uFEFF/, '') !== column) {
        throw new Error(`${label}: expected first column "${column}", found "${key}"`);
      }
      continue;
    }
    if (key !== '') keys.push(key);
  }
  const firstKey = keys[0];
  const lastKey = keys[keys.length - 1];
  if (firstKey === undefined || lastKey === undefined) return undefined;

  // Same-width keys compare like their times: epoch digits, or ISO timestamps all in UTC (`Z`).
  const needsZ = format !== 'epoch-ms-open';
  let sorted = !needsZ || firstKey.endsWith('Z');
  for (let i = 1; sorted && i < keys.length; i++) {
    const prev = keys[i - 1] as string;
    const cur = keys[i] as string;
    if (cur.length !== firstKey.length || cur < prev || (needsZ && !cur.endsWith('Z'))) {
      sorted = false;
      break;
    }
  }

  if (sorted) return { first: barStart(firstKey, format, label), last: barStart(lastKey, format, label) };
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const key of keys) {
    const start = barStart(key, format, label);
    if (start < first) first = start;
    if (start > last) last = start;
  }
  return { first, last };
}

function barStart(key: string, format: SampleTimeFormat, label: string): number {
  let ms: number;
  if (format === 'epoch-ms-open') {
    ms = /^\d+$/.test(key) ? Number(key) : Number.NaN;
    if (ms >= EPOCH_MICROS_THRESHOLD) ms = Math.floor(ms / 1000);
  } else {
    // Only explicit UTC timestamps are accepted: a zone-less ISO string would be read as local time.
    ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(key)
      ? Date.parse(key)
      : Number.NaN;
    if (format === 'iso-end-1m') ms -= MINUTE_MS;
  }
  if (!Number.isFinite(ms)) throw new Error(`${label}: unreadable bar time "${key}"`);
  return ms;
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
