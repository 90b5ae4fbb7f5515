import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildResultFiles,
  buildTradesFile,
  canonicalJson,
  closeLot,
  encodeResultFile,
  encodeResultFiles,
  formatTradeId,
  openLot,
  sampleTimeseries,
  type TradeLot,
} from '../src/index.ts';

const start = Date.parse('2024-03-01T00:00:00Z');
const HOUR = 3_600_000;
const end = start + 48 * HOUR;

function trades(): TradeLot[] {
  const a = openLot({
    id: formatTradeId(1),
    instrumentSymbol: 'C:ETHUSD',
    direction: 'Long',
    units: '2',
    openPrice: '3000',
    baseOpenPrice: '3000',
    openSlippageBps: '0',
    entryCommission: '0.6',
    openedAt: start + HOUR,
    openedByOrderId: 'o1',
  });
  const b = openLot({
    id: formatTradeId(2),
    instrumentSymbol: 'C:BTCUSD',
    direction: 'Short',
    units: '0.1',
    openPrice: '60000',
    entryCommission: '0.6',
    openedAt: start + 2 * HOUR,
    openedByOrderId: 'o2',
  });
  const aClosed = closeLot(a, {
    closePrice: '3100',
    exitCommission: '0.62',
    closedAt: start + 30 * HOUR,
    closedByOrderId: 'o3',
    realizedPnl: '200',
    closeReason: 'Normal',
  });
  // Deliberately out of id order.
  return [b, aClosed];
}

function timeseries() {
  return sampleTimeseries({ startTime: start, endTime: end, initialCapital: '10000' }, [
    { time: start + HOUR, balance: '9999.4', nav: '9999.4', marginUsed: '600', changed: true },
    { time: start + 2 * HOUR, balance: '9998.8', nav: '9998.8', marginUsed: '1200', changed: true },
    { time: start + 30 * HOUR, balance: '10198.18', nav: '10150.18', marginUsed: '600', changed: true },
    { time: end, balance: '10198.18', nav: '10120.18', marginUsed: '600' },
  ]);
}

const run = () =>
  buildResultFiles({
    engineVersion: '0.1.0',
    startTime: start,
    endTime: end,
    initialCapital: '10000',
    allCrypto: true,
    timeseries: timeseries(),
    trades: trades(),
  });

describe('result files', () => {
  it('sorts the trades file by id and keeps open lots without close fields', () => {
    const file = buildTradesFile(trades());
    assert.deepEqual(
      file.trades.map((t) => t.id),
      ['000000001', '000000002'],
    );
    const open = file.trades[1] as TradeLot;
    assert.equal(open.state, 'Open');
    assert.equal(
      Object.keys(open).some((k) => k.startsWith('close') || k === 'realized_pnl' || k === 'exit_commission'),
      false,
    );
    assert.throws(() => buildTradesFile([open, open]), RangeError);
  });

  it('builds metadata from the sampled series and the metrics', () => {
    const { metadata, metrics, timeseries: ts } = run();
    assert.deepEqual(metadata, {
      formatVersion: 1,
      engineVersion: '0.1.0',
      currency: 'USD',
      startTime: start,
      endTime: end,
      initialCapital: '10000',
      finalBalance: '10198.18',
      finalNav: '10120.18',
      finalMarginUsed: '600',
      netPnl: '120.18',
      totalReturn: metrics.totalReturn,
      maxDrawdownPct: metrics.maxDrawdownPct,
      totalCommission: '1.82',
      totalTrades: 1,
      openTrades: 1,
      tradingDaysPerYear: 365,
      timeseriesPoints: ts.timestamps.length,
    });
    // Entry fees of the open lot count (decision: totalCommission across all trades).
    assert.equal(metrics.totalCommission, '1.82');
    assert.equal(metrics.grossPnl, '122');
    assert.equal(metrics.totalReturn, 1.2018);
    assert.equal(ts.timestamps[0], start);
    assert.equal(ts.nav[0], '10000');
  });

  it('encodes byte-identical output for identical input', () => {
    const first = encodeResultFiles(run());
    const second = encodeResultFiles(run());
    for (const name of ['metadata', 'timeseries', 'trades'] as const) {
      assert.ok(first[name] instanceof Uint8Array);
      assert.deepEqual(Buffer.from(first[name]), Buffer.from(second[name]), name);
    }
    assert.deepEqual(JSON.parse(Buffer.from(first.trades).toString('utf8')), buildTradesFile(trades()));
  });

  it('sorts keys at every level, whatever the insertion order', () => {
    const a = { b: 1, a: [{ y: '2', x: null }], c: { e: true, d: 'é' } };
    const b = { c: { d: 'é', e: true }, a: [{ x: null, y: '2' }], b: 1 };
    const text = '{"a":[{"x":null,"y":"2"}],"b":1,"c":{"d":"é","e":true}}';
    assert.equal(canonicalJson(a), text);
    assert.deepEqual(encodeResultFile(a), encodeResultFile(b));
    assert.deepEqual(Buffer.from(encodeResultFile(a)), Buffer.from(text, 'utf8'));
  });

  it('writes the timeseries file as the four spec arrays', () => {
    const text = Buffer.from(encodeResultFile(timeseries())).toString('utf8');
    const parsed = JSON.parse(text);
    assert.deepEqual(Object.keys(parsed), ['margin_used', 'nav', 'timestamps', 'units']);
    assert.ok(parsed.timestamps.every((t: unknown) => Number.isInteger(t)));
    assert.ok(parsed.nav.every((v: unknown) => typeof v === 'string'));
  });

  it('drops undefined properties, writes -0 as 0 and refuses non-JSON values', () => {
    assert.equal(canonicalJson({ a: undefined, b: -0 }), '{"b":0}');
    assert.throws(() => canonicalJson({ a: Number.NaN }), RangeError);
    assert.throws(() => canonicalJson({ a: Number.POSITIVE_INFINITY }), RangeError);
    assert.throws(() => canonicalJson({ a: 1n }), TypeError);
    assert.throws(() => canonicalJson([undefined]), TypeError);
    assert.throws(() => canonicalJson({ a: new Map() }), TypeError);
  });

  it('names where a refused value is, at any depth', () => {
    assert.equal(canonicalJson([-0, 'x', [1.5, null, true]]), '[0,"x",[1.5,null,true]]');
    assert.throws(() => canonicalJson({ a: [1, { b: ['2', Number.NaN] }] }), {
      name: 'RangeError',
      message: '$.a[1].b[1]: NaN is not representable in JSON',
    });
    assert.throws(() => canonicalJson([[0], [1, undefined]]), {
      name: 'TypeError',
      message: '$[1][1]: undefined is not representable in JSON',
    });
    assert.throws(() => canonicalJson({ z: { y: new Date(0) } }), {
      name: 'TypeError',
      message: '$.z.y: only plain objects are allowed',
    });
    // biome-ignore lint/suspicious/noSparseArray: a hole is refused, not skipped
    assert.throws(() => canonicalJson([1, , 3]), { message: '$[1]: undefined is not representable in JSON' });
    assert.throws(() => canonicalJson(Number.NEGATIVE_INFINITY), {
      message: '$: -Infinity is not representable in JSON',
    });
  });
});
