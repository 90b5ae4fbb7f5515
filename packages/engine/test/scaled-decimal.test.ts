import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import fc from 'fast-check';
import { Exact } from '../src/account/exact.ts';
import {
  absolute,
  add,
  compare,
  fitsDec,
  multiply,
  scaledApprox,
  scaledOf,
  scaledOfText,
  scaledText,
  scaledTicks,
  subtract,
} from '../src/account/scaled-decimal.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);

/** Decimal strings from tiny to large, negative, with trailing zeros in the fraction. */
const decimal = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 25n }), fc.integer({ min: 0, max: 30 }))
  .map(([negative, digits, scale]) => {
    const text = digits.toString().padStart(scale + 1, '0');
    const whole = text.slice(0, text.length - scale);
    const fraction = text.slice(text.length - scale);
    return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
  });

describe('scaled decimals (exact BigInt arithmetic for sampled points)', () => {
  it('write the canonical text of the decimal they hold', () => {
    fc.assert(
      fc.property(decimal, (text) => {
        assert.equal(scaledText(scaledOf(new Dec(text))), toDecimalString(text));
      }),
      { numRuns: RUNS },
    );
    assert.equal(scaledText(scaledTicks(0, 5)), '0');
    assert.equal(scaledText(scaledTicks(-1500, 4)), '-0.15');
    assert.equal(scaledText(scaledTicks(4200000, 2)), '42000');
  });

  it('add, subtract and multiply exactly, as the books do in the wide decimal', () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const x = scaledOf(new Dec(a));
        const y = scaledOf(new Dec(b));
        assert.equal(scaledText(add(x, y)), toDecimalString(new Exact(a).plus(b)));
        assert.equal(scaledText(subtract(x, y)), toDecimalString(new Exact(a).minus(b)));
        assert.equal(scaledText(multiply(x, y)), toDecimalString(new Exact(a).times(b)));
        assert.equal(scaledText(absolute(x)), toDecimalString(new Exact(a).abs()));
      }),
      { numRuns: RUNS },
    );
  });

  it('read plain decimal texts (trailing zeros and all) as the decimals they write', () => {
    fc.assert(
      fc.property(decimal, (text) => {
        assert.equal(scaledText(scaledOfText(text)), toDecimalString(text));
        assert.ok(
          Math.abs(scaledApprox(scaledOfText(text)) - Number(text)) <= 1e-12 * Math.abs(Number(text)),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('compare as the decimals compare', () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        assert.equal(compare(scaledOfText(a), scaledOfText(b)), new Dec(a).comparedTo(b));
        assert.equal(compare(scaledOfText(a), scaledOfText(a)), 0);
      }),
      { numRuns: RUNS },
    );
  });

  it('say a number fits Dec only when its 60 significant digits hold it', () => {
    assert.equal(fitsDec(scaledOf(new Dec(`${'9'.repeat(30)}.${'9'.repeat(30)}`))), true);
    assert.equal(fitsDec(scaledOf(new Exact(`${'9'.repeat(31)}.${'9'.repeat(30)}`))), false);
  });
});
