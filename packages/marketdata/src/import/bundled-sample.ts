import { join } from 'node:path';
import type { BidAskBarBatch, TradeBarBatch } from '@hindsight/core';
import type { BarStore } from '../bar-store.ts';
import { type ImportFormat, importFiles } from './import-files.ts';
import type { ImportResult } from './import-result.ts';
import { repositoryDir } from './repository-dir.ts';

/** The repository's `data/sample/` folder. */
export const BUNDLED_SAMPLE_DIR = join(repositoryDir(), 'data', 'sample');

/**
 * The real sample data shipped in data/sample/ (provenance in its README), imported into an empty
 * market store at first start. Only 1-minute files feed the base series; the hourly EURUSD and daily
 * SPY files are kept for comparisons and tests.
 */
export const BUNDLED_SAMPLE: readonly { symbol: string; format: ImportFormat; files: readonly string[] }[] = [
  {
    symbol: 'C:BTCUSD',
    format: 'binance',
    files: [
      'crypto/binance_spot_BTCUSDT_1m_2024-01.csv.zst',
      'crypto/binance_spot_BTCUSDT_1m_2024-02.csv.zst',
      'crypto/binance_spot_BTCUSDT_1m_2024-03.csv.zst',
    ],
  },
  {
    symbol: 'F:EURUSD',
    format: 'forex-sample',
    files: ['forex/oanda_EURUSD_1m_bidask_2014-05-01_2014-05-15.csv.zst'],
  },
  { symbol: 'F:USDJPY', format: 'forex-sample', files: ['forex/fxcm_USDJPY_1m_bidask_2013-02.csv.zst'] },
  { symbol: 'S:SPY', format: 'ninjatrader', files: ['equity/ninjatrader_SPY_1m_2011-03.csv.zst'] },
];

/** One bundled instrument's files, imported as `importBundledSample` stores them. */
export async function importBundledInstrument(
  symbol: string,
  sampleDir = BUNDLED_SAMPLE_DIR,
): Promise<ImportResult> {
  const sample = BUNDLED_SAMPLE.find((s) => s.symbol === symbol);
  if (sample === undefined) throw new Error(`${symbol} is not in the bundled sample`);
  return importFiles(
    sample.format,
    sample.files.map((file) => join(sampleDir, file)),
    { symbol },
  );
}

/** The bundled trade bars of `symbol` (C:BTCUSD, S:SPY). */
export async function bundledTradeBars(symbol: string): Promise<TradeBarBatch> {
  const result = await importBundledInstrument(symbol);
  if (result.kind !== 'trade') throw new Error(`${symbol} has bid/ask bars in the bundled sample`);
  return result.bars;
}

/** The bundled bid/ask bars of `symbol` (F:EURUSD, F:USDJPY). */
export async function bundledBidAskBars(symbol: string): Promise<BidAskBarBatch> {
  const result = await importBundledInstrument(symbol);
  if (result.kind !== 'bidask') throw new Error(`${symbol} has trade bars in the bundled sample`);
  return result.bars;
}

export async function importBundledSample(store: BarStore, sampleDir: string): Promise<void> {
  for (const sample of BUNDLED_SAMPLE) {
    const result = await importBundledInstrument(sample.symbol, sampleDir);
    await store.writeBars(sample.symbol, result.bars);
    if (result.kind === 'bidask' && result.ticks) await store.writeTicks(sample.symbol, result.ticks);
  }
}
