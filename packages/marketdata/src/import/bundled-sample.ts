import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BarStore } from '../bar-store.ts';
import { type ImportFormat, importFiles } from './index.ts';

/** The repository's `data/sample/` folder. */
export const BUNDLED_SAMPLE_DIR = fileURLToPath(new URL('../../../../data/sample/', import.meta.url));

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

export async function importBundledSample(store: BarStore, sampleDir: string): Promise<void> {
  for (const sample of BUNDLED_SAMPLE) {
    const result = await importFiles(
      sample.format,
      sample.files.map((file) => join(sampleDir, file)),
      { symbol: sample.symbol },
    );
    await store.writeBars(sample.symbol, result.bars);
    if (result.kind === 'bidask' && result.ticks) await store.writeTicks(sample.symbol, result.ticks);
  }
}
