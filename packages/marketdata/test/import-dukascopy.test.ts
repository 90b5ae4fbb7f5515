import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { QuoteTickBatch } from '@hindsight/core';
import {
  type BidAskImportResult,
  ImportError,
  importFile,
  importFiles,
  sideFromName,
  type TradeImportResult,
} from '../src/import/index.ts';
import { Fixtures, iso } from './import-fixtures.ts';

const fx = new Fixtures();
after(() => fx.cleanup());

const HEADER = 'Gmt time,Open,High,Low,Close,Volume\n';
const BID = [
  '01.01.2020 22:00:00.000,1.12121,1.12133,1.12118,1.12130,21.85',
  '01.01.2020 22:01:00.000,1.12130,1.12140,1.12125,1.12139,12.5',
  '01.01.2020 22:02:00.000,1.12139,1.12139,1.12139,1.12139,0',
  '01.01.2020 22:03:00.000,1.12139,1.1215,1.12139,1.12145,3.1',
];
const ASK = [
  '01.01.2020 22:00:00.000,1.12141,1.12153,1.12138,1.12150,20.1',
  '01.01.2020 22:01:00.000,1.12150,1.12160,1.12145,1.12159,11',
  '01.01.2020 22:02:00.000,1.12159,1.12159,1.12159,1.12159,0',
  '01.01.2020 22:03:00.000,1.12159,1.1217,1.12159,1.12165,2.95',
];

async function rejects(paths: string[], message: string, side?: 'bid' | 'ask'): Promise<void> {
  await assert.rejects(
    importFiles('dukascopy', paths, side ? { symbol: 'F:EURUSD', side } : { symbol: 'F:EURUSD' }),
    (error: unknown) => {
      assert.ok(error instanceof ImportError, String(error));
      assert.equal(error.message, message);
      return true;
    },
  );
}

