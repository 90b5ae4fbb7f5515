import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureZstd, zstdDecompress } from '@hindsight/marketdata';
import { importFile } from '@hindsight/marketdata/import';

/**
 * CSV import throughput: the three bundled BTCUSDT months (131,040 rows) decompressed once to one plain
 * CSV and imported with the Binance importer (read, parse, validate, sort check, de-duplicate, batch),
 * then the forex sample layout on the two 1-minute bid/ask files. Decompression is not timed. Each
 * figure is the median of several runs after warm-up runs.
 */
const SAMPLES = join(dirname(fileURLToPath(import.meta.url)), '../data/sample');
const WARMUP = 3;
const RUNS = 7;

function decompress(relative: string): string {
  return new TextDecoder().decode(zstdDecompress(readFileSync(join(SAMPLES, relative))));
}

async function rowsPerSecond(run: () => Promise<number>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await run();
  const rates: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const rows = await run();
    rates.push(rows / ((performance.now() - start) / 1000));
  }
  rates.sort((a, b) => a - b);
  return rates[Math.floor(rates.length / 2)] as number;
}

export async function run(): Promise<void> {
  await ensureZstd();
  const dir = mkdtempSync(join(tmpdir(), 'hindsight-bench-import-'));
  try {
    const months = ['01', '02', '03'].map((m) =>
      decompress(`crypto/binance_spot_BTCUSDT_1m_2024-${m}.csv.zst`),
    );
    const btc = join(dir, 'btcusdt_1m_2024q1.csv');
    writeFileSync(
      btc,
      months.map((text, i) => (i === 0 ? text : text.slice(text.indexOf('\n') + 1))).join(''),
    );
    const forex = [
      'forex/fxcm_USDJPY_1m_bidask_2013-02.csv.zst',
      'forex/oanda_EURUSD_1m_bidask_2014-05-01_2014-05-15.csv.zst',
    ].map((relative, i) => {
      const path = join(dir, `forex_${i}.csv`);
      writeFileSync(path, decompress(relative));
      return path;
    });

    const btcRate = await rowsPerSecond(async () => {
      const result = await importFile('binance', btc, { symbol: 'C:BTCUSD' });
      if (result.summary.rows !== 131_040)
        throw new Error(`expected 131040 rows, got ${result.summary.rows}`);
      return result.summary.rows;
    });
    console.log(`BENCH marketdata_import_rows_per_second ${Math.round(btcRate)} rows/s`);

    const forexRate = await rowsPerSecond(async () => {
      let rows = 0;
      for (const path of forex)
        rows += (await importFile('forex-sample', path, { symbol: 'F:X' })).summary.rows;
      if (rows !== 28_761 + 15_366) throw new Error(`expected 44127 forex rows, got ${rows}`);
      return rows;
    });
    console.log(`BENCH marketdata_import_forex_rows_per_second ${Math.round(forexRate)} rows/s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
