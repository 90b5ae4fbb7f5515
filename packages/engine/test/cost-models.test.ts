import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import fc from 'fast-check';
import { type CommissionSettings, commissionFor, commissionScaled } from '../src/models/commission.ts';
import { applySlippage, type SlippageSettings, slippageBps } from '../src/models/slippage.ts';
import { type Scaled, scaledOfText, scaledText } from '../src/numbers/scaled-decimal.ts';
import { fillAmountOf, fillUnitsOf, pricedInUsd } from '../src/positions/fill-figures.ts';

const settings = { base_slippage_bps: '1', size_impact_bps_per_100k: '0.5', max_slippage_bps: '2' };

describe('slippage model', () => {
  it('adds size impact per 100k of notional to the base and caps at the maximum', () => {
    assert.equal(toDecimalString(slippageBps(settings, new Dec('100000'))), '1.5');
    assert.equal(toDecimalString(slippageBps(settings, new Dec('500000'))), '2');
    assert.equal(
      toDecimalString(slippageBps({ ...settings, max_slippage_bps: '0' }, new Dec('500000'))),
      '3.5',
    );
  });

  it('moves a buy up from the ask and a sell down from the bid, exactly', () => {
    // 0.1 BTC at ask 42283.58: notional 4228.358 -> 1 + 0.04228358 x 0.5 = 1.02114179 bps (checked
    // independently with Python's decimal module).
    const buy = applySlippage(settings, 'BUY', new Dec('42283.58'), new Dec('4228.358'));
    assert.equal(toDecimalString(buy.bps), '1.02114179');
    assert.equal(toDecimalString(buy.price), '42287.89775305688082');
    const sell = applySlippage(settings, 'SELL', new Dec('1.0850'), new Dec('108500'));
    assert.equal(toDecimalString(sell.bps), '1.5425');
    assert.equal(toDecimalString(sell.price), '1.08483263875');
  });
});

describe('commission model', () => {
  it('charges fee_rate_bps of the notional, and nothing under the zero model', () => {
    assert.equal(
      toDecimalString(commissionFor({ model: 'bps_of_notional', fee_rate_bps: '2.5' }, new Dec('10000'))),
      '2.5',
    );
    assert.equal(toDecimalString(commissionFor({ model: 'zero' }, new Dec('10000'))), '0');
  });
});

describe('cost models in scaled integers (the engine prices USD fills so)', () => {
  const amountOf = (text: string) => fillAmountOf(scaledOfText(text));
  const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);
  /** Positive decimals of up to `digits` digits, `maxScale` of them in the fraction. */
  const positive = (digits: bigint, maxScale: number) =>
    fc
      .tuple(fc.bigInt({ min: 1n, max: 10n ** digits }), fc.integer({ min: 0, max: maxScale }))
      .map(([value, scale]) => scaledText({ value, scale }));
  const settings = fc.record({
    base_slippage_bps: positive(4n, 3),
    size_impact_bps_per_100k: positive(4n, 3),
    max_slippage_bps: fc.oneof(fc.constant('0'), positive(3n, 2)),
  });
  const commission = fc.oneof(
    fc.constant<CommissionSettings>({ model: 'zero' }),
    positive(3n, 2).map((fee): CommissionSettings => ({ model: 'bps_of_notional', fee_rate_bps: fee })),
  );
  // Long operands too, so that some step rounds in Dec and the scaled path must decline.
  const amount = fc.oneof(positive(10n, 8), positive(45n, 30));

  it('give the decimal models’ numbers, or decline where a step would round', () => {
    let priced = 0;
    fc.assert(
      fc.property(settings, commission, amount, amount, fc.boolean(), (slip, fee, units, base, buy) => {
        const side = buy ? 'BUY' : 'SELL';
        const figures = pricedInUsd(amountOf(units), amountOf(base), side, slip, fee);
        const slipped = applySlippage(slip, side, new Dec(base), new Dec(units).times(base));
        const charged = commissionFor(fee, new Dec(units).times(slipped.price));
        if (!figures) return;
        priced++;
        assert.equal(figures.priceText, toDecimalString(slipped.price));
        assert.equal(figures.slippageBpsText, toDecimalString(slipped.bps));
        assert.equal(scaledText(figures.commission), toDecimalString(charged));
        assert.equal(figures.unitsText, toDecimalString(units));
        assert.equal(figures.basePriceText, toDecimalString(base));
      }),
      { numRuns: RUNS },
    );
    assert.ok(priced > RUNS / 10, `only ${priced} fills priced in scaled integers`);
    // A 60-digit price: the slipped product has more digits than Dec keeps, so the scaled path declines.
    const long = scaledOfText(`1.${'3'.repeat(59)}`);
    assert.equal(
      pricedInUsd(
        amountOf('1'),
        fillAmountOf(long),
        'BUY',
        { base_slippage_bps: '1', size_impact_bps_per_100k: '0', max_slippage_bps: '0' } as SlippageSettings,
        { model: 'zero' },
      ),
      undefined,
    );
  });

  it('read a fill’s units once per decimal, as the scaled integer and canonical text the figures carry', () => {
    fc.assert(
      fc.property(amount, (text) => {
        const units = new Dec(text);
        const read = fillUnitsOf(units);
        assert.equal(read.text, toDecimalString(units));
        assert.equal(scaledText(read.scaled), toDecimalString(units));
        assert.equal(fillUnitsOf(units), read);
      }),
      { numRuns: RUNS },
    );
  });

  it('decline a commission whose product would round', () => {
    const fee: CommissionSettings = { model: 'bps_of_notional', fee_rate_bps: '2.5' };
    const notional = `${'7'.repeat(40)}.${'7'.repeat(19)}`;
    assert.equal(commissionScaled(fee, scaledOfText(notional)), undefined);
    assert.equal(scaledText(commissionScaled(fee, scaledOfText('10000')) as Scaled), '2.5');
  });
});
