import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import { commissionFor } from '../src/models/commission.ts';
import { applySlippage, slippageBps } from '../src/models/slippage.ts';

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
