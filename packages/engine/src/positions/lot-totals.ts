import { DEC_ZERO, type Dec } from '@hindsight/core';
import {
  absolute,
  add,
  compare,
  DecSum,
  fitsDec,
  type Scaled,
  scaledOfText,
} from '../numbers/scaled-decimal.ts';
import type { TradeLot } from './trade-lot.ts';

const NOTHING: Scaled = { value: 0n, scale: 0 };

/**
 * The lot figures the metrics read (decisions 12-13): the commissions of every lot, and the closed
 * lots' count, wins and losses on realized P&L (before fees), the largest of each and their summed
 * durations. The position book adds each amount as it writes the lot, from the scaled integers it
 * wrote the text from, so the metrics need not read every lot's texts back (that was about half of
 * `results()` on the SMA benchmark run); `lotTotalsOf` reads them from the lots otherwise.
 *
 * The sums are `Dec`'s sums in lot order (`DecSum`) when no partial sum in any order can round: then
 * the order the amounts came in does not matter. `orderFree` says so; when it does not hold the
 * metrics read the lots. A lot split by a partial close shares its entry commission between the two
 * records with the same sign, so the magnitudes the book adds bound those of the records.
 */
export class LotTotals {
  readonly commissions = new DecSum();
  /** Positive realized P&L of closed lots. */
  readonly wins = new DecSum();
  /** Negative realized P&L of closed lots, as magnitudes. */
  readonly losses = new DecSum();
  closed = 0;
  winners = 0;
  losers = 0;
  largestWin: Scaled = NOTHING;
  /** As a magnitude. */
  largestLoss: Scaled = NOTHING;
  /** Milliseconds add up exactly as floats while the sum is a safe integer; beyond, in Dec. */
  private durationMs = 0;
  private durationOverflow: Dec | undefined;
  /** The commissions' magnitudes summed: every partial sum of them, in any order, is at most this. */
  private commissionBound: Scaled = NOTHING;

  /** A lot's entry or exit commission as its record holds it (a zero one is left out of the record). */
  addCommission(amount: Scaled): void {
    this.commissions.add(amount);
    this.commissionBound = add(this.commissionBound, absolute(amount));
  }

  /** A closed lot's realized P&L (USD) and how long it was open. */
  addClosed(pnl: Scaled, durationMs: number): void {
    this.closed++;
    if (pnl.value > 0n) {
      this.winners++;
      this.wins.add(pnl);
      if (compare(pnl, this.largestWin) > 0) this.largestWin = pnl;
    } else if (pnl.value < 0n) {
      this.losers++;
      const loss = absolute(pnl);
      this.losses.add(loss);
      if (compare(loss, this.largestLoss) > 0) this.largestLoss = loss;
    }
    if (!Number.isSafeInteger(this.durationMs + durationMs)) {
      this.durationOverflow = (this.durationOverflow ?? DEC_ZERO).plus(this.durationMs);
      this.durationMs = 0;
    }
    this.durationMs += durationMs;
  }

  get totalDurationMs(): Dec {
    return (this.durationOverflow ?? DEC_ZERO).plus(this.durationMs);
  }

  /**
   * The sums are those of adding the lots in any order: none rounded, and none could in another order
   * (the wins and losses have one sign each, so their partial sums are at most the total; the
   * commissions' are at most the sum of their magnitudes).
   */
  get orderFree(): boolean {
    return (
      this.wins.isExact && this.losses.isExact && this.commissions.isExact && fitsDec(this.commissionBound)
    );
  }
}

/** The totals of `lots` read from their texts, added in their order (as `Dec` would). */
export function lotTotalsOf(lots: readonly TradeLot[]): LotTotals {
  const totals = new LotTotals();
  for (const lot of lots) {
    if (lot.entry_commission !== undefined) totals.addCommission(scaledOfText(lot.entry_commission));
    if (lot.state !== 'Closed') continue;
    if (lot.exit_commission !== undefined) totals.addCommission(scaledOfText(lot.exit_commission));
  }
  for (const lot of lots) {
    if (lot.state === 'Closed')
      totals.addClosed(scaledOfText(lot.realized_pnl), lot.closed_at - lot.opened_at);
  }
  return totals;
}
