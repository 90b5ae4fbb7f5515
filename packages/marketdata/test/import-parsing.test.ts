import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { decimalStringToTicks, type QuoteTickBatch, significantDecimals } from '@hindsight/core';
import fc from 'fast-check';
import { FieldSplitter, POW10, scanDecimal, scanned } from '../src/import/fields.ts';
import {
  aggregateTicksToMinuteBars,
  describeImport,
  importFile,
  openSources,
  parseTimeZone,
  type TextSource,
} from '../src/import/index.ts';
import { forEachLine } from '../src/import/sources.ts';
import { civilToMs, parseCompact, parseDukascopyTime, parseIsoLike } from '../src/import/time.ts';
import { Fixtures } from './import-fixtures.ts';

const fx = new Fixtures();
after(() => fx.cleanup());

describe('exact decimal scanning', () => {
  it('agrees with core decimalStringToTicks / significantDecimals on any plain decimal', () => {
    const decimal = fc
      .tuple(fc.boolean(), fc.stringMatching(/^[0-9]{1,9}$/), fc.option(fc.stringMatching(/^[0-9]{1,8}$/)))
      .map(([neg, whole, frac]) => `${neg ? '-' : ''}${whole}${frac === null ? '' : `.${frac}`}`);
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 8 }), (text, extra) => {
        const mantissa = scanDecimal(text, 0, text.length);
        if (Number.isNaN(mantissa)) {
          // Too many significant digits for a safe integer: core refuses it at any scale too.
          assert.equal(decimalStringToTicks(text, significantDecimals(text)), undefined);
          return;
        }
        assert.equal(scanned.decimals, significantDecimals(text));
        const scale = scanned.decimals + extra;
        const ticks = mantissa * (POW10[extra] as number) + 0;
        assert.equal(Number.isSafeInteger(ticks) ? ticks : undefined, decimalStringToTicks(text, scale));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses what is not a plain decimal or does not fit exactly', () => {
    for (const bad of [
      '',
      '-',
      '.5',
      '5.',
      '1e5',
      '1,5',
      '+1',
      '0x10',
      '1.2.3',
      ' 1',
      '12345678901234567',
      '1.00000000000000001',
    ]) {
      assert.ok(Number.isNaN(scanDecimal(bad, 0, bad.length)), bad);
    }
    assert.equal(scanDecimal('0.10000000000000000000000', 0, 25), 1);
    assert.equal(scanDecimal('-0.000', 0, 6), 0);
    assert.equal(scanDecimal('x42.50y', 1, 6), 425);
  });

  it('splits fields, trimming blanks and one pair of quotes, counting all', () => {
    const s = new FieldSplitter(',');
    const line = 'a, "b" ,,"c,d';
    assert.equal(s.split(line, 0, line.length), 5);
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => s.field(line, i)),
      ['a', 'b', '', '"c', 'd'],
    );
    assert.equal(s.split('xx;yy', 0, 5), 1);
  });
});

