/**
 * The account's books, in USD (decision 1).
 *
 *   balance = initialCapital + realized P&L - commissions + funding
 *   equity (NAV) = balance + unrealized P&L
 *
 * `balance` is kept as its own running total next to the three component totals, and
 * `assertIdentity` checks that they agree exactly: every sum here is exact (see exact.ts), so any
 * difference is a booking error, never rounding. Realized P&L is before commissions (the lots'
 * `realized_pnl`); commissions are whole fill commissions (entry and exit); funding is signed
 * (negative debits, decision 5). The timeseries `units` is `balance`, `nav` is `equity`.
 */
import { Dec, toDecimalString } from '@hindsight/core';
import { ACCOUNT_CURRENCY } from './currency.ts';
import { Exact } from './exact.ts';
import { type Scaled, scaledOf } from './scaled-decimal.ts';

/** The gateway's Account resource (trading-gateway.md), decimals as canonical strings. */
export interface AccountView {
  balance: string;
  equity: string;
  margin_used: string;
  margin_available: string;
  unrealized_pnl: string;
  currency: string;
}

export interface AccountSnapshot {
  initialCapital: Dec;
  balance: Dec;
  equity: Dec;
  unrealizedPnl: Dec;
  realizedPnl: Dec;
  commissions: Dec;
  funding: Dec;
}

/** Where unrealized P&L (USD) comes from: the position book. */
export interface UnrealizedSource {
  unrealizedPnlUsd(): Dec;
}

export interface AccountOptions {
  initialCapital: Dec | string | number;
  /** Default: none (unrealized 0). Pass the `PositionBook`. */
  unrealized?: UnrealizedSource;
}

/** What `bookFill` needs of a `FillOutcome`. */
export interface BookedFill {
  realizedPnlUsd: Dec;
  commissionUsd: Dec;
}

/**
 * The balance at one moment, as the per-bar path needs it: the decimal and its float at once, the
 * canonical text and the scaled integer only when a sampled point is valued (once per balance).
 */
export class BalanceMoment {
  readonly approx: number;
  private textCache: string | undefined;
  private scaledCache: Scaled | undefined;

  constructor(readonly value: Dec) {
    this.approx = value.toNumber();
  }

  get text(): string {
    this.textCache ??= toDecimalString(this.value);
    return this.textCache;
  }

  get scaled(): Scaled {
    this.scaledCache ??= scaledOf(this.value);
    return this.scaledCache;
  }
}

export class AccountingIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountingIdentityError';
  }
}

const NO_POSITIONS: UnrealizedSource = { unrealizedPnlUsd: () => new Exact(0) };

export class Account {
  private readonly capital: Dec;
  private readonly source: UnrealizedSource;
  private balanceTotal: Dec;
  private realizedTotal: Dec = new Exact(0);
  private commissionTotal: Dec = new Exact(0);
  private fundingTotal: Dec = new Exact(0);

  constructor(options: AccountOptions) {
    this.capital = new Exact(options.initialCapital);
    if (!this.capital.isFinite()) throw new RangeError('initialCapital must be a finite number');
    this.balanceTotal = this.capital;
    this.source = options.unrealized ?? NO_POSITIONS;
  }

  get initialCapital(): Dec {
    return new Dec(this.capital);
  }

  get balance(): Dec {
    return new Dec(this.balanceTotal);
  }

  get realizedPnl(): Dec {
    return new Dec(this.realizedTotal);
  }

  get commissions(): Dec {
    return new Dec(this.commissionTotal);
  }

  get funding(): Dec {
    return new Dec(this.fundingTotal);
  }

  /** Unrealized P&L of the open positions at their current marks, USD. */
  get unrealizedPnl(): Dec {
    return new Dec(this.source.unrealizedPnlUsd());
  }

  /** NAV: balance + unrealized. */
  get equity(): Dec {
    return new Dec(this.balanceTotal.plus(this.source.unrealizedPnlUsd()));
  }

  /** Books a fill: its realized P&L (before fees) and its whole commission. */
  bookFill(fill: BookedFill): void {
    this.realizedTotal = this.realizedTotal.plus(fill.realizedPnlUsd);
    this.commissionTotal = this.commissionTotal.plus(fill.commissionUsd);
    this.balanceTotal = this.balanceTotal.plus(fill.realizedPnlUsd).minus(fill.commissionUsd);
  }

  /** Books a funding amount, USD, signed as it is added to the balance. */
  bookFunding(amountUsd: Dec): void {
    this.fundingTotal = this.fundingTotal.plus(amountUsd);
    this.balanceTotal = this.balanceTotal.plus(amountUsd);
  }

  /** Whether initialCapital + realized - commissions + funding == balance and nav == balance + unrealized, exactly. */
  identityHolds(): boolean {
    return this.identityProblem() === undefined;
  }

  assertIdentity(): void {
    const problem = this.identityProblem();
    if (problem) throw new AccountingIdentityError(problem);
  }

  snapshot(): AccountSnapshot {
    const unrealizedPnl = this.unrealizedPnl;
    return {
      initialCapital: new Dec(this.capital),
      balance: new Dec(this.balanceTotal),
      equity: new Dec(this.balanceTotal.plus(unrealizedPnl)),
      unrealizedPnl,
      realizedPnl: new Dec(this.realizedTotal),
      commissions: new Dec(this.commissionTotal),
      funding: new Dec(this.fundingTotal),
    };
  }

  /** The gateway Account resource; margin_available = equity - margin_used. */
  view(marginUsed: Dec): AccountView {
    const unrealized = this.unrealizedPnl;
    const equity = this.balanceTotal.plus(unrealized);
    return {
      balance: toDecimalString(this.balanceTotal),
      equity: toDecimalString(equity),
      margin_used: toDecimalString(new Exact(marginUsed)),
      margin_available: toDecimalString(equity.minus(marginUsed)),
      unrealized_pnl: toDecimalString(unrealized),
      currency: ACCOUNT_CURRENCY,
    };
  }

  private identityProblem(): string | undefined {
    const expected = this.capital
      .plus(this.realizedTotal)
      .minus(this.commissionTotal)
      .plus(this.fundingTotal);
    if (!expected.eq(this.balanceTotal)) {
      return `balance ${toDecimalString(this.balanceTotal)} != initialCapital + realized - commissions + funding = ${toDecimalString(expected)}`;
    }
    const unrealized = this.unrealizedPnl;
    const equity = this.equity;
    if (!equity.eq(this.balanceTotal.plus(unrealized))) {
      return `equity ${toDecimalString(equity)} != balance + unrealized = ${toDecimalString(this.balanceTotal.plus(unrealized))}`;
    }
    return undefined;
  }
}
