import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { QuoteTickBatch } from '@hindsight/core';
import {
  type BidAskImportResult,
  ImportError,
  importFile,
  importFiles,
  type TradeImportResult,
} from '../src/import/index.ts';
import { decimals, Fixtures, iso, ms } from './import-fixtures.ts';

const fx = new Fixtures();
after(() => fx.cleanup());

const M1 = [
  '20120201 000000;1.306600;1.306600;1.306560;1.306560;0',
  '20120201 000100;1.306570;1.306590;1.306470;1.306480;0',
  '20120201 000300;1.306490;1.306700;1.306490;1.306690;0',
];

const TICKS = [
  '20120201 000000123,1.306600,1.306650,0',
  '20120201 000010500,1.306620,1.306670,0',
  '20120201 000030000,1.306550,1.306610,0',
  '20120201 000059999,1.306580,1.306640,0',
  '20120201 000100000,1.30659,1.3067,0',
  '20120201 000245001,1.30651,1.30656,0',
];

async function rejects(path: string, message: string): Promise<void> {
  await assert.rejects(importFile('histdata', path, { symbol: 'F:EURUSD' }), (error: unknown) => {
    assert.ok(error instanceof ImportError, String(error));
    assert.equal(error.message, message);
    return true;
  });
}

describe('histdata importer', () => {
  it('reads M1 bars (BID prices) in EST without DST: UTC = EST + 5 h, summer and winter alike', async () => {
    const july = '20120702 120000;1.2;1.25;1.1;1.15;7';
    const r = (await importFile(
      'histdata',
      fx.file('DAT_ASCII_EURUSD_M1_2012.csv', `${[...M1, july].join('\n')}\n`),
      {
        symbol: 'F:EURUSD',
      },
    )) as TradeImportResult;
    assert.equal(r.kind, 'trade');
    assert.equal(r.priceSide, 'bid');
    assert.match(r.warnings[0] as string, /BID prices only/);
    assert.deepEqual(Array.from(r.bars.time, iso), [
      '2012-02-01T05:00:00.000Z',
      '2012-02-01T05:01:00.000Z',
      '2012-02-01T05:03:00.000Z',
      '2012-07-02T17:00:00.000Z',
    ]);
    assert.equal(r.bars.priceDecimals, 5);
    assert.deepEqual(decimals(r.bars.open, 5), ['1.3066', '1.30657', '1.30649', '1.2']);
    assert.deepEqual(Array.from(r.bars.low), [130656, 130647, 130649, 110000]);
    assert.deepEqual(Array.from(r.bars.volume), [0, 0, 0, 7]);
    assert.equal(r.summary.gaps.count, 2);
  });

  it('reads ticks, keeps them, and aggregates them to exact 1m bid/ask bars', async () => {
    const r = (await importFile('histdata', fx.file('DAT_ASCII_EURUSD_T_201202.csv', TICKS.join('\r\n')), {
      symbol: 'F:EURUSD',
    })) as BidAskImportResult;
    assert.equal(r.kind, 'bidask');
    assert.ok(r.ticks);
    assert.equal(r.ticks.length, 6);
    assert.equal(r.ticks.priceDecimals, 5);
    assert.equal(iso(r.ticks.time[0] as number), '2012-02-01T05:00:00.123Z');
    assert.deepEqual(Array.from(r.bars.time, iso), [
      '2012-02-01T05:00:00.000Z',
      '2012-02-01T05:01:00.000Z',
      '2012-02-01T05:02:00.000Z',
    ]);
    assert.deepEqual(Array.from(r.bars.bidOpen), [130660, 130659, 130651]);
    assert.deepEqual(Array.from(r.bars.bidHigh), [130662, 130659, 130651]);
    assert.deepEqual(Array.from(r.bars.bidLow), [130655, 130659, 130651]);
    assert.deepEqual(Array.from(r.bars.bidClose), [130658, 130659, 130651]);
    assert.deepEqual(Array.from(r.bars.askOpen), [130665, 130670, 130656]);
    assert.deepEqual(Array.from(r.bars.askHigh), [130667, 130670, 130656]);
    assert.deepEqual(Array.from(r.bars.askLow), [130661, 130670, 130656]);
    assert.deepEqual(Array.from(r.bars.askClose), [130664, 130670, 130656]);
    assert.equal(r.summary.ticks, 6);
    assert.equal(r.summary.bars, 3);
    assert.equal(r.summary.first, ms('2012-02-01T05:00:00Z'));
    assert.deepEqual(r.summary.gaps, { count: 0, largestMs: 0 });
  });

  it('ticks: the volume column sums into bar volume; same-ms ticks are kept in file order; identical ticks collapse', async () => {
    const lines = [
      '20120201 000000100,1.1,1.2,1.5',
      '20120201 000000100,1.15,1.2,2',
      '20120201 000000100,1.1,1.2,1.5',
      '20120201 000000050,1.05,1.25,0.25',
    ];
    const r = (await importFile('histdata', fx.gz('t.csv.gz', lines.join('\n')), {
      symbol: 'F:EURUSD',
    })) as BidAskImportResult;
    assert.deepEqual(decimals((r.ticks as QuoteTickBatch).bid, 2), ['1.05', '1.1', '1.15']);
    assert.deepEqual(Array.from((r.ticks as QuoteTickBatch).bidVolume), [25, 150, 200]);
    assert.deepEqual(Array.from((r.ticks as QuoteTickBatch).askVolume), [0, 0, 0]);
    assert.equal(r.summary.duplicates, 1);
    assert.equal(r.summary.outOfOrder, 1);
    assert.equal(r.bars.length, 1);
    assert.equal(r.bars.volume[0], 375);
    assert.equal(r.bars.volumeDecimals, 2);
    assert.deepEqual([r.bars.bidOpen[0], r.bars.bidClose[0], r.bars.bidHigh[0]], [105, 115, 115]);
    assert.deepEqual([r.bars.askHigh[0], r.bars.askLow[0], r.bars.askClose[0]], [125, 120, 120]);
  });

  it('reads a HistData zip (CSV member only, the .txt status report is skipped)', async () => {
    const zip = fx.zip('HISTDATA_COM_ASCII_EURUSD_M1201202.zip', {
      'DAT_ASCII_EURUSD_M1_201202.csv': M1.join('\n'),
      'DAT_ASCII_EURUSD_M1_201202.txt': 'HistData.com status report: gaps ...',
    });
    const r = await importFile('histdata', zip, { symbol: 'F:EURUSD' });
    assert.equal(r.bars.length, 3);
    assert.deepEqual(r.sources, [`${zip}!DAT_ASCII_EURUSD_M1_201202.csv`]);
  });

  it('is idempotent over overlapping files', async () => {
    const a = fx.file('a.csv', M1.slice(0, 2).join('\n'));
    const b = fx.file('b.csv', M1.slice(1).join('\n'));
    const all = await importFile('histdata', fx.file('all.csv', M1.join('\n')), { symbol: 'F:EURUSD' });
    const both = await importFiles('histdata', [a, b, a], { symbol: 'F:EURUSD' });
    assert.deepEqual(both.bars, all.bars);
    assert.equal(both.summary.duplicates, 3);
  });

  describe('errors', () => {
    it('bad column count', async () => {
      const path = fx.file('c.csv', `${M1[0]}\n${(M1[1] as string).replace(';0', '')}`);
      await rejects(path, `${path}:2: expected 6 columns, got 5`);
      const ticks = fx.file('tc.csv', `${TICKS[0]}\n${TICKS[1]},0`);
      await rejects(ticks, `${ticks}:2: expected 4 columns, got 5`);
    });
    it('bad number', async () => {
      const path = fx.file(
        'n.csv',
        `${M1[0]}\n${M1[1]}\n${(M1[2] as string).replace('1.306700', '1,306700')}`,
      );
      await rejects(path, `${path}:3: bad number "1,306700" in high`);
    });
    it('bad timestamp', async () => {
      const path = fx.file('t.csv', `${M1[0]}\n2012-02-01 00:01;1.3;1.3;1.3;1.3;0`);
      await rejects(
        path,
        `${path}:2: bad timestamp "2012-02-01 00:01" (expected YYYYMMDD HHMMSS (EST, UTC-5))`,
      );
      const feb30 = fx.file('t30.csv', '20120230 000000;1.3;1.3;1.3;1.3;0');
      await rejects(
        feb30,
        `${feb30}:1: bad timestamp "20120230 000000" (expected YYYYMMDD HHMMSS (EST, UTC-5))`,
      );
      const tick = fx.file('tt.csv', '20120201 0000001,1.3,1.4,0');
      await rejects(
        tick,
        `${tick}:1: bad timestamp "20120201 0000001" (expected YYYYMMDD HHMMSSfff (EST, UTC-5))`,
      );
    });
    it('conflicting duplicate', async () => {
      const path = fx.file('d.csv', [...M1, (M1[1] as string).replace(';0', ';5')].join('\n'));
      await rejects(
        path,
        `${path}:4: conflicting duplicate: the row at 2012-02-01T05:01Z differs from the one at ${path}:2`,
      );
    });
    it('empty file, header line, mixed kinds', async () => {
      const empty = fx.file('e.csv', '\n\n');
      await rejects(empty, `${empty}:3: no data rows (empty file)`);
      const header = fx.file('hd.csv', `time;open;high;low;close;volume\n${M1[0]}`);
      await rejects(
        header,
        `${header}:1: HistData ASCII files have no header: expected YYYYMMDD HHMMSS;open;high;low;close;volume or YYYYMMDD HHMMSSfff,bid,ask,volume`,
      );
      const bars = fx.file('mb.csv', M1[0] as string);
      const ticks = fx.file('mt.csv', TICKS[0] as string);
      await assert.rejects(importFiles('histdata', [bars, ticks], { symbol: 'X' }), {
        message: `${ticks}:1: HistData ticks cannot be imported together with bars`,
      });
    });
  });
});
