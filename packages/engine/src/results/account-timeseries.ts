import { Dec } from '@hindsight/core';
import { type Account, BalanceMoment } from '../account/account.ts';
import type { MarginMonitor } from '../account/margin-monitor.ts';
import { Exact } from '../numbers/exact.ts';
import { add, scaledText } from '../numbers/scaled-decimal.ts';
import type { CapturedPositions } from '../positions/captured-positions.ts';
import type { PositionBook } from '../positions/position-book.ts';
import { SampleCapture } from './sample-capture.ts';
import type { ExactSample, SampleSource, TimeseriesSampler } from './timeseries-sampler.ts';

/**
 * The account's timeseries (decision 9): the balance as the per-bar path reads it, and each closed
 * minute offered to the sampler with its exact values (balance, NAV, margin used) computed only if
 * the sampler keeps the point.
 */
export class AccountTimeseries {
  /** The balance and its version (bumped on every change), for the per-bar path. */
  balance: BalanceMoment;
  private balanceVersion = 0;
  /** Whether the books changed since the last offered point. */
  changed = false;
  private flatSample: SampleSource | undefined;

  constructor(
    private readonly sampler: TimeseriesSampler,
    private readonly account: Pick<Account, 'balanceScaled'>,
    private readonly book: Pick<PositionBook, 'size' | 'capture'>,
    private readonly margin: Pick<MarginMonitor, 'marginTextOf' | 'marginOf'>,
  ) {
    this.balance = new BalanceMoment(account.balanceScaled);
  }

  /** After the balance changed: its version and values follow. */
  afterBalanceChange(): void {
    this.balanceVersion += 1;
    this.balance = new BalanceMoment(this.account.balanceScaled);
    this.flatSample = undefined;
  }

  /** Offers the point of `clock`; `flat`: no position was open (the NAV is the balance). */
  offer(clock: number, navApprox: number, flat: boolean): void {
    this.sampler.offerLazy(
      clock,
      navApprox,
      this.balanceVersion,
      this.changed,
      this.sampleSource(),
      // Flat, the NAV is the balance: at hand without computing.
      flat ? this.balance.value : undefined,
    );
    this.changed = false;
  }

  /**
   * The exact sample values of this moment, computed later only if the sampler keeps the point: the
   * balance and the positions' numbers are immutable values captured now, with the marks' ticks, into
   * a capture the sampler has released when there is one.
   */
  private sampleSource(): SampleSource {
    const balance = this.balance;
    if (this.book.size === 0) {
      this.flatSample ??= {
        sample: () => ({ balance: balance.text, nav: balance.text, marginUsed: '0', canonical: true }),
      };
      return this.flatSample;
    }
    const released = this.sampler.releasedSource();
    const capture = released instanceof SampleCapture ? released : new SampleCapture(this.valueSample);
    capture.balance = balance;
    this.book.capture(capture.positions);
    return capture;
  }

  private readonly valueSample = (balance: BalanceMoment, positions: CapturedPositions): ExactSample =>
    this.sampleOf(balance, positions);

  /**
   * A kept point's exact values. As the account's equity, NAV is the exact balance plus the unrealized
   * P&L. In scaled integers when every position allows it (USD, marked, a finite 1 / leverage), which
   * gives the same numbers as the decimal path, written directly as text.
   */
  private sampleOf(balance: BalanceMoment, positions: CapturedPositions): ExactSample {
    const scaled = positions.scaled();
    const marginUsed = scaled && this.margin.marginTextOf(scaled);
    if (scaled && marginUsed !== undefined) {
      const nav = scaledText(add(balance.scaled, scaled.unrealizedUsd));
      return { balance: balance.text, nav, marginUsed, canonical: true };
    }
    const value = positions.exact();
    const nav = new Dec(new Exact(balance.value).plus(value.unrealizedUsd));
    return { balance: balance.value, nav, marginUsed: this.margin.marginOf(value) };
  }
}
