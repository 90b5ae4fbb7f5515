import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Dec, ticksToDecimalString, toDecimalString } from '../src/index.ts';

describe('ticksToDecimalString', () => {
  it('writes the canonical decimal of ticks / 10^decimals for every safe integer', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer(),
          fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
          fc.integer({ min: -1000, max: 1000 }),
        ),
        fc.integer({ min: 0, max: 20 }),
        (ticks, decimals) => {
          const expected = toDecimalString(new Dec(ticks).div(new Dec(10).pow(decimals)));
          assert.equal(ticksToDecimalString(ticks, decimals), expected);
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 1000) },
    );
  });

  it('handles the edges of the fast split', () => {
    const cases: [number, number, string][] = [
      [0, 3, '0'],
      [-0, 2, '0'],
      [5, 3, '0.005'],
      [-1500, 4, '-0.15'],
      [4200000, 2, '42000'],
      [Number.MAX_SAFE_INTEGER, 15, '9.007199254740991'],
      [Number.MAX_SAFE_INTEGER - 1, 1, '900719925474099'],
      [999999999999999, 15, '0.999999999999999'],
    ];
    for (const [ticks, decimals, text] of cases) assert.equal(ticksToDecimalString(ticks, decimals), text);
  });
});
