import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  type BidAskImportResult,
  ImportError,
  type ImportFormat,
  importFile,
  importFiles,
  type TradeImportResult,
} from '../src/import/index.ts';
import { decimals, Fixtures, iso } from './import-fixtures.ts';

const fx = new Fixtures();
after(() => fx.cleanup());

const FOREX_HEADER = 'time,bid_open,bid_high,bid_low,bid_close,ask_open,ask_high,ask_low,ask_close\n';
const FOREX = [
  '2013-02-01T00:00:00Z,91.715,91.715,91.653,91.653,91.717,91.717,91.655,91.655',
  '2013-02-01T00:01:00Z,91.653,91.707,91.653,91.661,91.655,91.699,91.654,91.666',
  '2013-02-01T00:04:00Z,91.66,91.67,91.65,91.66,91.662,91.672,91.652,91.6625',
];
const NT_HEADER = 'time_end,open,high,low,close,volume\n';
const NT = [
  '2011-03-01T09:01:00Z,133.9,134.01,133.9,133.98,3778',
  '2011-03-01T09:03:00Z,134,134,134,134,400',
];

async function rejects(format: ImportFormat, path: string, message: string): Promise<void> {
  await assert.rejects(importFile(format, path, { symbol: 'X' }), (error: unknown) => {
    assert.ok(error instanceof ImportError, String(error));
    assert.equal(error.message, message);
    return true;
  });
}

describe('forex sample importer', () => {
  it('reads bid/ask bars (bar open, ISO UTC), exact at the finest decimals, volume 0', async () => {
    const r = (await importFile('forex-sample', fx.file('fx.csv', FOREX_HEADER + FOREX.join('\n')), {
      symbol: 'F:USDJPY',
    })) as BidAskImportResult;
    assert.equal(r.kind, 'bidask');
    assert.equal(r.bars.priceDecimals, 4);
    assert.deepEqual(Array.from(r.bars.time, iso), [
      '2013-02-01T00:00:00.000Z',
      '2013-02-01T00:01:00.000Z',
      '2013-02-01T00:04:00.000Z',
    ]);
    assert.deepEqual(decimals(r.bars.askClose, 4), ['91.655', '91.666', '91.6625']);
    assert.deepEqual(Array.from(r.bars.bidOpen), [917150, 916530, 916600]);
    assert.deepEqual(Array.from(r.bars.volume), [0, 0, 0]);
    assert.deepEqual(r.summary.gaps, { count: 1, largestMs: 120_000 });
  });

  it('crossed bid/ask (as in the FXCM sample) is kept; a bar whose high is below its close is refused', async () => {
    const crossed = '2013-02-01T00:00:00Z,91.72,91.72,91.70,91.71,91.70,91.71,91.69,91.70';
    const r = await importFile('forex-sample', fx.file('x.csv', FOREX_HEADER + crossed), { symbol: 'X' });
    assert.equal(r.bars.length, 1);
    const bad = fx.file(
      'bad.csv',
      `${FOREX_HEADER}2013-02-01T00:00:00Z,91.72,91.70,91.70,91.71,91.7,91.71,91.69,91.7`,
    );
    await rejects(
      'forex-sample',
      bad,
      `${bad}:2: inconsistent bar: bidHigh must be >= and bidLow <= bidOpen and bidClose`,
    );
  });

  it('errors name file and line', async () => {
    const cols = fx.file('c.csv', `${FOREX_HEADER}${FOREX[0]}\n${FOREX[1]},1`);
    await rejects('forex-sample', cols, `${cols}:3: expected 9 columns, got 10`);
    const ts = fx.file(
      't.csv',
      `${FOREX_HEADER}${FOREX[0]}\n${FOREX[1]?.replace('T00:01:00Z', 'T00:01:00 UTC')}`,
    );
    await rejects(
      'forex-sample',
      ts,
      `${ts}:3: bad timestamp "2013-02-01T00:01:00 UTC" (expected ISO-8601 UTC like 2013-02-01T00:00:00Z)`,
    );
    const sec = fx.file('s.csv', FOREX_HEADER + FOREX[0]?.replace('00:00:00Z', '00:00:30Z'));
    await rejects('forex-sample', sec, `${sec}:2: bar time 2013-02-01T00:00:30Z is not on a whole minute`);
    const num = fx.file('n.csv', FOREX_HEADER + FOREX[0]?.replace('91.653,91.717', 'NaN,91.717'));
    await rejects('forex-sample', num, `${num}:2: bad number "NaN" in bid_close`);
    const dup = fx.file(
      'd.csv',
      FOREX_HEADER + [FOREX[0], FOREX[1], FOREX[0]?.replace('91.715,91.715', '91.715,91.716')].join('\n'),
    );
    await rejects(
      'forex-sample',
      dup,
      `${dup}:4: conflicting duplicate: the row at 2013-02-01T00:00Z differs from the one at ${dup}:2`,
    );
    const empty = fx.file('e.csv', '');
    await rejects('forex-sample', empty, `${empty}:1: no data rows (empty file)`);
  });

  it('.zip and .zst variants and re-imports give identical bars', async () => {
    const text = FOREX_HEADER + FOREX.join('\n');
    const plain = await importFile('forex-sample', fx.file('p.csv', text), { symbol: 'X' });
    const zst = await importFile('forex-sample', await fx.zst('p.csv.zst', text), { symbol: 'X' });
    const zip = await importFile('forex-sample', fx.zip('p.zip', { 'p.csv': text }), { symbol: 'X' });
    const overlap = await importFiles(
      'forex-sample',
      [fx.file('q.csv', text), fx.file('r.csv', FOREX.slice(1).join('\n'))],
      {
        symbol: 'X',
      },
    );
    assert.deepEqual(zst.bars, plain.bars);
    assert.deepEqual(zip.bars, plain.bars);
    assert.deepEqual(overlap.bars, plain.bars);
    assert.equal(overlap.summary.duplicates, 2);
  });
});

