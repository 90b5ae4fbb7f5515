import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import { daysCharged, fundingAmount, rolloversBetween } from '../src/models/funding.ts';

const at = (iso: string) => Date.parse(iso);
const daily = { model: 'daily' as const, long_rate: '-0.05', short_rate: '0.01' };

describe('daily funding at the New York rollover', () => {
  it('finds each 17:00 New York between two instants, following DST', () => {
    assert.deepEqual(
      rolloversBetween(at('2024-03-08T12:00:00Z'), at('2024-03-11T21:00:00Z')).map((t) =>
        new Date(t).toISOString(),
      ),
      [
        '2024-03-08T22:00:00.000Z',
        '2024-03-09T22:00:00.000Z',
        '2024-03-10T21:00:00.000Z',
        '2024-03-11T21:00:00.000Z',
      ],
    );
    assert.deepEqual(rolloversBetween(at('2024-03-11T21:00:00Z'), at('2024-03-12T20:59:00Z')), []);
  });

  it('charges the weekday multiplier of the New York date: triple on Wednesday by default', () => {
    assert.equal(daysCharged(daily, at('2024-03-13T21:00:00Z')), 3);
    assert.equal(daysCharged(daily, at('2024-03-16T21:00:00Z')), 0, 'Saturday');
    assert.equal(
      daysCharged({ ...daily, day_multipliers: [1, 1, 1, 1, 1, 1, 1] }, at('2024-03-16T21:00:00Z')),
      1,
    );
  });

  it('debits a negative rate and credits a positive one, on the chosen day-count basis', () => {
    // 100,000 x -0.05 x 3 / 365 on a Wednesday.
    const long = fundingAmount(daily, 'LONG', new Dec('100000'), at('2024-03-13T21:00:00Z'));
    assert.equal(toDecimalString(long.times(365)), '-15000');
    const short = fundingAmount(
      { ...daily, day_count_basis: 360 },
      'SHORT',
      new Dec('72000'),
      at('2024-03-12T21:00:00Z'),
    );
    assert.equal(toDecimalString(short), '2');
    assert.equal(toDecimalString(fundingAmount({ model: 'disabled' }, 'LONG', new Dec('1'), 0)), '0');
  });
});
