import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import { Account } from '../src/index.ts';
import { fundingAmount } from '../src/models/funding.ts';

const s = (d: Dec) => toDecimalString(d);

describe('account books (USD)', () => {
  it('starts at the initial capital with nothing booked', () => {
    const account = new Account({ initialCapital: 100000 });
    assert.equal(s(account.balance), '100000');
    assert.equal(s(account.equity), '100000');
    assert.equal(s(account.unrealizedPnl), '0');
    assert.ok(account.identityHolds());
    assert.deepEqual(account.view(new Dec(0)), {
      balance: '100000',
      equity: '100000',
      margin_used: '0',
      margin_available: '100000',
      unrealized_pnl: '0',
      currency: 'USD',
    });
  });

  it('balance = initialCapital + realized - commissions + funding, exactly, with 60-digit quotients', () => {
    const account = new Account({ initialCapital: '100000' });
    const realized = new Dec(5000).div('93.4995'); // a USDJPY close (decision 1)
    account.bookFill({ realizedPnlUsd: realized, commissionUsd: new Dec('2.5') });
    // Long 100,000 USD at -0.05 over a Wednesday rollover: 100000 x -0.05 x 3 / 365.
    const funding = fundingAmount(
      { model: 'daily', long_rate: '-0.05', short_rate: '0' },
      'LONG',
      new Dec(100000),
      Date.parse('2024-03-13T21:00:00Z'),
    );
    account.bookFunding(funding);
    account.assertIdentity();
    assert.equal(s(account.realizedPnl), '53.4762217979775292916004898421916694741683110604869544756924');
    assert.equal(s(account.commissions), '2.5');
    assert.equal(s(account.funding), '-41.095890410958904109589041095890410958904109589041095890411');
    // 100000 + 53.476... - 2.5 - 41.095...: 64 significant digits, nothing rounded away.
    assert.equal(s(account.balance), '100009.8803313870186251820114487463012585152642014714458585852814');
    const Wide = Dec.clone({ precision: 200 });
    assert.ok(
      new Wide(account.initialCapital)
        .plus(account.realizedPnl)
        .minus(account.commissions)
        .plus(account.funding)
        .eq(account.balance),
    );
  });

  it('equity adds the unrealized P&L of its source; margin_available = equity - margin_used', () => {
    let unrealized = new Dec('12.5');
    const account = new Account({ initialCapital: 1000, unrealized: { unrealizedPnlUsd: () => unrealized } });
    account.bookFill({ realizedPnlUsd: new Dec('-10'), commissionUsd: new Dec('1.12') });
    assert.equal(s(account.balance), '988.88');
    assert.equal(s(account.equity), '1001.38');
    assert.deepEqual(account.view(new Dec('1500')), {
      balance: '988.88',
      equity: '1001.38',
      margin_used: '1500',
      margin_available: '-498.62',
      unrealized_pnl: '12.5',
      currency: 'USD',
    });
    unrealized = new Dec('-988.88');
    assert.equal(s(account.equity), '0');
    assert.equal(account.view(new Dec(0)).equity, '0');
    const snap = account.snapshot();
    assert.equal(s(snap.equity), '0');
    assert.equal(s(snap.unrealizedPnl), '-988.88');
    assert.ok(account.identityHolds());
  });

  it('refuses a non-finite initial capital', () => {
    assert.throws(() => new Account({ initialCapital: Number.NaN }), RangeError);
  });
});
