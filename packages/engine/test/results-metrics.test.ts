import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec } from '@hindsight/core';
import fc from 'fast-check';
import {
  closeLot,
  computeMetrics,
  dailyCloses,
  drawdownStats,
  formatTradeId,
  type MetricsInput,
  openLot,
  type TradeLot,
} from '../src/index.ts';
import { scaledOfText } from '../src/numbers/scaled-decimal.ts';
import { LotTotals, lotTotalsOf } from '../src/positions/lot-totals.ts';

const at = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;

function near(actual: number | undefined, expected: number, rel = 1e-12): void {
  assert.equal(typeof actual, 'number', `expected a number near ${expected}`);
  const a = actual as number;
  assert.ok(Math.abs(a - expected) <= rel * Math.max(1, Math.abs(expected)), `${a} is not ${expected}`);
}

let nextSeq = 1;
function lot(
  pnl: string | undefined,
  opts: { entry?: string; exit?: string; hours?: number } = {},
): TradeLot {
  const opened = openLot({
    id: formatTradeId(nextSeq++),
    instrumentSymbol: 'C:BTCUSD',
    direction: 'Long',
    units: '1',
    openPrice: '100',
    entryCommission: opts.entry,
    openedAt: at('2024-01-01T01:00:00Z'),
    openedByOrderId: 'o1',
  });
  if (pnl === undefined) return opened;
  return closeLot(opened, {
    closePrice: '100',
    exitCommission: opts.exit,
    closedAt: opened.opened_at + (opts.hours ?? 1) * HOUR,
    closedByOrderId: 'o2',
    realizedPnl: pnl,
    closeReason: 'Normal',
  });
}

/** A flat three-day series: NAV stays at 100. */
const base = (over: Partial<MetricsInput> = {}): MetricsInput => ({
  timestamps: [at('2024-01-01T00:00:00Z'), at('2024-01-02T00:00:00Z'), at('2024-01-03T00:00:00Z')],
  nav: ['100', '100', '100'],
  trades: [],
  initialCapital: '100',
  startTime: at('2024-01-01T00:00:00Z'),
  endTime: at('2024-01-03T00:00:00Z'),
  allCrypto: false,
  ...over,
});

