import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { type TradeBarBatch, ticksToDecimalString } from '@hindsight/core';
import { deriveBidAsk, spreadFactors } from '../src/index.ts';

function trade(prices: number[], priceDecimals: number): TradeBarBatch {
  const n = prices.length;
  const col = () => Float64Array.from(prices);
  return {
    symbol: 'C:TEST',
    priceDecimals,
    volumeDecimals: 0,
    length: n,
    time: Float64Array.from(prices, (_, i) => i * 60_000),
    open: col(),
    high: col(),
    low: col(),
    close: col(),
    volume: new Float64Array(n),
  };
}

describe('spread derivation', () => {
  test('half_spread_bps 0.5 on 42283.58 gives exact bid 42281.465821 and ask 42285.694179', () => {
    const bars = deriveBidAsk(trade([4228358], 2), { kind: 'half_spread_bps', value: '0.5' });
    assert.equal(bars.priceDecimals, 2 + 1 + 4);
    assert.equal(ticksToDecimalString(bars.bidClose[0] as number, bars.priceDecimals), '42281.465821');
    assert.equal(ticksToDecimalString(bars.askClose[0] as number, bars.priceDecimals), '42285.694179');
    for (const c of ['bidOpen', 'bidHigh', 'bidLow'] as const) assert.equal(bars[c][0], bars.bidClose[0]);
    for (const c of ['askOpen', 'askHigh', 'askLow'] as const) assert.equal(bars[c][0], bars.askClose[0]);
  });

  test('more values: integer bps, fractional bps, negative prices, 8-decimal prices', () => {
    const cases: Array<[string, number, number, string, string]> = [
      // [v, price ticks, price decimals, bid, ask]
      ['1', 10000, 2, '99.99', '100.01'],
      ['2.5', 1138686, 6, '1.1384013285', '1.1389706715'],
      ['10', -5000, 0, '-4995', '-5005'],
      ['0.25', 12345678, 8, '0.1234536935805', '0.1234598664195'],
      ['0', 4228358, 2, '42283.58', '42283.58'],
    ];
    for (const [v, price, decimals, bid, ask] of cases) {
      const bars = deriveBidAsk(trade([price], decimals), { kind: 'half_spread_bps', value: v });
      assert.equal(
        ticksToDecimalString(bars.bidOpen[0] as number, bars.priceDecimals),
        bid,
        `bid ${v} ${price}`,
      );
      assert.equal(
        ticksToDecimalString(bars.askOpen[0] as number, bars.priceDecimals),
        ask,
        `ask ${v} ${price}`,
      );
    }
  });

  test('zero: bid = ask = price, same decimals, no copy', () => {
    const input = trade([100, 101], 1);
    const bars = deriveBidAsk(input, { kind: 'zero' });
    assert.equal(bars.priceDecimals, 1);
    assert.equal(bars.bidOpen, input.open);
    assert.equal(bars.askClose, input.close);
    assert.equal(bars.volume, input.volume);
  });

  test('refuses results that would leave safe integers, and bad values', () => {
    assert.throws(
      () => deriveBidAsk(trade([2 ** 40], 2), { kind: 'half_spread_bps', value: '0.5' }),
      RangeError,
    );
    for (const value of ['-1', '10000', 'abc', '1e-3', ' 1']) {
      assert.throws(() => spreadFactors({ kind: 'half_spread_bps', value }), RangeError, value);
    }
    assert.deepEqual(spreadFactors({ kind: 'half_spread_bps', value: '0.50' }), {
      extraDecimals: 5,
      bidFactor: 99995,
      askFactor: 100005,
    });
  });
});

describe('batch shape', () => {
  // The engine reads a batch's columns for every replayed bar: batches that each had a hidden class of
  // their own (as object spreads gave them) made those reads megamorphic, about a fifth of an idle run.
  test('derived and decoded bid/ask batches share one hidden class (checked with V8 natives)', () => {
    const src = new URL('../src/index.ts', import.meta.url).href;
    const script = `
      import { deriveBidAsk, encodeBarChunk, decodeBarChunk, ensureZstd } from ${JSON.stringify(src)};
      await ensureZstd();
      const trade = (p) => ({ symbol: 'C:T', priceDecimals: p, volumeDecimals: 0, length: 2,
        time: Float64Array.of(0, 60000), open: Float64Array.of(10, 11), high: Float64Array.of(12, 13),
        low: Float64Array.of(9, 10), close: Float64Array.of(11, 12), volume: Float64Array.of(1, 2) });
      const a = deriveBidAsk(trade(2), { kind: 'half_spread_bps', value: '0.5' });
      const b = deriveBidAsk(trade(3), { kind: 'half_spread_bps', value: '1' });
      const z = deriveBidAsk(trade(2), { kind: 'zero' });
      const d = decodeBarChunk(encodeBarChunk(a), 'C:T');
      const e = decodeBarChunk(encodeBarChunk(b), 'C:T');
      console.log(JSON.stringify([%HaveSameMap(a, b), %HaveSameMap(a, z), %HaveSameMap(a, d), %HaveSameMap(d, e)]));
    `;
    const out = execFileSync(
      process.execPath,
      [
        '--allow-natives-syntax',
        '--conditions=source',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ],
      { encoding: 'utf8' },
    );
    assert.deepEqual(JSON.parse(out), [true, true, true, true]);
  });
});