describe('time parsing', () => {
  it('ISO-like, compact and Dukascopy forms', () => {
    const t = (f: (s: string, a: number, b: number) => number, s: string) => f(s, 0, s.length);
    assert.equal(t(parseIsoLike, '2024-02-29T23:59:59.5Z'), Date.parse('2024-02-29T23:59:59.500Z'));
    assert.equal(t(parseIsoLike, '2024-02-29 23:59'), Date.parse('2024-02-29T23:59:00Z'));
    assert.equal(t(parseIsoLike, '2024.02.29 23:59'), Date.parse('2024-02-29T23:59:00Z'));
    assert.equal(t(parseIsoLike, '2024-02-29'), Date.parse('2024-02-29T00:00:00Z'));
    assert.equal(t(parseIsoLike, '2024-03-01T01:00:00+0130'), Date.parse('2024-02-29T23:30:00Z'));
    assert.equal(t(parseIsoLike, '2024-03-01T01:00:00.123000-05:00'), Date.parse('2024-03-01T06:00:00.123Z'));
    for (const bad of [
      '2023-02-29',
      '2024-13-01',
      '2024-01-01T25:00',
      '2024-01-01T00:00:00.0001Z',
      '2024-01-01X',
      '24-01-01',
    ]) {
      assert.ok(Number.isNaN(t(parseIsoLike, bad)), bad);
    }
    assert.equal(t(parseCompact, '20120201 235959'), Date.parse('2012-02-01T23:59:59Z'));
    assert.equal(t(parseCompact, '20120201 235959999'), Date.parse('2012-02-01T23:59:59.999Z'));
    assert.ok(Number.isNaN(t(parseCompact, '20120201T235959')));
    assert.equal(t(parseDukascopyTime, '31.12.2019 23:59:00.000'), Date.parse('2019-12-31T23:59:00Z'));
    assert.equal(t(parseDukascopyTime, '31.12.2019 23:59:00'), Date.parse('2019-12-31T23:59:00Z'));
    assert.ok(Number.isNaN(t(parseDukascopyTime, '2019.12.31 23:59:00')));
    assert.equal(civilToMs(1970, 1, 1, 0, 0, 0, 0), 0);
    assert.equal(civilToMs(2000, 2, 29, 12, 0, 0, 0), Date.parse('2000-02-29T12:00:00Z'));
  });

  it('days-from-civil agrees with Date.UTC over two centuries', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2199, 11, 31) }), (ms) => {
        const d = new Date(ms);
        const got = civilToMs(
          d.getUTCFullYear(),
          d.getUTCMonth() + 1,
          d.getUTCDate(),
          d.getUTCHours(),
          d.getUTCMinutes(),
          d.getUTCSeconds(),
          d.getUTCMilliseconds(),
        );
        assert.equal(got, ms);
      }),
    );
  });

  it('time zones: UTC, fixed offsets, IANA with gaps and folds', () => {
    assert.equal(parseTimeZone('UTC').toUtc(1000), 1000);
    assert.equal(parseTimeZone('+02:00').toUtc(Date.UTC(2024, 0, 1, 2)), Date.UTC(2024, 0, 1));
    assert.equal(parseTimeZone('-0500').toUtc(Date.UTC(2024, 0, 1)), Date.UTC(2024, 0, 1, 5));
    assert.equal(parseTimeZone('UTC+5:30').name, '+05:30');
    const ny = parseTimeZone('America/New_York');
    assert.equal(ny.toUtc(Date.UTC(2024, 6, 1, 9, 30)), Date.UTC(2024, 6, 1, 13, 30));
    assert.equal(ny.toUtc(Date.UTC(2024, 11, 1, 9, 30)), Date.UTC(2024, 11, 1, 14, 30));
    assert.ok(Number.isNaN(ny.toUtc(Date.UTC(2024, 2, 10, 2, 30))));
    assert.equal(ny.toUtc(Date.UTC(2024, 2, 10, 3, 0)), Date.UTC(2024, 2, 10, 7, 0));
    assert.equal(ny.toUtc(Date.UTC(2024, 10, 3, 1, 30)), Date.UTC(2024, 10, 3, 5, 30));
    assert.equal(ny.ambiguous, 1);
    const lordHowe = parseTimeZone('Australia/Lord_Howe');
    assert.equal(lordHowe.toUtc(Date.UTC(2024, 5, 1, 12)), Date.UTC(2024, 5, 1, 1, 30));
    assert.throws(() => parseTimeZone('+25:00'), /out of range/);
    assert.throws(() => parseTimeZone('Nowhere/Land'), /expected UTC, a fixed offset/);
  });
});

type Tick = [number, number, number, number, number];

