import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ImportError, importFile, importFiles, type TradeImportResult } from '../src/import/index.ts';
import { decimals, Fixtures } from './import-fixtures.ts';

const fx = new Fixtures();
after(() => fx.cleanup());

const HEADER =
  'open_time,open,high,low,close,volume,close_time,quote_volume,trades,taker_buy_base,taker_buy_quote,ignore\n';
const T0 = 1704067200000; // 2024-01-01T00:00:00Z

/** A kline line at minute m (ms timestamps unless us). */
function kline(m: number, o: string, h: string, l: string, c: string, v: string, us = false): string {
  const open = T0 + m * 60_000;
  const [ot, ct] = us ? [`${open}000`, `${open + 59_999}999`] : [`${open}`, `${open + 59_999}`];
  return `${ot},${o},${h},${l},${c},${v},${ct},1000.0,10,1.0,500.0,0`;
}

const ROWS = [
  kline(0, '42283.58000000', '42298.62000000', '42261.02000000', '42298.61000000', '35.92724000'),
  kline(1, '42298.62000000', '42320.00000000', '42298.61000000', '42320.00000000', '21.16779000'),
  kline(2, '42320.00000000', '42330.50000000', '42300.00000000', '42301.10000000', '0.00100000'),
];

async function trade(path: string | string[]): Promise<TradeImportResult> {
  const result = await importFiles('binance', Array.isArray(path) ? path : [path], { symbol: 'C:BTCUSD' });
  assert.equal(result.kind, 'trade');
  return result as TradeImportResult;
}

async function rejects(path: string, message: string): Promise<void> {
  await assert.rejects(importFile('binance', path, { symbol: 'C:BTCUSD' }), (error: unknown) => {
    assert.ok(error instanceof ImportError, String(error));
    assert.equal(error.message, message);
    return true;
  });
}

