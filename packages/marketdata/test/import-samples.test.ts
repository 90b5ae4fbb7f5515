/**
 * The importers over the REAL bundled samples (data/sample/*.zst): row counts, first/last bar times,
 * known extremes, and every row checked against an independent line-by-line parse of the raw CSV.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { decimalStringToTicks, ticksToDecimalString } from '@hindsight/core';
import {
  type BidAskImportResult,
  importFile,
  importFiles,
  type TradeImportResult,
} from '../src/import/index.ts';
import { ensureZstd, zstdDecompress } from '../src/zstd.ts';

const SAMPLES = join(dirname(fileURLToPath(import.meta.url)), '../../../data/sample');
const BTC = ['01', '02', '03'].map((m) => join(SAMPLES, `crypto/binance_spot_BTCUSDT_1m_2024-${m}.csv.zst`));
const USDJPY = join(SAMPLES, 'forex/fxcm_USDJPY_1m_bidask_2013-02.csv.zst');
const EURUSD = join(SAMPLES, 'forex/oanda_EURUSD_1m_bidask_2014-05-01_2014-05-15.csv.zst');
const SPY = join(SAMPLES, 'equity/ninjatrader_SPY_1m_2011-03.csv.zst');

async function rawRows(path: string): Promise<string[][]> {
  await ensureZstd();
  const text = new TextDecoder().decode(zstdDecompress(await readFile(path)));
  return text
    .split('\n')
    .slice(1)
    .filter((line) => line !== '')
    .map((line) => line.split(','));
}

const tick = (text: string, scale: number) => {
  const value = decimalStringToTicks(text, scale);
  assert.notEqual(value, undefined, text);
  return value as number;
};

const day = (t: number) => new Date(t).toISOString().slice(0, 10);

function dayExtremes(bars: TradeImportResult['bars'], date: string): { high: string; low: string } {
  let high = Number.NEGATIVE_INFINITY;
  let low = Number.POSITIVE_INFINITY;
  for (let i = 0; i < bars.length; i++) {
    if (day(bars.time[i] as number) !== date) continue;
    high = Math.max(high, bars.high[i] as number);
    low = Math.min(low, bars.low[i] as number);
  }
  return {
    high: ticksToDecimalString(high, bars.priceDecimals),
    low: ticksToDecimalString(low, bars.priceDecimals),
  };
}

describe('real bundled samples', () => {
  it('Binance BTCUSDT 2024-01..03: 131,040 bars, no gaps, known extremes', async () => {
    const r = (await importFiles('binance', BTC, { symbol: 'C:BTCUSD' })) as TradeImportResult;
    assert.equal(r.kind, 'trade');
    assert.equal(r.summary.rows, 131_040);
    assert.equal(r.bars.length, 131_040);
    assert.equal(new Date(r.summary.first).toISOString(), '2024-01-01T00:00:00.000Z');
    assert.equal(new Date(r.summary.last).toISOString(), '2024-03-31T23:59:00.000Z');
    assert.deepEqual(r.summary.gaps, { count: 0, largestMs: 0 });
    assert.equal(r.summary.duplicates, 0);
    assert.equal(r.summary.outOfOrder, 0);
    assert.equal(r.bars.priceDecimals, 2);
    assert.equal(r.bars.volumeDecimals, 6);
    assert.equal(dayExtremes(r.bars, '2024-03-14').high, '73777');
    assert.equal(dayExtremes(r.bars, '2024-02-28').high, '64000');
    assert.equal(dayExtremes(r.bars, '2024-01-23').low, '38555');
    let max = 0;
    for (const h of r.bars.high) max = Math.max(max, h);
    assert.equal(ticksToDecimalString(max, 2), '73777');
    assert.equal(day(r.bars.time[r.bars.high.indexOf(max)] as number), '2024-03-14');
    // First and last rows, verbatim from the CSV.
    assert.deepEqual(
      [r.bars.open[0], r.bars.high[0], r.bars.low[0], r.bars.close[0], r.bars.volume[0]],
      [4228358, 4229862, 4226102, 4229861, 35_927_240],
    );
    const n = r.bars.length - 1;
    assert.deepEqual(
      [r.bars.open[n], r.bars.high[n], r.bars.low[n], r.bars.close[n], r.bars.volume[n]],
      [7132601, 7132601, 7128000, 7128001, 29_894_940],
    );
    // Per-file counts.
    const counts = await Promise.all(BTC.map((path) => importFile('binance', path, { symbol: 'C:BTCUSD' })));
    assert.deepEqual(
      counts.map((c) => c.summary.rows),
      [44_640, 41_760, 44_640],
    );
  });

  it('Binance January: every row equals an independent parse of the raw CSV', async () => {
    const r = (await importFile('binance', BTC[0] as string, { symbol: 'C:BTCUSD' })) as TradeImportResult;
    const rows = await rawRows(BTC[0] as string);
    assert.equal(rows.length, r.bars.length);
    const p = r.bars.priceDecimals;
    const v = r.bars.volumeDecimals;
    rows.forEach((row, i) => {
      assert.equal(r.bars.time[i], Number(row[0]));
      assert.equal(r.bars.open[i], tick(row[1] as string, p));
      assert.equal(r.bars.high[i], tick(row[2] as string, p));
      assert.equal(r.bars.low[i], tick(row[3] as string, p));
      assert.equal(r.bars.close[i], tick(row[4] as string, p));
      assert.equal(r.bars.volume[i], tick(row[5] as string, v));
    });
  });

  for (const [name, path, count, first, last, scale] of [
    ['FXCM USDJPY 2013-02', USDJPY, 28_761, '2013-02-01T00:00:00.000Z', '2013-03-01T00:00:00.000Z', 3],
    [
      'OANDA EURUSD 2014-05-01..15',
      EURUSD,
      15_366,
      '2014-05-01T00:00:00.000Z',
      '2014-05-15T23:59:00.000Z',
      5,
    ],
  ] as const) {
    it(`forex sample ${name}: ${count} bid/ask bars, every row exact`, async () => {
      const r = (await importFile('forex-sample', path, { symbol: 'F:X' })) as BidAskImportResult;
      assert.equal(r.kind, 'bidask');
      assert.equal(r.summary.rows, count);
      assert.equal(r.bars.length, count);
      assert.equal(new Date(r.summary.first).toISOString(), first);
      assert.equal(new Date(r.summary.last).toISOString(), last);
      assert.equal(r.bars.priceDecimals, scale);
      assert.equal(r.summary.duplicates, 0);
      const rows = await rawRows(path);
      const columns = [
        'bidOpen',
        'bidHigh',
        'bidLow',
        'bidClose',
        'askOpen',
        'askHigh',
        'askLow',
        'askClose',
      ] as const;
      rows.forEach((row, i) => {
        assert.equal(r.bars.time[i], Date.parse(row[0] as string));
        columns.forEach((column, c) => {
          assert.equal(r.bars[column][i], tick(row[c + 1] as string, scale));
        });
        assert.equal(r.bars.volume[i], 0);
      });
    });
  }

  it('forex sample details: USDJPY last bar, and EURUSD weekend gaps kept as gaps', async () => {
    const jpy = (await importFile('forex-sample', USDJPY, { symbol: 'F:USDJPY' })) as BidAskImportResult;
    const n = jpy.bars.length - 1;
    assert.deepEqual(
      [jpy.bars.bidOpen[n], jpy.bars.bidLow[n], jpy.bars.askClose[n]].map((t) =>
        ticksToDecimalString(t as number, 3),
      ),
      ['92.584', '92.533', '92.54'],
    );
    const eur = (await importFile('forex-sample', EURUSD, { symbol: 'F:EURUSD' })) as BidAskImportResult;
    assert.ok(eur.summary.gaps.count > 0);
    assert.ok(eur.summary.gaps.largestMs >= 24 * 3_600_000, 'the weekend is a gap');
  });

  it('NinjaTrader SPY 2011-03: 17,577 bars stamped at the bar end become bar starts', async () => {
    const r = (await importFile('ninjatrader', SPY, { symbol: 'S:SPY' })) as TradeImportResult;
    assert.equal(r.summary.rows, 17_577);
    assert.equal(r.bars.length, 17_577);
    assert.equal(new Date(r.summary.first).toISOString(), '2011-03-01T09:00:00.000Z');
    assert.equal(new Date(r.summary.last).toISOString(), '2011-03-31T23:58:00.000Z');
    assert.equal(r.bars.priceDecimals, 2);
    const i = r.bars.time.indexOf(Date.parse('2011-03-09T14:30:00Z'));
    assert.ok(i >= 0);
    assert.deepEqual(
      [r.bars.open[i], r.bars.high[i], r.bars.low[i], r.bars.close[i], r.bars.volume[i]],
      [13231, 13237, 13225, 13235, 556121],
    );
    const rows = await rawRows(SPY);
    rows.forEach((row, k) => {
      assert.equal(r.bars.time[k], Date.parse(row[0] as string) - 60_000);
      assert.equal(r.bars.close[k], tick(row[4] as string, 2));
    });
  });
});