describe('NAV metrics on a hand-computed series', () => {
  // Samples (UTC), NAV:
  //   Jan 1 00:00 100   run start (decision 8), daily close of Jan 1 00:00
  //   Jan 1 12:00 105
  //   Jan 2 00:00 110   new peak, close of Jan 2
  //   Jan 2 06:00 110   back at the peak: the last sample at the peak
  //   Jan 2 18:00  95   trough: (110 - 95) / 110 = 13.6363...%
  //   Jan 3 00:00  99   close of Jan 3
  //   Jan 3 12:00 112   recovery (new peak): duration Jan 2 06:00 -> Jan 3 12:00 = 30 h = 1.25 days
  //   Jan 4 00:00 108.9 below 112 to the end: drawdown 3.1/112 = 2.77%, 0.5 days; close of Jan 4
  // Daily closes 100, 110, 99, 108.9 -> returns +0.1, -0.1, +0.1 (n = 3).
  //   mean = 1/30; deviations 1/15, -2/15, 1/15; sum of squares = 6/225; / (n-1) = 1/75; std = 1/sqrt(75)
  //   Sharpe = mean/std x sqrt(D) = sqrt(75)/30 x sqrt(D) = sqrt(75 D)/30
  //   downside deviation = sqrt(0.01 / 3) = 1/sqrt(300); Sortino = sqrt(300 D)/30
  // totalReturn = 8.9%; duration 3 days, annualized = (1.089^(365/3) - 1) x 100.
  const timestamps = [
    '2024-01-01T00:00:00Z',
    '2024-01-01T12:00:00Z',
    '2024-01-02T00:00:00Z',
    '2024-01-02T06:00:00Z',
    '2024-01-02T18:00:00Z',
    '2024-01-03T00:00:00Z',
    '2024-01-03T12:00:00Z',
    '2024-01-04T00:00:00Z',
  ].map(at);
  const nav = ['100', '105', '110', '110', '95', '99', '112', '108.9'];
  const input = base({ timestamps, nav, endTime: at('2024-01-04T00:00:00Z') });

  it('computes return, drawdown and its duration', () => {
    const m = computeMetrics(input);
    near(m.totalReturn, 8.9);
    assert.equal(m.netPnl, '8.9');
    assert.equal(m.grossPnl, '8.9');
    assert.equal(m.totalCommission, '0');
    near(m.maxDrawdownPct, 1500 / 110);
    assert.equal(m.maxDrawdownDurationDays, 1.25);
    near(m.annualizedReturnPct, (1.089 ** (365 / 3) - 1) * 100, 1e-9);
  });

  it('computes Sharpe and Sortino with 252 days, or 365 when all instruments are crypto', () => {
    const stocks = computeMetrics(input);
    near(stocks.sharpeRatio, Math.sqrt(75 * 252) / 30);
    near(stocks.sortinoRatio, Math.sqrt(300 * 252) / 30);
    const crypto = computeMetrics({ ...input, allCrypto: true });
    near(crypto.sharpeRatio, Math.sqrt(75 * 365) / 30);
    near(crypto.sortinoRatio, Math.sqrt(300 * 365) / 30);
    assert.equal(crypto.sharpeRatioReason, undefined);
    assert.equal(crypto.sortinoRatioReason, undefined);
  });

  it('measures an unrecovered drawdown to the last sample', () => {
    // 100 -> 120 (Jan 1 06:00, peak) -> 90 -> 100 (Jan 3 18:00, never back to 120): 60 h = 2.5 days, 25%.
    const s = drawdownStats(
      ['2024-01-01T00:00:00Z', '2024-01-01T06:00:00Z', '2024-01-02T00:00:00Z', '2024-01-03T18:00:00Z'].map(
        at,
      ),
      ['100', '120', '90', '100'],
    );
    assert.equal(s.maxDrawdown.toString(), '0.25');
    assert.equal(s.maxDurationMs, 60 * HOUR);
  });

  it('starts a drawdown at the last sample at the peak and ends it at the first one at or above it', () => {
    // 100 (00:00), 100 (06:00, last at peak), 90 (12:00), 100 (18:00, equal = recovered), 99 (Jan 2 00:00)
    const s = drawdownStats(
      [0, 6, 12, 18, 24].map((h) => at('2024-01-01T00:00:00Z') + h * HOUR),
      ['100', '100', '90', '100', '99'],
    );
    assert.equal(s.maxDurationMs, 12 * HOUR, '06:00 -> 18:00; the second drawdown lasts 6 h');
    assert.equal(s.maxDrawdown.toString(), '0.1');
  });

  it('has no drawdown on a rising series', () => {
    const m = computeMetrics(base({ nav: ['100', '101', '102'] }));
    assert.equal(m.maxDrawdownPct, 0);
    assert.equal(m.maxDrawdownDurationDays, 0);
  });
});

describe('daily closes (decision 10)', () => {
  it('takes the last sample at or before each midnight and repeats it over days without samples', () => {
    const timestamps = [
      '2024-01-01T10:00:00Z',
      '2024-01-01T23:59:00Z',
      '2024-01-04T03:00:00Z',
      '2024-01-05T00:00:00Z',
    ].map(at);
    const { times, closes } = dailyCloses(timestamps, ['100', '101', '102', '103']);
    // First midnight at or after 10:00 Jan 1 is Jan 2; the last sample is exactly at Jan 5 midnight.
    assert.deepEqual(
      times,
      ['2024-01-02T00:00:00Z', '2024-01-03T00:00:00Z', '2024-01-04T00:00:00Z', '2024-01-05T00:00:00Z'].map(
        at,
      ),
    );
    assert.deepEqual(
      closes.map((c) => c.toString()),
      ['101', '101', '101', '103'],
    );
  });

  it('runs to the first midnight at or after the last sample', () => {
    const { times, closes } = dailyCloses(['2024-01-01T00:00:00Z', '2024-01-02T05:00:00Z'].map(at), [
      '100',
      '90',
    ]);
    assert.deepEqual(times, ['2024-01-01T00:00:00Z', '2024-01-02T00:00:00Z', '2024-01-03T00:00:00Z'].map(at));
    assert.deepEqual(
      closes.map((c) => c.toString()),
      ['100', '100', '90'],
    );
  });

  it('uses repeated closes as zero returns', () => {
    // Closes 100, 100 (a day without samples), 110 -> returns 0, 0.1: mean 0.05,
    // std = sqrt((0.05^2 + 0.05^2) / 1) = 0.05 sqrt 2 -> Sharpe = sqrt(252) / sqrt(2) = sqrt(126).
    const m = computeMetrics(
      base({
        timestamps: ['2024-01-01T00:00:00Z', '2024-01-03T00:00:00Z'].map(at),
        nav: ['100', '110'],
      }),
    );
    near(m.sharpeRatio, Math.sqrt(126));
    assert.equal(m.sortinoRatioReason, 'no_negative_returns');
    assert.equal(m.sortinoRatio, undefined);
  });
});

