import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BidAskBarBatch,
  decimalStringToTicks,
  significantDecimals,
  type TradeBarBatch,
} from '@hindsight/core';
import { ensureZstd, zstdDecompress } from '../src/zstd.ts';

/**
 * Test-only loader for the bundled 1-minute sample CSVs (the real importer lives elsewhere). Prices and volumes
 * are parsed exactly into ticks at the largest number of significant decimals found in the file.
 */
export const SAMPLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../data/sample');

export const BTC_FILES = [
  'crypto/binance_spot_BTCUSDT_1m_2024-01.csv.zst',
  'crypto/binance_spot_BTCUSDT_1m_2024-02.csv.zst',
  'crypto/binance_spot_BTCUSDT_1m_2024-03.csv.zst',
];
export const EURUSD_FILE = 'forex/oanda_EURUSD_1m_bidask_2014-05-01_2014-05-15.csv.zst';
export const USDJPY_FILE = 'forex/fxcm_USDJPY_1m_bidask_2013-02.csv.zst';

async function readRows(path: string): Promise<string[][]> {
  await ensureZstd();
  const text = new TextDecoder().decode(zstdDecompress(await readFile(join(SAMPLE_DIR, path))));
  const lines = text.split('\n');
  const rows: string[][] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '');
    if (line.length > 0) rows.push(line.split(','));
  }
  return rows;
}

function maxDecimals(rows: string[][], columns: number[]): number {
  let max = 0;
  for (const row of rows) for (const c of columns) max = Math.max(max, significantDecimals(row[c] ?? ''));
  return max;
}

function ticks(text: string | undefined, decimals: number): number {
  const value = decimalStringToTicks(text ?? '', decimals);
  if (value === undefined) throw new Error(`not a decimal at ${decimals} decimals: ${text}`);
  return value;
}

/** Binance BTCUSDT 1m klines (one or more monthly files, concatenated in order) as trade bars. */
export async function loadBtcTradeBars(symbol = 'C:BTCUSD', files = BTC_FILES): Promise<TradeBarBatch> {
  const rows: string[][] = [];
  for (const file of files) rows.push(...(await readRows(file)));
  const priceDecimals = maxDecimals(rows, [1, 2, 3, 4]);
  const volumeDecimals = maxDecimals(rows, [5]);
  const n = rows.length;
  const batch: TradeBarBatch = {
    symbol,
    priceDecimals,
    volumeDecimals,
    length: n,
    time: new Float64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    volume: new Float64Array(n),
  };
  rows.forEach((row, i) => {
    batch.time[i] = Number(row[0]);
    batch.open[i] = ticks(row[1], priceDecimals);
    batch.high[i] = ticks(row[2], priceDecimals);
    batch.low[i] = ticks(row[3], priceDecimals);
    batch.close[i] = ticks(row[4], priceDecimals);
    batch.volume[i] = ticks(row[5], volumeDecimals);
  });
  return batch;
}

/** A forex 1m bid/ask CSV (`time,bid_open,…,ask_close`, no volume) as bid/ask bars with zero volume. */
export async function loadForexBars(file: string, symbol: string): Promise<BidAskBarBatch> {
  const rows = await readRows(file);
  const priceDecimals = maxDecimals(rows, [1, 2, 3, 4, 5, 6, 7, 8]);
  const n = rows.length;
  const batch: BidAskBarBatch = {
    symbol,
    priceDecimals,
    volumeDecimals: 0,
    length: n,
    time: new Float64Array(n),
    bidOpen: new Float64Array(n),
    bidHigh: new Float64Array(n),
    bidLow: new Float64Array(n),
    bidClose: new Float64Array(n),
    askOpen: new Float64Array(n),
    askHigh: new Float64Array(n),
    askLow: new Float64Array(n),
    askClose: new Float64Array(n),
    volume: new Float64Array(n),
  };
  const columns = [
    batch.bidOpen,
    batch.bidHigh,
    batch.bidLow,
    batch.bidClose,
    batch.askOpen,
    batch.askHigh,
    batch.askLow,
    batch.askClose,
  ];
  rows.forEach((row, i) => {
    const time = Date.parse(row[0] ?? '');
    if (!Number.isFinite(time)) throw new Error(`${file}: bad time ${row[0]}`);
    batch.time[i] = time;
    columns.forEach((column, c) => {
      column[i] = ticks(row[c + 1], priceDecimals);
    });
  });
  return batch;
}
