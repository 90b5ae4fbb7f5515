import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { compress } from '@bokuweb/zstd-wasm';
import { instrumentSeed } from '../src/catalog/instrument-seed.ts';
import {
  barStartRange,
  ensureZstd,
  SAMPLE_MINUTE_FILES,
  scanSampleCoverage,
} from '../src/catalog/sample-coverage.ts';

const sampleDir = fileURLToPath(new URL('../../../data/sample/', import.meta.url));

/**
 * Computed independently from the uncompressed CSVs in the shared data set (every row parsed, bar start = open
 * time, or time_end - 1 minute for NinjaTrader).
 */
const EXPECTED = [
  { symbol: 'C:BTCUSD', firstDay: '2024-01-01', lastDay: '2024-03-31' },
  { symbol: 'F:EURUSD', firstDay: '2014-05-01', lastDay: '2014-05-15' },
  { symbol: 'F:USDJPY', firstDay: '2013-02-01', lastDay: '2013-03-01' },
  // First bar ends 2011-03-01T09:01Z (starts 09:00), last ends 2011-03-31T23:59Z.
  { symbol: 'S:SPY', firstDay: '2011-03-01', lastDay: '2011-03-31' },
];

describe('scanSampleCoverage on the bundled sample data', () => {
  test('returns the exact coverage of the four symbols with data, quickly', async () => {
    const started = performance.now();
    const coverage = await scanSampleCoverage(sampleDir);
    const elapsed = performance.now() - started;
    assert.deepEqual(coverage, EXPECTED);
    assert.ok(elapsed < 2000, `scan took ${elapsed.toFixed(0)} ms`);
  });

  test('every seed instrument with data has coverage; coming-soon ones have none', async () => {
    const coverage = await scanSampleCoverage(sampleDir);
    const covered = new Set(coverage.map((c) => c.symbol));
    const seedSymbols = new Set(instrumentSeed.map((i) => i.symbol));
    const withData = new Set(SAMPLE_MINUTE_FILES.map((f) => f.symbol));

    assert.deepEqual([...withData].sort(), ['C:BTCUSD', 'F:EURUSD', 'F:USDJPY', 'S:SPY']);
    for (const symbol of withData) {
      assert.ok(seedSymbols.has(symbol), `${symbol} is in the seed`);
      assert.ok(covered.has(symbol), `${symbol} has coverage`);
    }
    const comingSoon = instrumentSeed.filter((i) => !withData.has(i.symbol));
    assert.ok(comingSoon.length >= 5);
    for (const instrument of comingSoon) assert.ok(!covered.has(instrument.symbol), instrument.symbol);
    for (const c of coverage) assert.ok(seedSymbols.has(c.symbol), `${c.symbol} is a seed instrument`);
  });
});

describe('instrumentSeed', () => {
  test('symbols and data symbols are unique and prefixed by market', () => {
    const prefix = { CRYPTO: 'C:', FOREX: 'F:', FUTURES: 'X:', STOCKS: 'S:' } as const;
    assert.equal(new Set(instrumentSeed.map((i) => i.symbol)).size, instrumentSeed.length);
    assert.equal(new Set(instrumentSeed.map((i) => i.dataSymbol)).size, instrumentSeed.length);
    for (const i of instrumentSeed) assert.ok(i.symbol.startsWith(prefix[i.market]), i.symbol);
  });

  test('FX carries tick size and precision (3 for JPY-quoted), crypto neither, crypto in USD', () => {
    for (const i of instrumentSeed) {
      if (i.market === 'FOREX') {
        const jpy = i.denomination === 'JPY';
        assert.equal(i.pricePrecision, jpy ? 3 : 5, i.symbol);
        assert.equal(i.tickSize, jpy ? '0.001' : '0.00001', i.symbol);
        assert.deepEqual(i.spreadModel, { kind: 'zero' }, i.symbol);
      } else {
        assert.equal(i.tickSize, undefined, i.symbol);
        assert.equal(i.pricePrecision, undefined, i.symbol);
        assert.equal(i.spreadModel.kind, 'half_spread_bps', i.symbol);
      }
      if (i.market === 'CRYPTO') assert.equal(i.denomination, 'USD', i.symbol);
    }
  });
});

describe('barStartRange', () => {
  test('uses bar start for bar-end timestamps (a bar ending at midnight belongs to the previous day)', () => {
    const csv = 'time_end,open\n2011-03-02T00:00:00Z,1\n';
    const range = barStartRange(csv, 'time_end', 'iso-end-1m');
    assert.deepEqual(range, {
      first: Date.parse('2011-03-01T23:59:00Z'),
      last: Date.parse('2011-03-01T23:59:00Z'),
    });
  });

  test('falls back to a full scan when rows are not sorted', () => {
    const csv =
      'open_time,open\r\n1704153600000,1\r\n1704067200000,2\r\n1704326400000,3\r\n1704240000000,4\r\n';
    assert.deepEqual(barStartRange(csv, 'open_time', 'epoch-ms-open'), {
      first: 1704067200000,
      last: 1704326400000,
    });
  });

  test('reads microsecond Binance timestamps and rejects a wrong header or unreadable time', () => {
    assert.deepEqual(barStartRange('open_time\n1735689600000000\n', 'open_time', 'epoch-ms-open'), {
      first: 1735689600000,
      last: 1735689600000,
    });
    assert.equal(barStartRange('time,bid_open\n', 'time', 'iso-open'), undefined);
    assert.throws(
      () => barStartRange('date,open\n2014-05-01,1\n', 'time', 'iso-open'),
      /expected first column/,
    );
    assert.throws(
      () => barStartRange('time,open\n2014-05-01 00:00:00,1\n', 'time', 'iso-open'),
      /unreadable/,
    );
  });

  test('scanSampleCoverage merges files per symbol and skips missing files', async () => {
    await ensureZstd();
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-sample-'));
    try {
      const write = async (path: string, csv: string) => {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await writeFile(join(dir, path), compress(new TextEncoder().encode(csv), 3));
      };
      // Two of the three BTC files, given out of order; no forex or equity files.
      await write('crypto/binance_spot_BTCUSDT_1m_2024-03.csv.zst', 'open_time,open\n1709251200000,1\n');
      await write('crypto/binance_spot_BTCUSDT_1m_2024-01.csv.zst', 'open_time,open\n1704067200000,1\n');
      assert.deepEqual(await scanSampleCoverage(dir), [
        { symbol: 'C:BTCUSD', firstDay: '2024-01-01', lastDay: '2024-03-01' },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