describe('risk ratio reasons (decision 11)', () => {
  it('needs at least 2 daily returns', () => {
    const sameDay = computeMetrics(
      base({
        timestamps: ['2024-01-01T01:00:00Z', '2024-01-01T05:00:00Z'].map(at),
        nav: ['100', '90'],
        startTime: at('2024-01-01T01:00:00Z'),
      }),
    );
    assert.equal(sameDay.sharpeRatioReason, 'insufficient_data_points');
    assert.equal(sameDay.sortinoRatioReason, 'insufficient_data_points');
    assert.equal('sharpeRatio' in sameDay, false);
    assert.equal('sortinoRatio' in sameDay, false);
    const oneReturn = computeMetrics(
      base({ timestamps: ['2024-01-01T00:00:00Z', '2024-01-02T00:00:00Z'].map(at), nav: ['100', '90'] }),
    );
    assert.equal(oneReturn.sharpeRatioReason, 'insufficient_data_points');
    assert.equal(oneReturn.sortinoRatioReason, 'insufficient_data_points');
  });

  it('reports an exactly zero standard deviation', () => {
    const flat = computeMetrics(base());
    assert.equal(flat.sharpeRatioReason, 'zero_standard_deviation');
    assert.equal(flat.sortinoRatioReason, 'no_negative_returns');
    // 100, 110, 121: both returns exactly 0.1 (decimal arithmetic, no float noise).
    const steady = computeMetrics(base({ nav: ['100', '110', '121'] }));
    assert.equal(steady.sharpeRatioReason, 'zero_standard_deviation');
    assert.equal(steady.sortinoRatioReason, 'no_negative_returns');
  });

  it('computes Sortino when only negative returns exist and Sharpe is constant-signed', () => {
    // 100, 90, 72: returns -0.1, -0.2. mean -0.15; std = sqrt(2 x 0.05^2 / 1) = 0.05 sqrt 2;
    // downside = sqrt((0.01 + 0.04) / 2) = sqrt(0.025).
    const m = computeMetrics(base({ nav: ['100', '90', '72'] }));
    near(m.sharpeRatio, (-0.15 / (0.05 * Math.SQRT2)) * Math.sqrt(252));
    near(m.sortinoRatio, (-0.15 / Math.sqrt(0.025)) * Math.sqrt(252));
  });
});

