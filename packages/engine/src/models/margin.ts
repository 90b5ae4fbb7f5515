import { Dec } from '@hindsight/core';
import type { AssetClass } from '../orders/order-types.ts';

/**
 * Leverage and margin (docs/fills.md "Orders, time in force, margin"). One cross-margined USD account:
 * - leverage per asset class, by default FOREX 50, CRYPTO 2, STOCK 4, FUTURES 10; an order's
 *   `leverage` (1 to the capability's `max_leverage`, 50) may lower its instrument's leverage, never
 *   raise it: effective = min(requested ?? default, default);
 * - required margin = |notional in USD| / leverage; margin_used = the sum over open positions;
 * - margin level = equity / margin_used x 100 (%); with no margin used there is no level (state ok);
 * - levels: warning at 150 %, margin call at 100 %, stop-out at 50 % (each "at or below");
 * - at stop-out positions are liquidated, largest loss first, until the level is above 50 % again.
 */

/** Default leverage per asset class (decimal strings, as Capabilities and Position carry them). */
export const DEFAULT_LEVERAGE: Readonly<Record<AssetClass, string>> = {
  STOCK: '4',
  FOREX: '50',
  CRYPTO: '2',
  FUTURES: '10',
};

/** The defaults as decimals, parsed once (every order's margin check reads one). */
const DEFAULT_LEVERAGE_DEC: Readonly<Record<AssetClass, Dec>> = {
  STOCK: new Dec(DEFAULT_LEVERAGE.STOCK),
  FOREX: new Dec(DEFAULT_LEVERAGE.FOREX),
  CRYPTO: new Dec(DEFAULT_LEVERAGE.CRYPTO),
  FUTURES: new Dec(DEFAULT_LEVERAGE.FUTURES),
};

/** The Capabilities `max_leverage`: the largest default. An order may not ask for more. */
export const MAX_LEVERAGE = '50';

/** Margin levels in percent: each applies when the level is at or below it. */
export const MARGIN_LEVELS = { warningPct: '150', callPct: '100', stopOutPct: '50' } as const;

export type MarginState = 'ok' | 'warning' | 'call' | 'stop_out';

/** The leverage an order gets: its own `leverage` when given, capped at the asset-class default. */
export function effectiveLeverage(assetClass: AssetClass, requested?: Dec | string | null): Dec {
  const cap = DEFAULT_LEVERAGE_DEC[assetClass];
  if (requested === undefined || requested === null) return cap;
  return Dec.min(new Dec(requested), cap);
}

/** |notional| / leverage. */
export function requiredMargin(notionalUsd: Dec, leverage: Dec | string): Dec {
  return notionalUsd.abs().div(leverage);
}

/** margin_used: the sum of the open positions' margins. */
export function totalMargin(margins: Iterable<Dec>): Dec {
  let sum = new Dec(0);
  for (const m of margins) sum = sum.plus(m);
  return sum;
}

/** Account `margin_available`: equity - margin_used, never below 0. */
export function marginAvailable(equity: Dec, marginUsed: Dec): Dec {
  return Dec.max(equity.minus(marginUsed), 0);
}

/** equity / margin_used x 100; null when no margin is used (the level is unbounded). */
export function marginLevelPct(equity: Dec, marginUsed: Dec): Dec | null {
  if (!marginUsed.gt(0)) return null;
  return equity.div(marginUsed).times(100);
}

/** The account's state at its margin level: each threshold applies at or below it. */
export function marginState(equity: Dec, marginUsed: Dec): MarginState {
  const level = marginLevelPct(equity, marginUsed);
  if (level === null) return 'ok';
  if (level.lte(MARGIN_LEVELS.stopOutPct)) return 'stop_out';
  if (level.lte(MARGIN_LEVELS.callPct)) return 'call';
  if (level.lte(MARGIN_LEVELS.warningPct)) return 'warning';
  return 'ok';
}

