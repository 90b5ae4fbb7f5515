import type { Account } from '../account/account.ts';
import { type FundingSettings, fundingAmount, rolloversBetween } from '../models/funding.ts';
import type { CurrencyConverter } from '../numbers/currency.ts';
import type { PositionBook } from '../positions/position-book.ts';
import type { AccountTimeseries } from '../results/account-timeseries.ts';
import type { EngineEvents } from '../venue/engine-events.ts';

/**
 * Daily funding (decision 5): at each 17:00 New York rollover in (from, to], every position opened
 * before it is charged units x its closing side price (bid long, ask short) in USD x rate x
 * days_charged / day_count_basis. The price is the last quote at the rollover's bar close.
 */
export class DailyFunding {
  constructor(
    private readonly settings: FundingSettings | undefined,
    private readonly book: Pick<PositionBook, 'positions'>,
    private readonly converter: Pick<CurrencyConverter, 'toUsd'>,
    private readonly account: Pick<Account, 'bookFunding'>,
    private readonly timeseries: Pick<AccountTimeseries, 'afterBalanceChange' | 'changed'>,
    private readonly events: Pick<EngineEvents, 'account'>,
  ) {}

  /** Charges the rollovers in (from, to]. */
  charge(from: number, to: number): void {
    const settings = this.settings;
    if (!settings || settings.model === 'disabled') return;
    for (const rollover of rolloversBetween(from, to)) {
      for (const position of this.book.positions()) {
        if (position.openedAt >= rollover) continue;
        const valueUsd = this.converter.toUsd(
          position.quantity.times(position.currentPrice),
          position.currency,
        );
        const amount = fundingAmount(settings, position.side, valueUsd, rollover);
        if (amount.isZero()) continue;
        this.account.bookFunding(amount);
        this.timeseries.afterBalanceChange();
        this.timeseries.changed = true;
        this.events.account(rollover);
      }
    }
  }
}