describe('trade metrics (decisions 12, 13, 36)', () => {
  it('omits every per-trade metric with no_closed_trades, counts stay 0', () => {
    const m = computeMetrics(base({ trades: [lot(undefined, { entry: '1.5' })] }));
    assert.equal(m.totalTrades, 0);
    assert.equal(m.winningTrades, 0);
    assert.equal(m.losingTrades, 0);
    for (const key of [
      'winRatePct',
      'profitFactor',
      'avgWin',
      'avgLoss',
      'largestWin',
      'largestLoss',
      'avgTradeDurationSeconds',
    ] as const) {
      assert.equal(m[key], undefined, key);
      assert.equal(m[`${key}Reason`], 'no_closed_trades', key);
    }
    assert.equal(m.totalCommission, '1.5', 'the entry fee of the open lot counts');
    assert.equal(m.netPnl, '0');
    assert.equal(m.grossPnl, '1.5');
  });

  it('closed lots without winners: profitFactor 0, win side omitted', () => {
    const m = computeMetrics(base({ trades: [lot('-10'), lot('-30', { hours: 3 })] }));
    assert.equal(m.totalTrades, 2);
    assert.equal(m.winRatePct, 0);
    assert.equal(m.profitFactor, 0);
    assert.equal(m.profitFactorReason, undefined);
    assert.equal(m.avgWinReason, 'no_winning_trades');
    assert.equal(m.largestWinReason, 'no_winning_trades');
    assert.equal(m.avgLoss, '20');
    assert.equal(m.largestLoss, '30');
    assert.equal(m.avgTradeDurationSeconds, 7200);
  });

  it('closed lots without losers: profitFactor and loss side omitted with no_losing_trades', () => {
    const m = computeMetrics(base({ trades: [lot('10'), lot('5')] }));
    assert.equal(m.winRatePct, 100);
    assert.equal(m.profitFactorReason, 'no_losing_trades');
    assert.equal('profitFactor' in m, false);
    assert.equal(m.avgLossReason, 'no_losing_trades');
    assert.equal(m.largestLossReason, 'no_losing_trades');
    assert.equal(m.avgWin, '7.5');
    assert.equal(m.largestWin, '10');
  });

  it('only zero-P&L lots: counted, neither winner nor loser', () => {
    const m = computeMetrics(base({ trades: [lot('0')] }));
    assert.equal(m.totalTrades, 1);
    assert.equal(m.winRatePct, 0);
    assert.equal(m.profitFactorReason, 'no_losing_trades');
    assert.equal(m.avgWinReason, 'no_winning_trades');
    assert.equal(m.avgLossReason, 'no_losing_trades');
  });

  it('computes a mixed set by hand', () => {
    // P&L +30, +10, -20, -5, 0 (1 h each except the +30 which lasts 4 h) plus an open lot.
    // winners 2, losers 2, closed 5: win rate 40%; profit factor 40/25 = 1.6;
    // avgWin 20, avgLoss 12.5, largest 30 and 20; mean duration (4+1+1+1+1) h / 5 = 1.6 h = 5760 s.
    // Commissions: 0.5 + 0.25 on the +30 lot, 0.125 entry on the open lot -> 0.875.
    const trades = [
      lot('30', { hours: 4, entry: '0.5', exit: '0.25' }),
      lot('10'),
      lot('-20'),
      lot('-5'),
      lot('0'),
      lot(undefined, { entry: '0.125' }),
    ];
    const m = computeMetrics(base({ trades, nav: ['100', '100', '114.125'] }));
    assert.equal(m.totalTrades, 5);
    assert.equal(m.winningTrades, 2);
    assert.equal(m.losingTrades, 2);
    assert.equal(m.winRatePct, 40);
    assert.equal(m.profitFactor, 1.6);
    assert.equal(m.avgWin, '20');
    assert.equal(m.avgLoss, '12.5');
    assert.equal(m.largestWin, '30');
    assert.equal(m.largestLoss, '20');
    assert.equal(m.avgTradeDurationSeconds, 5760);
    assert.equal(m.totalCommission, '0.875');
    assert.equal(m.netPnl, '14.125');
    assert.equal(m.grossPnl, '15');
  });

  it('keeps a fractional mean duration and full-precision ratios', () => {
    // Durations 1 s and 2 s -> 1.5 s; win rate 1/3 -> 33.333...%.
    const o = (n: number, ms: number, pnl: string) =>
      closeLot(
        openLot({
          id: formatTradeId(n),
          instrumentSymbol: 'S:AAPL',
          direction: 'Short',
          units: '2',
          openPrice: '10',
          openedAt: 1000,
          openedByOrderId: 'a',
        }),
        {
          closePrice: '10',
          closedAt: 1000 + ms,
          closedByOrderId: 'b',
          realizedPnl: pnl,
          closeReason: 'Normal',
        },
      );
    const m = computeMetrics(base({ trades: [o(1, 1000, '1'), o(2, 2000, '-1'), o(3, 1500, '0')] }));
    assert.equal(m.avgTradeDurationSeconds, 1.5);
    assert.equal(m.winRatePct, 100 / 3);
    assert.equal(m.profitFactor, 1);
  });
});

