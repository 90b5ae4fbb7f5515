import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { QuoteTickBatch } from '@hindsight/core';
import {
  type BidAskImportResult,
  ImportError,
  type ImportOptions,
  importFile,
  parseColumnMapping,
  parseFormat,
  type TradeImportResult,
} from '../src/import/index.ts';
import { decimals, Fixtures, iso } from './import-fixtures.ts';

const fx = new Fixtures();
after(() => fx.cleanup());

async function csv(path: string, options: Partial<ImportOptions> = {}) {
  return importFile('csv', path, { symbol: 'F:EURUSD', ...options });
}

async function rejects(path: string, message: string, options: Partial<ImportOptions> = {}): Promise<void> {
  await assert.rejects(csv(path, options), (error: unknown) => {
    assert.ok(error instanceof ImportError, String(error));
    assert.equal(error.message, message);
    return true;
  });
}

describe('generic CSV importer', () => {
  it('parses format names and column mappings', () => {
    assert.equal(parseFormat('CSV'), 'csv');
    assert.equal(parseFormat('generic-csv'), 'csv');
    assert.equal(parseFormat('binance'), 'binance');
    assert.throws(() => parseFormat('mt4'), /unknown import format "mt4": expected one of binance, histdata/);
    assert.deepEqual(parseColumnMapping('time=Date, open=1,close=Close'), {
      time: 'Date',
      open: 1,
      close: 'Close',
    });
    assert.throws(() => parseColumnMapping('when=0'), /column mapping "when=0": expected key=column/);
  });

  it('recognises an OHLCV header, ISO times with Z', async () => {
    const r = (await csv(
      fx.file(
        'ohlcv.csv',
        'Timestamp,Open,High,Low,Close,Volume\n2024-01-01T00:01:00Z,1.5,2,1,1.75,10\n2024-01-01T00:00:00Z,1,2,0.5,1.5,2.5\n',
      ),
    )) as TradeImportResult;
    assert.equal(r.kind, 'trade');
    assert.deepEqual(Array.from(r.bars.time, iso), ['2024-01-01T00:00:00.000Z', '2024-01-01T00:01:00.000Z']);
    assert.deepEqual(decimals(r.bars.close, r.bars.priceDecimals), ['1.5', '1.75']);
    assert.deepEqual(Array.from(r.bars.volume), [25, 100]);
    assert.equal(r.summary.outOfOrder, 1);
  });

  it('maps columns by index without a header, with a time pattern and a fixed offset', async () => {
    const path = fx.file('semi.txt', '01/02/2024 10:30;1.1;1.3;1.0;1.2\n01/02/2024 10:31;1.2;1.2;1.2;1.2\n');
    const r = await csv(path, {
      columns: { time: 0, open: 1, high: 2, low: 3, close: 4 },
      timeFormat: 'DD/MM/YYYY HH:mm',
      tz: '+02:00',
    });
    assert.deepEqual(Array.from(r.bars.time, iso), ['2024-02-01T08:30:00.000Z', '2024-02-01T08:31:00.000Z']);
    assert.deepEqual(Array.from(r.bars.volume), [0, 0]);
  });

  it('time patterns take literal letters such as T', async () => {
    const path = fx.file('t.csv', 'time,o,h,l,c\n20240201T103000,1,1,1,1\n');
    const r = await csv(path, { timeFormat: 'YYYYMMDDTHHmmss', tz: '-05:00' });
    assert.equal(iso(r.bars.time[0] as number), '2024-02-01T15:30:00.000Z');
  });

  it('converts wall times of an IANA zone (per-hour cached offsets), both sides of DST', async () => {
    const text = 'date,time,open,high,low,close\n2024-01-15,09:30,1,1,1,1\n2024-07-15,09:30,2,2,2,2\n';
    const r = await csv(fx.file('ny.csv', text), { tz: 'America/New_York' });
    assert.deepEqual(Array.from(r.bars.time, iso), ['2024-01-15T14:30:00.000Z', '2024-07-15T13:30:00.000Z']);
  });

  it('refuses a wall time inside a DST gap; takes the earlier instant in a DST fold (with a warning)', async () => {
    const gap = fx.file(
      'gap.csv',
      'time,open,high,low,close\n2024-03-31 01:59,1,1,1,1\n2024-03-31 02:30,1,1,1,1\n',
    );
    await rejects(
      gap,
      `${gap}:3: bad timestamp "2024-03-31 02:30" (expected ISO-8601 like 2024-01-01T00:00:00Z (no offset: Europe/Berlin))`,
      { tz: 'Europe/Berlin' },
    );
    const fold = fx.file(
      'fold.csv',
      'time,open,high,low,close\n2024-10-27 02:30,1,1,1,1\n2024-10-27 03:30,1,1,1,1\n',
    );
    const r = await csv(fold, { tz: 'Europe/Berlin' });
    assert.deepEqual(Array.from(r.bars.time, iso), ['2024-10-27T00:30:00.000Z', '2024-10-27T02:30:00.000Z']);
    assert.match(r.warnings[0] as string, /1 times fell in a DST fold of Europe\/Berlin/);
  });

  it('an offset written in the time wins over the tz option; bar-end stamps are shifted to bar starts', async () => {
    const path = fx.file('end.csv', 'time,open,high,low,close,volume\n2024-01-01T01:01:00+01:00,1,1,1,1,1\n');
    const r = await csv(path, { tz: 'America/New_York', barTime: 'end' });
    assert.equal(iso(r.bars.time[0] as number), '2024-01-01T00:00:00.000Z');
  });

  it('reads epoch seconds/ms and bid/ask OHLC bars', async () => {
    const text = [
      'time,bid_open,bid_high,bid_low,bid_close,ask_open,ask_high,ask_low,ask_close',
      '1704067200,1.1,1.2,1.0,1.15,1.11,1.21,1.01,1.16',
      '1704067260,1.15,1.15,1.15,1.15,1.16,1.16,1.16,1.16',
    ].join('\n');
    const r = (await csv(fx.file('ba.csv', text))) as BidAskImportResult;
    assert.equal(r.kind, 'bidask');
    assert.equal(r.bars.time[0], 1704067200000);
    assert.deepEqual(Array.from(r.bars.askHigh), [121, 116]);
    const ms = await csv(
      fx.file(
        'ms.csv',
        text.replace('1704067200,', '1704067200000,').replace('1704067260,', '1704067260000,'),
      ),
    );
    assert.deepEqual(ms.bars, r.bars);
  });

  it('reads bid/ask ticks (kept and aggregated)', async () => {
    const text = [
      'time,bid,ask,bid_size,ask_size',
      '2024-01-01 00:00:01.5,1.1,1.2,1,2',
      '2024-01-01 00:00:02,1.05,1.25,3,4',
    ];
    const r = (await csv(fx.file('ticks.csv', text.join('\n')))) as BidAskImportResult;
    assert.equal(r.ticks?.length, 2);
    assert.equal(iso((r.ticks as QuoteTickBatch).time[0] as number), '2024-01-01T00:00:01.500Z');
    assert.deepEqual(
      [r.bars.bidOpen[0], r.bars.bidLow[0], r.bars.askHigh[0], r.bars.askClose[0], r.bars.volume[0]],
      [110, 105, 125, 125, 10],
    );
  });

  describe('errors', () => {
    it('bad column count, bad number, bad timestamp, conflicting duplicate, empty file', async () => {
      const head = 'time,open,high,low,close\n';
      const cols = fx.file('e1.csv', `${head}2024-01-01 00:00,1,1,1,1\n2024-01-01 00:01,1,1,1\n`);
      await rejects(cols, `${cols}:3: expected 5 columns, got 4`);
      const num = fx.file('e2.csv', `${head}2024-01-01 00:00,1,1,1,1\n2024-01-01 00:01,1,1,abc,1\n`);
      await rejects(num, `${num}:3: bad number "abc" in low`);
      const ts = fx.file('e3.csv', `${head}2024-01-01 00:00,1,1,1,1\n2024-01-01 24:00,1,1,1,1\n`);
      await rejects(
        ts,
        `${ts}:3: bad timestamp "2024-01-01 24:00" (expected ISO-8601 like 2024-01-01T00:00:00Z (no offset: UTC))`,
      );
      const unknown = fx.file('e4.csv', `${head}yesterday,1,1,1,1\n`);
      await rejects(
        unknown,
        `${unknown}:2: bad timestamp "yesterday" (expected a recognisable time: give a time format)`,
      );
      const dup = fx.file('e5.csv', `${head}2024-01-01 00:00,1,1,1,1\n2024-01-01T00:00:00Z,1,2,1,1\n`);
      await rejects(
        dup,
        `${dup}:3: conflicting duplicate: the row at 2024-01-01T00:00Z differs from the one at ${dup}:2`,
      );
      const empty = fx.file('e6.csv', head);
      await rejects(empty, `${empty}:2: no data rows (empty file)`);
    });
    it('mapping problems are named', async () => {
      const noHeader = fx.file('m1.csv', '2024-01-01 00:00,1,1,1,1\n');
      await rejects(noHeader, `${noHeader}:1: the file has no header: give a column mapping`);
      const missing = fx.file('m2.csv', 'time,price\n2024-01-01 00:00,1\n');
      await rejects(
        missing,
        `${missing}:1: the columns give neither open/high/low/close, bid and ask OHLC, nor bid and ask ticks: map them with a column mapping`,
      );
      await rejects(missing, `${missing}:1: no column "Close" in the header (for close)`, {
        columns: { time: 'time', open: 'price', high: 'price', low: 'price', close: 'Close' },
      });
      assert.throws(() => parseColumnMapping('open'), /expected key=column/);
    });
    it('bad time zone or time format', async () => {
      const path = fx.file('z.csv', 'time,open,high,low,close\n2024-01-01 00:00,1,1,1,1\n');
      await assert.rejects(
        csv(path, { tz: 'Mars/Olympus' }),
        /time zone "Mars\/Olympus": expected UTC, a fixed offset/,
      );
      await assert.rejects(csv(path, { timeFormat: 'YYYY-MM-DD hh:mm' }), /unknown token/);
    });
  });
});