describe('binance importer', () => {
  it('reads klines with a header: exact prices at the file scale, base volume', async () => {
    const r = await trade(fx.file('h.csv', HEADER + ROWS.join('\n')));
    assert.equal(r.bars.length, 3);
    assert.equal(r.bars.priceDecimals, 2);
    assert.equal(r.bars.volumeDecimals, 5);
    assert.deepEqual(Array.from(r.bars.time), [T0, T0 + 60_000, T0 + 120_000]);
    assert.deepEqual(Array.from(r.bars.open), [4228358, 4229862, 4232000]);
    assert.deepEqual(decimals(r.bars.high, 2), ['42298.62', '42320', '42330.5']);
    assert.deepEqual(decimals(r.bars.close, 2), ['42298.61', '42320', '42301.1']);
    assert.deepEqual(Array.from(r.bars.volume), [3592724, 2116779, 100]);
    assert.equal(r.bars.symbol, 'C:BTCUSD');
    assert.equal(r.priceSide, 'trade');
    assert.deepEqual(r.summary, {
      rows: 3,
      bars: 3,
      first: T0,
      last: T0 + 120_000,
      duplicates: 0,
      gaps: { count: 0, largestMs: 0 },
      outOfOrder: 0,
    });
  });

  it('reads klines without a header, and microsecond timestamps (2025+ spot files)', async () => {
    const plain = await trade(fx.file('n.csv', `${ROWS.join('\n')}\n`));
    const micro = ROWS.map((_, i) =>
      kline(
        i,
        ...((ROWS[i] as string).split(',').slice(1, 6) as [string, string, string, string, string]),
        true,
      ),
    );
    const us = await trade(fx.file('us.csv', micro.join('\r\n')));
    assert.deepEqual(us.bars, plain.bars);
    assert.equal(((micro[0] as string).split(',')[0] as string).length, 16);
  });

  it('reads .gz and .zip (every CSV member) variants to the same bars', async () => {
    const plain = await trade(fx.file('p.csv', HEADER + ROWS.join('\n')));
    const gz = await trade(fx.gz('p.csv.gz', HEADER + ROWS.join('\n')));
    assert.deepEqual(gz.bars, plain.bars);
    const zip = await trade(
      fx.zip('p.zip', {
        'a.csv': ROWS.slice(0, 2).join('\n'),
        'b.csv': ROWS[2] as string,
        'readme.txt': 'not data',
      }),
    );
    assert.deepEqual(zip.bars, plain.bars);
    assert.deepEqual(
      zip.sources.map((s) => s.split('!')[1]),
      ['a.csv', 'b.csv'],
    );
  });

  it('rescales earlier rows when a finer price appears later', async () => {
    const r = await trade(
      fx.file(
        'scale.csv',
        [kline(0, '10', '12', '9', '11', '1'), kline(1, '11', '11.125', '10.5', '11.1', '2.5')].join('\n'),
      ),
    );
    assert.equal(r.bars.priceDecimals, 3);
    assert.equal(r.bars.volumeDecimals, 1);
    assert.deepEqual(Array.from(r.bars.open), [10000, 11000]);
    assert.deepEqual(Array.from(r.bars.high), [12000, 11125]);
    assert.deepEqual(Array.from(r.bars.volume), [10, 25]);
  });

  it('sorts out-of-order rows, keeps gaps as gaps, drops identical duplicates', async () => {
    const text = [ROWS[2], ROWS[0], kline(10, '1', '1', '1', '1', '0'), ROWS[0], ROWS[1]].join('\n');
    const r = await trade(fx.file('ooo.csv', text));
    assert.deepEqual(
      Array.from(r.bars.time, (t) => (t - T0) / 60_000),
      [0, 1, 2, 10],
    );
    assert.equal(r.summary.rows, 5);
    assert.equal(r.summary.bars, 4);
    assert.equal(r.summary.duplicates, 1);
    assert.equal(r.summary.outOfOrder, 2);
    assert.deepEqual(r.summary.gaps, { count: 1, largestMs: 7 * 60_000 });
  });

  it('is idempotent: the same file twice, or overlapping files, give the same bars', async () => {
    const a = fx.file('a.csv', HEADER + ROWS.slice(0, 2).join('\n'));
    const b = fx.file('b.csv', ROWS.slice(1).join('\n'));
    const all = fx.file('all.csv', ROWS.join('\n'));
    const once = await trade(all);
    const again = await trade(all);
    assert.deepEqual(again.bars, once.bars);
    const twice = await trade([all, all]);
    assert.deepEqual(twice.bars, once.bars);
    assert.equal(twice.summary.duplicates, 3);
    const overlapping = await trade([b, a]);
    assert.deepEqual(overlapping.bars, once.bars);
    assert.equal(overlapping.summary.duplicates, 1);
    assert.equal(overlapping.summary.outOfOrder, 0);
  });

  describe('refuses a malformed file as a whole, naming file, line and reason', () => {
    it('bad column count', async () => {
      const path = fx.file(
        'cols.csv',
        `${HEADER}${ROWS[0]}\n${(ROWS[1] as string).split(',').slice(0, 11).join(',')}\n`,
      );
      await rejects(path, `${path}:3: expected 12 columns, got 11`);
    });
    it('bad number', async () => {
      const path = fx.file(
        'num.csv',
        [ROWS[0], (ROWS[1] as string).replace('42320.00000000,42298.61', '4232O.00,42298.61')].join('\n'),
      );
      await rejects(path, `${path}:2: bad number "4232O.00" in high`);
      const exp = fx.file(
        'exp.csv',
        [ROWS[0], (ROWS[1] as string).replace('21.16779000', '2.1e1')].join('\n'),
      );
      await rejects(exp, `${exp}:2: bad number "2.1e1" in volume`);
      const empty = fx.file(
        'empty-field.csv',
        [ROWS[0], (ROWS[1] as string).replace('21.16779000', '')].join('\n'),
      );
      await rejects(empty, `${empty}:2: empty volume`);
    });
    it('bad timestamp', async () => {
      const path = fx.file(
        'ts.csv',
        `${HEADER}${ROWS[0]}\n\n${(ROWS[1] as string).replace(/^\d+/, '170406726')}`,
      );
      await rejects(
        path,
        `${path}:4: bad timestamp "170406726" (expected epoch milliseconds (13 digits) or microseconds (16 digits))`,
      );
      const odd = fx.file('odd.csv', (ROWS[0] as string).replace(/^\d+/, String(T0 + 1)));
      await rejects(odd, `${odd}:1: bar time 2024-01-01T00:00:00.001Z is not on a whole minute`);
    });
    it('not a 1m kline', async () => {
      const path = fx.file(
        '1h.csv',
        (ROWS[0] as string).replace(String(T0 + 59_999), String(T0 + 3_599_999)),
      );
      await rejects(
        path,
        `${path}:1: close_time ${T0 + 3_599_999} is not open_time + 59.999 s: only 1m klines can be imported`,
      );
    });
    it('inconsistent OHLC', async () => {
      const path = fx.file('ohlc.csv', kline(0, '10', '9', '8', '9', '1'));
      await rejects(path, `${path}:1: inconsistent bar: high must be >= and low <= open and close`);
    });
    it('conflicting duplicate, naming both lines', async () => {
      const path = fx.file(
        'dup.csv',
        [ROWS[0], ROWS[1], (ROWS[0] as string).replace('35.92724000', '35.9')].join('\n'),
      );
      await rejects(
        path,
        `${path}:3: conflicting duplicate: the row at 2024-01-01T00:00Z differs from the one at ${path}:1`,
      );
    });
    it('conflicting duplicate across files', async () => {
      const a = fx.file('x1.csv', ROWS[0] as string);
      const b = fx.file('x2.csv', `${HEADER}${(ROWS[0] as string).replace('42261.02', '42261.03')}`);
      await assert.rejects(importFiles('binance', [a, b], { symbol: 'X' }), {
        message: `${b}:2: conflicting duplicate: the row at 2024-01-01T00:00Z differs from the one at ${a}:1`,
      });
    });
    it('empty file, header only', async () => {
      const empty = fx.file('empty.csv', '');
      await rejects(empty, `${empty}:1: no data rows (empty file)`);
      const header = fx.file('header.csv', HEADER);
      await rejects(header, `${header}:2: no data rows (empty file)`);
    });
    it('a value too precise to be exact', async () => {
      const path = fx.file('digits.csv', kline(0, '1.0000000000000001', '2', '1', '1', '1'));
      await rejects(path, `${path}:1: open "1.0000000000000001" has too many digits to be exact`);
    });
    it('corrupt archives', async () => {
      const gz = fx.file('bad.csv.gz', 'this is not gzip');
      await rejects(
        gz,
        `${gz}: cannot decompress the gzip file: the data is corrupt or not gzip (incorrect header check)`,
      );
      const truncated = fx.file('cut.csv.gz', gzipSync(Buffer.from(ROWS.join('\n'))).subarray(0, 40));
      await rejects(
        truncated,
        `${truncated}: cannot decompress the gzip file: the data is truncated (unexpected end of file)`,
      );
      const zip = fx.zip('nocsv.zip', { 'notes.txt': 'x' });
      await rejects(zip, `${zip}: no CSV member in the zip (members: notes.txt)`);
      await rejects(
        `${fx.dir}/missing.csv`,
        `${fx.dir}/missing.csv: cannot read: ENOENT: no such file or directory, stat '${fx.dir}/missing.csv'`,
      );
    });
  });
});