describe('metric object shape (decisions 16, 17)', () => {
  it('carries a reason only for omitted metrics and keeps the spec order', () => {
    const m = computeMetrics(base({ trades: [lot('5'), lot('-1')], nav: ['100', '104', '103'] }));
    for (const [key, value] of Object.entries(m)) {
      if (key.endsWith('Reason')) assert.equal(key.slice(0, -6) in m, false, key);
      else assert.notEqual(value, undefined, key);
    }
    assert.deepEqual(Object.keys(m).slice(0, 3), ['totalReturn', 'maxDrawdownPct', 'sharpeRatio']);
    assert.equal(Object.keys(m).at(-1), 'totalCommission');
    assert.ok(Number.isInteger(m.totalTrades) && Number.isInteger(m.winningTrades));
    assert.equal(typeof m.netPnl, 'string');
    assert.equal(typeof m.avgWin, 'string');
  });

  it('annualizes a total loss to -100 and uses fractional days', () => {
    const wiped = computeMetrics(base({ nav: ['100', '50', '0'] }));
    assert.equal(wiped.annualizedReturnPct, -100);
    assert.equal(wiped.totalReturn, -100);
    // 36.5 days, +10%: (1.1^10 - 1) x 100.
    const start = at('2024-01-01T00:00:00Z');
    const m = computeMetrics(
      base({
        timestamps: [start, start + 36.5 * 86_400_000],
        nav: ['100', '110'],
        endTime: start + 36.5 * 86_400_000,
      }),
    );
    near(m.annualizedReturnPct, (1.1 ** 10 - 1) * 100);
  });

  it('omits an annualized return too large for a number', () => {
    const start = at('2024-01-01T00:00:00Z');
    const m = computeMetrics(
      base({
        timestamps: [start, start + 60_000],
        nav: ['100', '200'],
        startTime: start,
        endTime: start + 60_000,
      }),
    );
    assert.equal(m.annualizedReturnPctReason, 'insufficient_data_points');
    assert.equal('annualizedReturnPct' in m, false);
  });

  it('refuses misaligned or unsorted series', () => {
    assert.throws(() => computeMetrics(base({ nav: ['100'] })), RangeError);
    assert.throws(() => computeMetrics(base({ timestamps: [3, 2, 1] })), RangeError);
    assert.throws(() => computeMetrics(base({ timestamps: [], nav: [] })), RangeError);
  });
});

describe('drawdown on floats with exact ties (the same result as the exact scan)', () => {
  /** The definition, every point in exact decimals. */
  function exactDrawdown(nav: readonly string[]): string {
    let peak = new Dec(nav[0] as string);
    let trough = peak;
    let inDrawdown = false;
    let max = new Dec(0);
    for (const text of nav.slice(1)) {
      const v = new Dec(text);
      if (v.gte(peak)) {
        inDrawdown = false;
        peak = v;
      } else if (!inDrawdown || v.lt(trough)) {
        inDrawdown = true;
        trough = v;
        const dd = peak.minus(v).div(peak);
        if (dd.gt(max)) max = dd;
      }
    }
    return max.toString();
  }

  it('matches on series whose values differ only past the 17th significant digit', () => {
    // Values around 100000 that differ in the 30th digit: their floats tie, the decimals do not.
    const value = fc
      .tuple(
        fc.integer({ min: -3, max: 3 }),
        fc.integer({ min: -3, max: 3 }),
        fc.integer({ min: -3, max: 3 }),
      )
      .map(([a, b, c]) => `${100000 + a}.${String(500000 + b).padStart(6, '0')}00000000000000000${5 + c}`);
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 40 }), (nav) => {
        const times = nav.map((_, i) => i * HOUR);
        assert.equal(drawdownStats(times, nav).maxDrawdown.toString(), exactDrawdown(nav));
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 100) },
    );
  });
});

describe('lot totals kept while the lots are written', () => {
  const fed = (lots: TradeLot[]) => {
    // As the book adds them: entry commissions as lots open, the rest as they close (any order).
    const totals = new LotTotals();
    for (const l of [...lots].reverse()) {
      if (l.entry_commission !== undefined) totals.addCommission(scaledOfText(l.entry_commission));
      if (l.state !== 'Closed') continue;
      if (l.exit_commission !== undefined) totals.addCommission(scaledOfText(l.exit_commission));
      totals.addClosed(scaledOfText(l.realized_pnl), l.closed_at - l.opened_at);
    }
    return totals;
  };

  it('give the metrics the lots give, in whatever order they came', () => {
    const lots = [
      lot('12.5', { entry: '0.25', exit: '0.125', hours: 2 }),
      lot('-3.75', { entry: '0.1', hours: 5 }),
      lot('0', { exit: '0.3' }),
      lot(undefined, { entry: '0.05' }),
      lot('-8', { entry: '0.2', exit: '0.2', hours: 1 }),
    ];
    const totals = fed(lots);
    assert.equal(totals.orderFree, true);
    assert.deepEqual(
      computeMetrics(base({ trades: lots, lotTotals: totals })),
      computeMetrics(base({ trades: lots })),
    );
  });

  it('are not used when a sum could round in some order: the lots are read', () => {
    const huge = `${'9'.repeat(59)}.5`;
    const lots = [lot('1', { entry: huge }), lot('-1', { entry: `-${huge}`, exit: huge })];
    const totals = fed(lots);
    assert.equal(totals.orderFree, false);
    assert.deepEqual(
      computeMetrics(base({ trades: lots, lotTotals: totals })),
      computeMetrics(base({ trades: lots })),
    );
    assert.equal(lotTotalsOf(lots).orderFree, false);
  });
});
