import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import { InstrumentMatcher, type MatcherBar } from '../src/matching/instrument-matcher.ts';

/** A bar in cents (2 decimals): bid given, ask = bid + 2 cents. */
function bar(open: number, high: number, low: number, close: number): MatcherBar {
  const bid = { open, high, low, close };
  return { priceDecimals: 2, bid, ask: { open: open + 2, high: high + 2, low: low + 2, close: close + 2 } };
}
const price = (fill: { price: Dec } | undefined) => (fill ? toDecimalString(fill.price) : undefined);

describe('instrument matcher', () => {
  it('reports fills in path order with pre-slippage prices, leaving removal to the engine', () => {
    const m = new InstrumentMatcher('C:BTCUSD');
    m.add({ id: 'sell-stop', direction: 'SELL', kind: 'STOP', stop: new Dec('95.00') });
    m.add({ id: 'sell-limit', direction: 'SELL', kind: 'LIMIT', limit: new Dec('102.00') });
    m.add({ id: 'buy-limit', direction: 'BUY', kind: 'LIMIT', limit: new Dec('50') });
    // Bid path 100.00 -> 103.00 -> 90.00 -> 95.00 (high nearer the open).
    const { fills } = m.onBar(bar(10000, 10300, 9000, 9500));
    assert.deepEqual(
      fills.map((f) => [f.orderId, price(f), f.segment]),
      [
        ['sell-limit', '102', 1],
        ['sell-stop', '95', 2],
      ],
    );
    // A fill may be limited by volume, so the engine removes what it filled whole.
    assert.equal(m.size, 3);
    m.remove('sell-limit');
    m.remove('sell-stop');
    assert.deepEqual(m.ids(), ['buy-limit']);
  });

  it('fills a resting market remainder at the next bar open', () => {
    const m = new InstrumentMatcher('C:BTCUSD');
    m.add({ id: 'rest', direction: 'BUY', kind: 'MARKET' });
    assert.deepEqual(
      m.onBar(bar(10000, 10300, 9000, 9500)).fills.map((f) => [price(f), f.segment]),
      [['100.02', 0]],
    );
  });

  it('compares order prices finer than the data exactly', () => {
    const m = new InstrumentMatcher('F:EURUSD');
    m.add({ id: 'b', direction: 'BUY', kind: 'LIMIT', limit: new Dec('90.025') });
    // Ask path 100.02 -> 103.02 -> 90.02 -> 95.02: 90.02 <= 90.025, fills at the limit.
    assert.equal(price(m.onBar(bar(10000, 10300, 9000, 9500)).fills[0]), '90.025');
    m.remove('b');
    m.add({ id: 'c', direction: 'BUY', kind: 'LIMIT', limit: new Dec('90.015') });
    assert.equal(m.onBar(bar(10000, 10300, 9000, 9500)).fills.length, 0);
  });

  it('keeps a triggered stop-limit resting as a limit for later bars', () => {
    const m = new InstrumentMatcher('S:SPY');
    m.add({ id: 'sl', direction: 'BUY', kind: 'STOP_LIMIT', stop: new Dec('103.02'), limit: new Dec('98') });
    const first = m.onBar(bar(10000, 10300, 9900, 10200));
    assert.deepEqual(first, { fills: [], triggered: ['sl'] });
    const second = m.onBar(bar(9900, 9950, 9500, 9600));
    assert.deepEqual(
      second.fills.map((f) => [f.orderId, price(f)]),
      [['sl', '98']],
    );
  });

  it('carries a trailing stop best price across bars', () => {
    const m = new InstrumentMatcher('C:BTCUSD');
    m.add({
      id: 't',
      direction: 'SELL',
      kind: 'TRAILING_STOP',
      trailing: { type: 'ABSOLUTE', distance: new Dec('5'), best: new Dec('100') },
    });
    assert.equal(m.onBar(bar(10000, 10800, 10400, 10600)).fills.length, 0);
    assert.equal(toDecimalString(m.get('t')?.trailing?.best as Dec), '108');
    const { fills } = m.onBar(bar(10500, 10600, 10000, 10100));
    assert.equal(price(fills[0]), '103');
  });

  it('rounds a percentage trailing stop away from the market', () => {
    const m = new InstrumentMatcher('C:BTCUSD');
    m.add({
      id: 'p',
      direction: 'SELL',
      kind: 'TRAILING_STOP',
      trailing: { type: 'PERCENT', distance: new Dec('1.5'), best: new Dec('100.33') },
    });
    // 1.5% below 100.33 is 98.82505, rounded down to 98.82 at the data's cents.
    const { fills } = m.onBar(bar(10000, 10010, 9800, 9900));
    assert.equal(price(fills[0]), '98.82');
  });
});
