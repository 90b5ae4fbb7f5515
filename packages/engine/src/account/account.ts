/**
 * The account's books, in USD (decision 1).
 *
 *   balance = initialCapital + realized P&L - commissions + funding
 *   equity (NAV) = balance + unrealized P&L
 *
 * `balance` is kept as its own running total next to the three component totals, and
 * `assertIdentity` checks that they agree exactly: every total is a scaled integer (BigInt, exact),
 * so any difference is a booking error, never rounding. Realized P&L is before commissions (the lots'
 * `realized_pnl`); commissions are whole fill commissions (entry and exit); funding is signed
 * (negative debits, decision 5). The timeseries `units` is `balance`, `nav` is `equity`.
 */
import { Dec, toDecimalString } from '@hindsight/core';
import { ACCOUNT_CURRENCY } from '../numbers/currency.ts';
import { add, compare, type Scaled, scaledOf, scaledText, subtract } from '../numbers/scaled-decimal.ts';

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
 * The balance at one moment, as the per-bar path needs it: the scaled integer, its canonical text and
 * its float (the double nearest the decimal, as `Dec#toNumber` gives) at once, the decimal only when
 * read (once per balance).
 */
export class BalanceMoment {
  readonly text: string;
  readonly approx: number;
  private decimal: Dec | undefined;

  constructor(readonly scaled: Scaled) {
    this.text = scaledText(scaled);
    this.approx = Number(this.text);
  }

  get value(): Dec {
    this.decimal ??= new Dec(this.text);
    return this.decimal;
  }
}

export class AccountingIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountingIdentityError';
  }
}

const NO_POSITIONS: UnrealizedSource = { unrealizedPnlUsd: () => new Dec(0) };
const ZERO: Scaled = { value: 0n, scale: 0 };
const decimal = (s: Scaled): Dec => new Dec(scaledText(s));

export class Account {
  private readonly capital: Scaled;
  private readonly source: UnrealizedSource;
  private balanceTotal: Scaled;
  private realizedTotal: Scaled = ZERO;
  private commissionTotal: Scaled = ZERO;
  private fundingTotal: Scaled = ZERO;

  constructor(options: AccountOptions) {
    const capital = new Dec(options.initialCapital);
    if (!capital.isFinite()) throw new RangeError('initialCapital must be a finite number');
    this.capital = scaledOf(capital);
    this.balanceTotal = this.capital;
    this.source = options.unrealized ?? NO_POSITIONS;
  }

  get initialCapital(): Dec {
    return decimal(this.capital);
  }

  get balance(): Dec {
    return decimal(this.balanceTotal);
  }

  /** The balance as a scaled integer (exact). */
  get balanceScaled(): Scaled {
    return this.balanceTotal;
  }

  get realizedPnl(): Dec {
    return decimal(this.realizedTotal);
  }

  get commissions(): Dec {
    return decimal(this.commissionTotal);
  }

  get funding(): Dec {
    return decimal(this.fundingTotal);
  }

  /** Unrealized P&L of the open positions at their current marks, USD. */
  get unrealizedPnl(): Dec {
    return new Dec(this.source.unrealizedPnlUsd());
  }

  /** NAV: balance + unrealized. */
  get equity(): Dec {
    return decimal(this.plusUnrealized(this.source.unrealizedPnlUsd()));
  }

  /** Books a fill: its realized P&L (before fees) and its whole commission. */
  bookFill(fill: BookedFill): void {
    this.bookAmounts(scaledOf(fill.realizedPnlUsd), scaledOf(fill.commissionUsd));
  }

  /** `bookFill` with the amounts as scaled integers (the position book's `FillOutcome` has them). */
  bookAmounts(realizedUsd: Scaled, commissionUsd: Scaled): void {
    this.realizedTotal = add(this.realizedTotal, realizedUsd);
    this.commissionTotal = add(this.commissionTotal, commissionUsd);
    this.balanceTotal = subtract(add(this.balanceTotal, realizedUsd), commissionUsd);
  }

  /** Books a funding amount, USD, signed as it is added to the balance. */
  bookFunding(amountUsd: Dec): void {
    const amount = scaledOf(amountUsd);
    this.fundingTotal = add(this.fundingTotal, amount);
    this.balanceTotal = add(this.balanceTotal, amount);
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
      initialCapital: decimal(this.capital),
      balance: decimal(this.balanceTotal),
      equity: decimal(this.plusUnrealized(unrealizedPnl)),
      unrealizedPnl,
      realizedPnl: decimal(this.realizedTotal),
      commissions: decimal(this.commissionTotal),
      funding: decimal(this.fundingTotal),
    };
  }

  /** The gateway Account resource; margin_available = equity - margin_used. */
  view(marginUsed: Dec): AccountView {
    const unrealized = this.unrealizedPnl;
    const equity = this.plusUnrealized(unrealized);
    return {
      balance: scaledText(this.balanceTotal),
      equity: scaledText(equity),
      margin_used: toDecimalString(marginUsed),
      margin_available: scaledText(subtract(equity, scaledOf(marginUsed))),
      unrealized_pnl: toDecimalString(unrealized),
      currency: ACCOUNT_CURRENCY,
    };
  }

  /** balance + unrealized, exactly. */
  private plusUnrealized(unrealizedUsd: Dec): Scaled {
    return add(this.balanceTotal, scaledOf(unrealizedUsd));
  }

  private identityProblem(): string | undefined {
    const expected = subtract(add(this.capital, this.realizedTotal), this.commissionTotal);
    const withFunding = add(expected, this.fundingTotal);
    if (compare(withFunding, this.balanceTotal) !== 0) {
      return `balance ${scaledText(this.balanceTotal)} != initialCapital + realized - commissions + funding = ${scaledText(withFunding)}`;
    }
    const unrealized = this.unrealizedPnl;
    const equity = this.equity;
    const expectedEquity = this.plusUnrealized(unrealized);
    if (compare(scaledOf(equity), expectedEquity) !== 0) {
      return `equity ${toDecimalString(equity)} != balance + unrealized = ${scaledText(expectedEquity)}`;
    }
    return undefined;
  }
}
