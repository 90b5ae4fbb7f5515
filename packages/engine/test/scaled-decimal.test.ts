import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import fc from 'fast-check';
import { Exact } from '../src/numbers/exact.ts';
import { flatText } from '../src/numbers/flat-text.ts';
import {
  absolute,
  add,
  compare,
  DecSum,
  divide,
  fitsDec,
  multiply,
  RecentText,
  type Scaled,
  scaledApprox,
  scaledOf,
  scaledOfText,
  scaledText,
  scaledTicks,
  shareOf,
  subtract,
} from '../src/numbers/scaled-decimal.ts';
import { TickQuote } from '../src/numbers/tick-quote.ts';
import { proRata } from '../src/positions/position-book.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);

/** Decimal strings of up to `digits` digits, `maxScale` of them in the fraction (trailing zeros too). */
const decimals = (digits: bigint, maxScale: number) =>
  fc
    .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** digits }), fc.integer({ min: 0, max: maxScale }))
    .map(([negative, value, scale]) => {
      const text = value.toString().padStart(scale + 1, '0');
      const whole = text.slice(0, text.length - scale);
      const fraction = text.slice(text.length - scale);
      return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
    });

/** Decimal strings from tiny to large, negative, with trailing zeros in the fraction. */
const decimal = decimals(25n, 30);

/** Up to 70 digits: sums, products and quotients that `Dec` must round. */
const longDecimal = decimals(70n, 40);

/** Divisors whose quotients often terminate: 2^i x 5^j x a small factor, at a scale. */
const divisor = fc
  .tuple(
    fc.integer({ min: 0, max: 40 }),
    fc.integer({ min: 0, max: 40 }),
    fc.constantFrom(1n, 1n, 3n, 7n, 9n),
    fc.integer({ min: 0, max: 12 }),
  )
  .map(([i, j, k, scale]) => scaledText({ value: 2n ** BigInt(i) * 5n ** BigInt(j) * k, scale }));

