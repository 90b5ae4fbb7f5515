import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dayRanges } from '../src/routes/app-api/day-coverage.ts';

/** Coverage ranges and gaps from the days a store holds, per market calendar. */
const day = (text: string) => Date.parse(`${text}T00:00:00Z`) / 86_400_000;
const days = (...texts: string[]) => texts.map(day);

describe('day coverage', () => {
  it('a crypto market misses no day without a gap', () => {
    const coverage = dayRanges(days('2024-01-01', '2024-01-02', '2024-01-04'), 'utc');
    assert.deepEqual(coverage.gaps, [{ from: '2024-01-03', to: '2024-01-03' }]);
    assert.deepEqual(coverage.ranges, [
      { from: '2024-01-01', to: '2024-01-02' },
      { from: '2024-01-04', to: '2024-01-04' },
    ]);
  });

  it('a stock bridges weekends and a holiday of up to two open days, not a longer hole', () => {
    // Fri 2024-03-29 (Good Friday) missing, weekend closed: one range.
    const easter = dayRanges(days('2024-03-28', '2024-04-01'), 'us_equity');
    assert.deepEqual(easter.gaps, []);
    // Three open days missing (Tue..Thu): a gap.
    const hole = dayRanges(days('2024-04-01', '2024-04-05'), 'us_equity');
    assert.deepEqual(hole.gaps, [{ from: '2024-04-02', to: '2024-04-04' }]);
  });

  it('forex is shut on Saturdays only', () => {
    const weekend = dayRanges(days('2024-01-05', '2024-01-07'), 'fx');
    assert.deepEqual(weekend.gaps, []);
    assert.equal(dayRanges([], 'fx').firstDay, null);
  });
});