describe('ninjatrader importer', () => {
  it('bundled layout: time_end ISO UTC, bar start = end - 60 s', async () => {
    const r = (await importFile('ninjatrader', fx.file('nt.csv', NT_HEADER + NT.join('\n')), {
      symbol: 'S:SPY',
    })) as TradeImportResult;
    assert.equal(r.kind, 'trade');
    assert.deepEqual(Array.from(r.bars.time, iso), ['2011-03-01T09:00:00.000Z', '2011-03-01T09:02:00.000Z']);
    assert.deepEqual(decimals(r.bars.high, r.bars.priceDecimals), ['134.01', '134']);
    assert.deepEqual(Array.from(r.bars.volume), [3778, 400]);
  });

  it("NinjaTrader's own export (YYYYMMDD HHMMSS;o;h;l;c;v, bar end) in UTC or a given zone", async () => {
    const text = '20110301 090100;133.9;134.01;133.9;133.98;3778\n20110301 090300;134;134;134;134;400\n';
    const utc = await importFile('ninjatrader', fx.file('native.txt', text), { symbol: 'S:SPY' });
    const bundled = await importFile('ninjatrader', fx.file('nt2.csv', NT_HEADER + NT.join('\n')), {
      symbol: 'S:SPY',
    });
    assert.deepEqual(utc.bars, bundled.bars);
    const ny = await importFile('ninjatrader', fx.file('native-ny.txt', text), {
      symbol: 'S:SPY',
      tz: 'America/New_York',
    });
    assert.equal(iso(ny.bars.time[0] as number), '2011-03-01T14:00:00.000Z');
  });

  it('errors name file and line', async () => {
    const cols = fx.file('c.csv', `${NT_HEADER}${NT[0]}\n${NT[1]},9`);
    await rejects('ninjatrader', cols, `${cols}:3: expected 6 columns, got 7`);
    const ts = fx.file('t.txt', '20110301 090100;1;1;1;1;1\n2011-03-01 0902;1;1;1;1;1');
    await rejects(
      'ninjatrader',
      ts,
      `${ts}:2: bad timestamp "2011-03-01 0902" (expected YYYYMMDD HHMMSS (UTC))`,
    );
    const neg = fx.file('v.csv', `${NT_HEADER}2011-03-01T09:01:00Z,1,1,1,1,-5`);
    await rejects('ninjatrader', neg, `${neg}:2: negative volume "-5"`);
  });
});
