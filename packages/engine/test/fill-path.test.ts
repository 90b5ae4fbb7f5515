import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  highFirst,
  limitFill,
  pathOf,
  type SidePrices,
  stopLimitFill,
  stopTrigger,
  trailingStopFill,
} from '../src/models/fill-path.ts';

const side = (open: number, high: number, low: number, close: number): SidePrices => ({
  open,
  high,
  low,
  close,
});
/** Ask = bid + 2 throughout, the usual shape of a quote bar. */
const ask = (b: SidePrices) => side(b.open + 2, b.high + 2, b.low + 2, b.close + 2);

describe('intrabar fill path', () => {
  it('visits the extreme nearer the open first, judged on the mid', () => {
    const up = side(100, 103, 90, 95);
    assert.equal(highFirst(up, ask(up)), true);
    assert.deepEqual(pathOf(up, true), [100, 103, 90, 95]);
    const down = side(100, 120, 98, 110);
    assert.equal(highFirst(down, ask(down)), false);
    assert.deepEqual(pathOf(ask(down), false), [102, 100, 122, 112]);
  });

  it('fills a limit crossed by a gap at the open (better), otherwise at the limit', () => {
    assert.deepEqual(limitFill('BUY', 105, [100, 103, 90, 95]), { price: 100, segment: 0 });
    assert.deepEqual(limitFill('BUY', 92, [100, 103, 90, 95]), { price: 92, segment: 2 });
    assert.equal(limitFill('BUY', 89, [100, 103, 90, 95]), undefined);
    assert.deepEqual(limitFill('SELL', 95, [100, 103, 90, 95]), { price: 100, segment: 0 });
    assert.deepEqual(limitFill('SELL', 102, [100, 103, 90, 95]), { price: 102, segment: 1 });
    assert.equal(limitFill('SELL', 104, [100, 103, 90, 95]), undefined);
  });

  it('fills a stop gapped through at the open (worse), otherwise at the stop', () => {
    assert.deepEqual(stopTrigger('SELL', 105, [100, 103, 90, 95]), { price: 100, segment: 0 });
    assert.deepEqual(stopTrigger('SELL', 95, [100, 103, 90, 95]), { price: 95, segment: 2 });
    assert.equal(stopTrigger('SELL', 89, [100, 103, 90, 95]), undefined);
    assert.deepEqual(stopTrigger('BUY', 98, [100, 103, 90, 95]), { price: 100, segment: 0 });
    assert.deepEqual(stopTrigger('BUY', 102, [100, 103, 90, 95]), { price: 102, segment: 1 });
  });

  it('rests a stop-limit from its trigger point on', () => {
    // Buy stop 102 triggers on the way up at 102; limit 101 is then reached on the way down to 90.
    assert.deepEqual(stopLimitFill('BUY', 102, 101, [100, 103, 90, 95]), {
      trigger: { price: 102, segment: 1 },
      fill: { price: 101, segment: 2 },
    });
    // A limit at or above the trigger price fills at the trigger.
    assert.deepEqual(stopLimitFill('BUY', 102, 104, [100, 103, 90, 95])?.fill, { price: 102, segment: 1 });
    // Triggered but never back to the limit: the order rests as a limit.
    assert.deepEqual(stopLimitFill('BUY', 102, 89, [100, 103, 90, 95]), {
      trigger: { price: 102, segment: 1 },
    });
  });

  it('ratchets a trailing stop with the best price and triggers only against the position', () => {
    const distance = 5;
    const sellStop = (best: number) => best - distance;
    // Best 100 -> 103 on the way up (stop 98), then the fall to 90 crosses 98.
    assert.deepEqual(trailingStopFill('SELL', 100, sellStop, [100, 103, 90, 95]), {
      fill: { price: 98, segment: 2 },
      best: 103,
    });
    // A bar that never falls 5 below its best only moves the best.
    assert.deepEqual(trailingStopFill('SELL', 100, sellStop, [100, 99, 104, 101]), { best: 104 });
    // Gapping below the stop fills at the open.
    assert.deepEqual(trailingStopFill('SELL', 110, sellStop, [100, 103, 90, 95]).fill, {
      price: 100,
      segment: 0,
    });
    const buyStop = (best: number) => best + distance;
    assert.deepEqual(trailingStopFill('BUY', 100, buyStop, [100, 90, 103, 95]), {
      fill: { price: 95, segment: 2 },
      best: 90,
    });
  });
});
