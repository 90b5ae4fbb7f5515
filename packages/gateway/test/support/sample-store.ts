import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BarStore, openFileBarStore } from '@hindsight/marketdata';
import { importFiles } from '@hindsight/marketdata/import';

/** The real bundled samples (data/sample, see its README) in a file bar store under a temp data dir. */
export const SAMPLE_DIR = fileURLToPath(new URL('../../../../data/sample/', import.meta.url));

const SAMPLES = {
  'C:BTCUSD': { format: 'binance', files: ['crypto/binance_spot_BTCUSDT_1m_2024-01.csv.zst'] },
  'F:EURUSD': {
    format: 'forex-sample',
    files: ['forex/oanda_EURUSD_1m_bidask_2014-05-01_2014-05-15.csv.zst'],
  },
} as const;

export type SampleSymbol = keyof typeof SAMPLES;

export interface SampleData {
  dataDir: string;
  store: BarStore;
}

const cache = new Map<string, Promise<SampleData>>();

/** A data dir holding the given samples (imported once per test process). */
export function sampleData(symbols: readonly SampleSymbol[] = ['C:BTCUSD']): Promise<SampleData> {
  const key = [...symbols].sort().join(',');
  let pending = cache.get(key);
  if (!pending) {
    pending = (async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'hindsight-gateway-'));
      const store = openFileBarStore(dataDir);
      for (const symbol of symbols) {
        const sample = SAMPLES[symbol];
        const imported = await importFiles(
          sample.format,
          sample.files.map((f) => join(SAMPLE_DIR, f)),
          { symbol },
        );
        await store.writeBars(symbol, imported.bars);
      }
      return { dataDir, store };
    })();
    cache.set(key, pending);
  }
  return pending;
}