const SEVERITY: Record<MarginState, number> = { ok: 0, warning: 1, call: 2, stop_out: 3 };

/**
 * The account event to emit when the state moves from `previous` to `next`: only a move to a worse
 * state emits (MARGIN_WARNING on entering warning; MARGIN_CALL on entering call or stop-out, the latter
 * followed by liquidation). Recovering emits nothing and re-arms the events.
 */
export function marginEvent(
  previous: MarginState,
  next: MarginState,
): 'MARGIN_WARNING' | 'MARGIN_CALL' | null {
  if (SEVERITY[next] <= SEVERITY[previous]) return null;
  return next === 'warning' ? 'MARGIN_WARNING' : 'MARGIN_CALL';
}

/**
 * True when an order's additional margin exceeds the free margin (equity - margin_used): the order is
 * then rejected INSUFFICIENT_MARGIN. Using exactly all the free margin is allowed. An order adding no
 * margin (additionalMargin <= 0: it only reduces exposure) never exceeds.
 */
export function wouldExceedMargin(input: { equity: Dec; marginUsed: Dec; additionalMargin: Dec }): boolean {
  if (!input.additionalMargin.gt(0)) return false;
  return input.marginUsed.plus(input.additionalMargin).gt(input.equity);
}

/**
 * Netting: the units of an order (signed, + buys) that add exposure to a position (signed, + long).
 * Same direction or flat: all of them. Opposite direction: only what is left after closing the
 * position (a reversal); a pure reduction adds none.
 */
export function exposureDelta(currentSignedUnits: Dec, orderSignedUnits: Dec): Dec {
  if (currentSignedUnits.isZero() || orderSignedUnits.isZero()) return orderSignedUnits.abs();
  if (currentSignedUnits.isPositive() === orderSignedUnits.isPositive()) return orderSignedUnits.abs();
  return Dec.max(orderSignedUnits.abs().minus(currentSignedUnits.abs()), 0);
}

/**
 * Netting: the margin an opposite order frees by closing (part of) a position, pro rata to the units
 * closed; 0 for an order in the position's direction.
 */
export function releasedMargin(currentSignedUnits: Dec, orderSignedUnits: Dec, positionMargin: Dec): Dec {
  if (currentSignedUnits.isZero() || orderSignedUnits.isZero()) return new Dec(0);
  if (currentSignedUnits.isPositive() === orderSignedUnits.isPositive()) return new Dec(0);
  const current = currentSignedUnits.abs();
  return positionMargin.times(Dec.min(orderSignedUnits.abs(), current)).div(current);
}

export interface LiquidationCandidate {
  id: string;
  /** In USD; negative for a loss. */
  unrealizedPnl: Dec;
  /** The position's margin in USD. */
  margin: Dec;
}

/**
 * Stop-out order: largest loss first (lowest unrealized P&L), then the larger margin, then the id, so
 * the order is fully determined.
 */
export function liquidationOrder<T extends LiquidationCandidate>(positions: readonly T[]): T[] {
  return [...positions].sort((a, b) => {
    const pnl = a.unrealizedPnl.comparedTo(b.unrealizedPnl);
    if (pnl !== 0) return pnl;
    const margin = b.margin.comparedTo(a.margin);
    if (margin !== 0) return margin;
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}

/**
 * The positions to close at a stop-out, in order: closing realizes a position's unrealized P&L (equity
 * is unchanged) and frees its margin; positions are taken in `liquidationOrder` until the level is above
 * the stop-out level. Closing costs are not foreseen: the engine closes one position at a time and
 * re-checks the actual level after each close.
 */
export function stopOutPlan<T extends LiquidationCandidate>(
  equity: Dec,
  marginUsed: Dec,
  positions: readonly T[],
): T[] {
  const plan: T[] = [];
  let used = marginUsed;
  for (const position of liquidationOrder(positions)) {
    if (marginState(equity, used) !== 'stop_out') break;
    plan.push(position);
    used = used.minus(position.margin);
  }
  return plan;
}