describe('tick aggregation', () => {
  const batch = (rows: [number, number, number, number, number][]): QuoteTickBatch => ({
    symbol: 'F:EURUSD',
    priceDecimals: 5,
    volumeDecimals: 2,
    length: rows.length,
    time: Float64Array.from(rows, (r) => r[0]),
    bid: Float64Array.from(rows, (r) => r[1]),
    ask: Float64Array.from(rows, (r) => r[2]),
    bidVolume: Float64Array.from(rows, (r) => r[3]),
    askVolume: Float64Array.from(rows, (r) => r[4]),
  });

  it('per minute: open first, high max, low min, close last per side; volume sum; no ticks, no bar', () => {
    const m = 60_000;
    const bars = aggregateTicksToMinuteBars(
      batch([
        [0, 100, 110, 1, 2],
        [1, 105, 108, 0, 5],
        [59_999, 98, 112, 10, 0],
        [59_999, 99, 111, 1, 1],
        [3 * m, 120, 125, 7, 7],
        [3 * m + 5, 121, 124, 0, 0],
      ]),
    );
    assert.equal(bars.length, 2);
    assert.deepEqual(Array.from(bars.time), [0, 3 * m]);
    assert.deepEqual(Array.from(bars.bidOpen), [100, 120]);
    assert.deepEqual(Array.from(bars.bidHigh), [105, 121]);
    assert.deepEqual(Array.from(bars.bidLow), [98, 120]);
    assert.deepEqual(Array.from(bars.bidClose), [99, 121]);
    assert.deepEqual(Array.from(bars.askOpen), [110, 125]);
    assert.deepEqual(Array.from(bars.askHigh), [112, 125]);
    assert.deepEqual(Array.from(bars.askLow), [108, 124]);
    assert.deepEqual(Array.from(bars.askClose), [111, 124]);
    assert.deepEqual(Array.from(bars.volume), [20, 14]);
    assert.equal(bars.priceDecimals, 5);
    assert.equal(bars.volumeDecimals, 2);
  });

  it('matches a direct recomputation on random sorted ticks (pre-1970 minutes too)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: -600_000, max: 600_000 }),
            fc.nat(1000),
            fc.nat(1000),
            fc.nat(9),
            fc.nat(9),
          ),
          {
            minLength: 1,
          },
        ),
        (raw) => {
          const rows = raw.sort((a, b) => a[0] - b[0]) as [number, number, number, number, number][];
          const bars = aggregateTicksToMinuteBars(batch(rows));
          const minutes = [...new Set(rows.map((r) => Math.floor(r[0] / 60_000)))];
          assert.equal(bars.length, minutes.length);
          minutes.forEach((minute, i) => {
            const group = rows.filter((r) => Math.floor(r[0] / 60_000) === minute);
            assert.equal(bars.time[i], minute * 60_000);
            assert.equal(bars.bidOpen[i], (group[0] as Tick)[1]);
            assert.equal(bars.bidClose[i], (group.at(-1) as Tick)[1]);
            assert.equal(bars.bidHigh[i], Math.max(...group.map((r) => r[1])));
            assert.equal(bars.askLow[i], Math.min(...group.map((r) => r[2])));
            assert.equal(
              bars.volume[i],
              group.reduce((s, r) => s + r[3] + r[4], 0),
            );
          });
        },
      ),
    );
  });

  it('refuses unsorted ticks', () => {
    assert.throws(
      () =>
        aggregateTicksToMinuteBars(
          batch([
            [120_000, 1, 1, 0, 0],
            [0, 1, 1, 0, 0],
          ]),
        ),
      /sorted/,
    );
  });
});

describe('sources', () => {
  it('plain, gz, zip and zst give the same lines; CRLF, BOM and lines across chunks are handled', async () => {
    const lines = Array.from({ length: 60_000 }, (_, i) => `${i},${'x'.repeat(i % 50)}`);
    const text = `\uFEFF${lines.join('\r\n')}\r\n`;
    const paths = [
      fx.file('big.csv', text),
      fx.gz('big.csv.gz', text),
      fx.zip('big.zip', { 'big.csv': text }),
      await fx.zst('big.csv.zst', text),
    ];
    for (const path of paths) {
      const [source] = await openSources(path);
      const seen: string[] = [];
      let progress = 0;
      const count = await forEachLine(
        source as TextSource,
        (t, s, e, line) => {
          assert.equal(line, seen.length + 1);
          seen.push(t.slice(s, e));
        },
        (p) => {
          assert.ok(p.bytesDone >= progress && p.bytesDone <= p.bytesTotal);
          progress = p.bytesDone;
        },
      );
      assert.equal(count, lines.length, path);
      assert.deepEqual(seen, lines, path);
      assert.ok(progress > 0);
    }
  });

  it('a UTF-8 character split across read chunks decodes intact', async () => {
    const pad = 'a'.repeat((1 << 20) - 1);
    const path = fx.file('utf8.csv', `${pad}é\nsecond\n`);
    const [source] = await openSources(path);
    const seen: string[] = [];
    await forEachLine(source as TextSource, (t, s, e) => seen.push(t.slice(s, e)));
    assert.equal((seen[0] as string).at(-1), 'é');
    assert.equal((seen[0] as string).length, pad.length + 1);
    assert.equal(seen[1], 'second');
  });

  it('refuses unreadable .zst and .zip files as a whole', async () => {
    const zst = fx.file('bad.csv.zst', 'not zstd at all');
    await assert.rejects(importFile('binance', zst, { symbol: 'X' }), {
      message: `${zst}: cannot decompress the zstd file: not zstd data (unknown frame header)`,
    });
    const zip = fx.file('bad.zip', 'PK not really');
    await assert.rejects(
      importFile('binance', zip, { symbol: 'X' }),
      /bad\.zip: cannot decompress the zip file: /,
    );
  });

  it('detects compression by content when the name does not say', async () => {
    const gz = fx.gz('klines.dat', '1704067200000,1,1,1,1,1,1704067259999,1,1,1,1,0\n');
    const r = await importFile('binance', gz, { symbol: 'X' });
    assert.equal(r.bars.length, 1);
    assert.match(
      describeImport(r),
      /^1 row -> 1 trade bar, 2024-01-01T00:00Z \.\. 2024-01-01T00:00Z, no gaps, 0 duplicates$/,
    );
  });
});