const anyDecimal = fc.oneof(decimal, longDecimal);
const nonZero = (text: string) => !new Dec(text).isZero();

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

  it('divide as Dec divides (exact quotients in BigInt, the others rounded by decimal.js)', () => {
    fc.assert(
      fc.property(anyDecimal, fc.oneof(divisor, anyDecimal.filter(nonZero)), (a, b) => {
        const quotient = divide(scaledOfText(a), scaledOfText(b));
        assert.equal(scaledText(quotient), toDecimalString(new Dec(a).div(b)));
      }),
      { numRuns: RUNS },
    );
    assert.equal(scaledText(divide(scaledOfText('1'), scaledOfText('3'))), `0.${'3'.repeat(60)}`);
    assert.equal(scaledText(divide(scaledOfText('-2.5'), scaledOfText('0.04'))), '-62.5');
    assert.equal(
      scaledText(divide(scaledOfText('1'), scaledOfText(`${'1'.repeat(64)}`))),
      toDecimalString(new Dec(1).div('1'.repeat(64))),
    );
    assert.throws(() => divide(scaledOfText('1'), scaledOfText('0.00')), RangeError);
  });

  it('share a total as Dec computes total x weight / sum', () => {
    fc.assert(
      fc.property(
        anyDecimal,
        anyDecimal,
        fc.oneof(divisor, anyDecimal.filter(nonZero)),
        (total, weight, sum) => {
          const share = shareOf(scaledOfText(total), scaledOfText(weight), scaledOfText(sum));
          assert.equal(scaledText(share), toDecimalString(new Dec(total).times(weight).div(sum)));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('share pro rata as the decimal formula does, the shares adding up to the total exactly', () => {
    const weight = fc
      .oneof(decimal, longDecimal)
      .map((t) => t.replace('-', ''))
      .filter(nonZero);
    fc.assert(
      fc.property(anyDecimal, fc.array(weight, { minLength: 1, maxLength: 5 }), (total, weights) => {
        const shares = proRata(scaledOfText(total), weights.map(scaledOfText)).map(scaledText);
        const sum = weights.reduce((acc, w) => acc.plus(w), new Exact(0));
        let allocated = new Exact(0);
        weights.forEach((w, index) => {
          if (index === weights.length - 1) return;
          const expected = new Dec(total).times(w).div(sum);
          assert.equal(shares[index], toDecimalString(expected));
          allocated = allocated.plus(expected);
        });
        assert.equal(shares[weights.length - 1], toDecimalString(new Exact(total).minus(allocated)));
        assert.equal(
          toDecimalString(shares.reduce((acc, x) => acc.plus(x), new Exact(0))),
          toDecimalString(total),
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('sum as Dec sums, rounding where Dec rounds', () => {
    fc.assert(
      fc.property(fc.array(anyDecimal, { maxLength: 8 }), (values) => {
        const sum = new DecSum();
        let expected = new Dec(0);
        for (const v of values) {
          sum.add(scaledOfText(v));
          expected = expected.plus(v);
        }
        assert.equal(toDecimalString(sum.value), toDecimalString(expected));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('recent texts', () => {
  it('write each amount as scaledText does, an amount equal to the last one sharing its string', () => {
    const recent = new RecentText();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.bigInt({ min: -1000n, max: 1000n }), fc.nat({ max: 4 }))),
        (amounts) => {
          let last: { amount: Scaled; text: string } | undefined;
          for (const [value, scale] of amounts) {
            const amount: Scaled = { value, scale };
            const text = recent.of(amount);
            assert.equal(text, scaledText(amount));
            if (last && compare(last.amount, amount) === 0) assert.ok(Object.is(text, last.text));
            last = { amount, text };
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('flat texts', () => {
  it('concatenate their parts, empty parts included', () => {
    assert.equal(flatText('ord-', '000000001'), 'ord-000000001');
    assert.equal(flatText('42287', '.', '89775305688082'), '42287.89775305688082');
    assert.equal(flatText('-', '', '0.5'), '-0.5');
    assert.equal(flatText('', ''), '');
    assert.equal(flatText('1', '.', '5'), '1.5');
  });

  it('write scaled amounts as the decimal texts they were', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }), fc.nat({ max: 30 }), (value, scale) => {
        const text = scaledText({ value, scale });
        assert.equal(text, toDecimalString(new Dec(value.toString()).div(new Dec(10).pow(scale))));
      }),
    );
  });
});

describe('tick quotes as scaled integers', () => {
  it('give what scaledOf makes of the bid and ask decimals, trailing zeros dropped', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.nat({ max: 12 }),
        (bid, ask, decimals) => {
          const quote = new TickQuote(bid, ask, decimals);
          assert.deepEqual(quote.bidScaled(), scaledOf(quote.bid));
          assert.deepEqual(quote.askScaled(), scaledOf(quote.ask));
          for (const [side, decimal] of [
            ['BUY', quote.ask],
            ['SELL', quote.bid],
          ] as const) {
            const amount = quote.amountOn(side);
            assert.deepEqual(amount.scaled, scaledOf(decimal));
            assert.equal(amount.text, toDecimalString(decimal));
          }
        },
      ),
    );
    assert.deepEqual(new TickQuote(4228350, 4228400, 2).bidScaled(), { value: 422835n, scale: 1 });
    assert.deepEqual(new TickQuote(4228350, 4228400, 2).askScaled(), { value: 42284n, scale: 0 });
  });

  it('give floats equal to their decimals read as numbers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.nat({ max: 22 }),
        (bid, ask, decimals) => {
          const quote = new TickQuote(bid, ask, decimals);
          assert.equal(quote.bidApprox(), quote.bid.toNumber());
          assert.equal(quote.askApprox(), quote.ask.toNumber());
        },
      ),
    );
  });
});