describe('dukascopy importer', () => {
  it('tells BID and ASK from file names', () => {
    assert.equal(sideFromName('EURUSD_Candlestick_1_M_BID_01.01.2020-31.12.2020.csv'), 'bid');
    assert.equal(sideFromName('eurusd-m1-ask-2020.csv'), 'ask');
    assert.equal(sideFromName('EURUSD_1_M.csv'), undefined);
    assert.equal(sideFromName('basket.csv'), undefined);
  });

  it('joins BID and ASK candle files; volume = bid + ask; zero-volume (filled) candles are dropped', async () => {
    const bid = fx.file('EURUSD_Candlestick_1_M_BID_01.01.2020-01.01.2020.csv', HEADER + BID.join('\n'));
    const ask = fx.gz('EURUSD_Candlestick_1_M_ASK_01.01.2020-01.01.2020.csv.gz', HEADER + ASK.join('\n'));
    const r = (await importFiles('dukascopy', [ask, bid], { symbol: 'F:EURUSD' })) as BidAskImportResult;
    assert.equal(r.kind, 'bidask');
    assert.equal(r.priceSide, 'bidask');
    assert.deepEqual(Array.from(r.bars.time, iso), [
      '2020-01-01T22:00:00.000Z',
      '2020-01-01T22:01:00.000Z',
      '2020-01-01T22:03:00.000Z',
    ]);
    assert.equal(r.bars.priceDecimals, 5);
    assert.deepEqual(Array.from(r.bars.bidOpen), [112121, 112130, 112139]);
    assert.deepEqual(Array.from(r.bars.bidHigh), [112133, 112140, 112150]);
    assert.deepEqual(Array.from(r.bars.askLow), [112138, 112145, 112159]);
    assert.deepEqual(Array.from(r.bars.askClose), [112150, 112159, 112165]);
    assert.equal(r.bars.volumeDecimals, 2);
    assert.deepEqual(Array.from(r.bars.volume), [4195, 2350, 605]);
    assert.deepEqual(r.warnings, ['1 zero-volume (filled, no ticks) bars dropped']);
    assert.deepEqual(r.summary.gaps, { count: 1, largestMs: 60_000 });
    assert.equal(r.summary.rows, 8);

    const kept = await importFiles('dukascopy', [bid, ask], { symbol: 'F:EURUSD', keepEmptyBars: true });
    assert.equal(kept.bars.length, 4);

    const zip = fx.zip('EURUSD_1_M.zip', {
      'EURUSD_Candlestick_1_M_ASK.csv': HEADER + ASK.join('\n'),
      'EURUSD_Candlestick_1_M_BID.csv': HEADER + BID.join('\n'),
    });
    const zipped = await importFile('dukascopy', zip, { symbol: 'F:EURUSD' });
    assert.deepEqual(zipped.bars, r.bars);
  });

  it('one side alone gives one OHLC set of that side; the side may be passed', async () => {
    const r = (await importFile('dukascopy', fx.file('EURUSD_1_M.csv', HEADER + BID.join('\n')), {
      symbol: 'F:EURUSD',
      side: 'bid',
    })) as TradeImportResult;
    assert.equal(r.kind, 'trade');
    assert.equal(r.priceSide, 'bid');
    assert.deepEqual(Array.from(r.bars.close), [112130, 112139, 112145]);
    assert.deepEqual(Array.from(r.bars.volume), [2185, 1250, 310]);
    assert.match(r.warnings[0] as string, /only BID candles/);
  });

  it('reads tick exports (Ask,Bid,AskVolume,BidVolume), keeps the ticks, aggregates exactly', async () => {
    const ticks = [
      'Gmt time,Ask,Bid,AskVolume,BidVolume',
      '01.01.2020 22:00:01.123,1.12141,1.12121,0.75,1.5',
      '01.01.2020 22:00:30.500,1.12151,1.12131,1,1',
      '01.01.2020 22:00:59.999,1.12146,1.12126,0.5,0.25',
      '01.01.2020 22:02:00.000,1.1215,1.1213,3.6,2.4',
    ];
    const r = (await importFile(
      'dukascopy',
      fx.zip('EURUSD_Ticks.zip', { 'EURUSD_Ticks.csv': ticks.join('\n') }),
      {
        symbol: 'F:EURUSD',
      },
    )) as BidAskImportResult;
    assert.equal((r.ticks as QuoteTickBatch).length, 4);
    assert.deepEqual(Array.from((r.ticks as QuoteTickBatch).ask), [112141, 112151, 112146, 112150]);
    assert.deepEqual(Array.from((r.ticks as QuoteTickBatch).bidVolume), [150, 100, 25, 240]);
    assert.deepEqual(Array.from((r.ticks as QuoteTickBatch).askVolume), [75, 100, 50, 360]);
    assert.deepEqual(Array.from(r.bars.time, iso), ['2020-01-01T22:00:00.000Z', '2020-01-01T22:02:00.000Z']);
    assert.deepEqual(Array.from(r.bars.bidOpen), [112121, 112130]);
    assert.deepEqual(Array.from(r.bars.bidHigh), [112131, 112130]);
    assert.deepEqual(Array.from(r.bars.bidLow), [112121, 112130]);
    assert.deepEqual(Array.from(r.bars.bidClose), [112126, 112130]);
    assert.deepEqual(Array.from(r.bars.askHigh), [112151, 112150]);
    assert.deepEqual(Array.from(r.bars.volume), [500, 600]);
    assert.deepEqual(r.summary.gaps, { count: 1, largestMs: 60_000 });
  });

  it('applies a GMT offset suffix (Local time exports) and accepts epoch-ms times', async () => {
    const local = fx.file(
      'x_BID.csv',
      'Local time,Open,High,Low,Close,Volume\n02.01.2020 00:00:00.000 GMT+0200,1.1,1.2,1.0,1.1,5\n',
    );
    const r = await importFile('dukascopy', local, { symbol: 'F:EURUSD' });
    assert.equal(iso(r.bars.time[0] as number), '2020-01-01T22:00:00.000Z');
    const epoch = fx.file(
      'y_ask.csv',
      'timestamp,open,high,low,close,volume\n1577916000000,1.1,1.2,1.0,1.1,5\n',
    );
    const e = await importFile('dukascopy', epoch, { symbol: 'F:EURUSD' });
    assert.equal(iso(e.bars.time[0] as number), '2020-01-01T22:00:00.000Z');
    assert.equal(e.priceSide, 'ask');
  });

  describe('errors', () => {
    it('bad column count, bad number, bad timestamp', async () => {
      const cols = fx.file('c_BID.csv', `${HEADER}${BID[0]}\n${BID[1]},1`);
      await rejects([cols], `${cols}:3: expected 6 columns, got 7`);
      const num = fx.file(
        'n_BID.csv',
        `${HEADER}${BID[0]}\n${(BID[1] as string).replace('1.12125', '1.12.125')}`,
      );
      await rejects([num], `${num}:3: bad number "1.12.125" in Low`);
      const ts = fx.file(
        't_BID.csv',
        `${HEADER}${BID[0]}\n${(BID[1] as string).replace('01.01.2020', '2020-01-01')}`,
      );
      await rejects(
        [ts],
        `${ts}:3: bad timestamp "2020-01-01 22:01:00.000" (expected DD.MM.YYYY HH:MM:SS.fff (GMT) or epoch milliseconds)`,
      );
    });
    it('conflicting duplicate and empty file', async () => {
      const dup = fx.file(
        'd_ASK.csv',
        `${HEADER}${ASK[0]}\n${ASK[1]}\n${(ASK[1] as string).replace(',11', ',12')}`,
      );
      await rejects(
        [dup],
        `${dup}:4: conflicting duplicate: the row at 2020-01-01T22:01Z differs from the one at ${dup}:3`,
      );
      const empty = fx.file('e_ASK.csv', HEADER);
      await rejects([empty], `${empty}:2: no data rows (empty file)`);
    });
    it('unknown side, and BID/ASK files that do not hold the same minutes', async () => {
      const noside = fx.file('EURUSD.csv', HEADER + BID[0]);
      await rejects(
        [noside],
        `${noside}:1: cannot tell whether these candles are BID or ASK: put BID or ASK in the file name or pass the side`,
      );
      const bid = fx.file('m_BID.csv', HEADER + BID.join('\n'));
      const ask = fx.file('m_ASK.csv', HEADER + [ASK[0], ASK[1], ASK[3]].join('\n'));
      await rejects(
        [bid, ask],
        `${bid}:4: no ASK bar at 2020-01-01T22:02Z: BID and ASK files must hold the same minutes`,
      );
    });
    it('ticks and candles together', async () => {
      const bid = fx.file('k_BID.csv', HEADER + BID[0]);
      const ticks = fx.file(
        'k_ticks.csv',
        'Gmt time,Ask,Bid,AskVolume,BidVolume\n01.01.2020 22:00:01.123,1.2,1.1,1,1',
      );
      await rejects([bid, ticks], `${ticks}:1: Dukascopy ticks cannot be imported together with bars`);
    });
  });
});
