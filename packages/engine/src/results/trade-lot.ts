/**
 * Trade lots: the records of the trades result file (management-api.md "Result files", Trades file).
 *
 * Field names are the file's own (snake_case). Money and prices are canonical decimal strings
 * (decision 37); times are epoch milliseconds. The builders are pure: they return new records and
 * never mutate their input. Realized P&L is computed (and converted to USD, decision 1) by the
 * caller; this module only carries it.
 */

import { Dec, toDecimalString } from '@hindsight/core';
import { Exact, exact } from '../account/exact.ts';

export type TradeState = 'Open' | 'Closed';
export type TradeDirection = 'Long' | 'Short';
export type CloseReason = 'Normal' | 'Liquidation' | 'EndOfBacktest';

/** Input amount: a `Dec` or a decimal string; written out canonically. */
export type DecimalInput = Dec | string;

interface TradeLotCommon {
  id: string;
  instrument_symbol: string;
  /** Post-slippage entry fill. */
  open_price: string;
  /** Pre-slippage market price. */
  base_open_price?: string;
  open_slippage_bps?: string;
  /** Omitted when zero (decision 6). */
  entry_commission?: string;
  /** Position size of the lot (always positive; the side is `direction`). */
  units: string;
  direction: TradeDirection;
  opened_at: number;
  opened_by_order_id: string;
}

/** A lot still open: every close-side field is absent (not `undefined`-valued, absent). */
export interface OpenTradeLot extends TradeLotCommon {
  state: 'Open';
  close_price?: never;
  base_close_price?: never;
  close_slippage_bps?: never;
  exit_commission?: never;
  closed_at?: never;
  closed_by_order_id?: never;
  realized_pnl?: never;
  close_reason?: never;
}

export interface ClosedTradeLot extends TradeLotCommon {
  state: 'Closed';
  /** Post-slippage exit fill. */
  close_price: string;
  base_close_price?: string;
  close_slippage_bps?: string;
  /** Omitted when zero (decision 6). */
  exit_commission?: string;
  closed_at: number;
  closed_by_order_id: string;
  /** Before commissions, in USD: Long units x (close - open), Short units x (open - close) (decision 1). */
  realized_pnl: string;
  close_reason: CloseReason;
}

export type TradeLot = OpenTradeLot | ClosedTradeLot;

/**
 * Decision 7: trade ids are strings that sort in creation order as plain strings. The engine numbers
 * lots 1, 2, 3, ... and zero-pads them to this width, which leaves room for a billion lots (a 10-year
 * 1m run has about 5.3 million base bars).
 */
export const TRADE_ID_WIDTH = 9;

/** `formatTradeId(1)` is `"000000001"`. */
export function formatTradeId(sequence: number): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1 || sequence >= 10 ** TRADE_ID_WIDTH) {
    throw new RangeError(`trade sequence must be an integer from 1 to ${10 ** TRADE_ID_WIDTH - 1}`);
  }
  return String(sequence).padStart(TRADE_ID_WIDTH, '0');
}

export interface OpenLotInput {
  id: string;
  instrumentSymbol: string;
  direction: TradeDirection;
  units: DecimalInput;
  openPrice: DecimalInput;
  baseOpenPrice?: DecimalInput;
  openSlippageBps?: DecimalInput;
  /** USD; zero or absent gives no `entry_commission` field. */
  entryCommission?: DecimalInput;
  openedAt: number;
  openedByOrderId: string;
}

export interface CloseLotInput {
  closePrice: DecimalInput;
  baseClosePrice?: DecimalInput;
  closeSlippageBps?: DecimalInput;
  /** USD; zero or absent gives no `exit_commission` field. */
  exitCommission?: DecimalInput;
  closedAt: number;
  closedByOrderId: string;
  /** USD, before commissions, computed by the caller. */
  realizedPnl: DecimalInput;
  closeReason: CloseReason;
}

const canonical = (value: DecimalInput): string => toDecimalString(value);

/**
 * A lot's amounts as exact decimals (`Exact` instances, so products of them do not round). Zero for a
 * field the record omits.
 */
export interface LotDecimals {
  units: Dec;
  openPrice: Dec;
  entryCommission: Dec;
  exitCommission: Dec;
  realizedPnl: Dec;
}

/**
 * The decimals each record was written from, kept beside it: the books and the metrics read them
 * instead of parsing the record's strings back (records are immutable, so these never go stale). A
 * record made elsewhere (a test, a file read back) is parsed once, on first read.
 */
const decimalsOfLots = new WeakMap<TradeLot, LotDecimals>();

const EXACT_ZERO = new Exact(0);

/** The record's amounts as exact decimals, the same values as its strings. */
export function lotDecimals(lot: TradeLot): LotDecimals {
  let figures = decimalsOfLots.get(lot);
  if (!figures) {
    figures = {
      units: new Exact(lot.units),
      openPrice: new Exact(lot.open_price),
      entryCommission: new Exact(lot.entry_commission ?? 0),
      exitCommission: new Exact(lot.exit_commission ?? 0),
      realizedPnl: new Exact(lot.realized_pnl ?? 0),
    };
    decimalsOfLots.set(lot, figures);
  }
  return figures;
}

function remember(lot: TradeLot, figures: LotDecimals): void {
  decimalsOfLots.set(lot, figures);
}

function assertTime(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be an integer epoch ms`);
}

function assertPositiveUnits(units: Dec): void {
  if (!units.isFinite() || units.lte(0)) throw new RangeError('lot units must be positive');
}

/** A new open lot. Optional inputs that are absent stay absent; a zero commission is omitted. */
export function openLot(input: OpenLotInput): OpenTradeLot {
  assertTime('openedAt', input.openedAt);
  const units = new Dec(input.units);
  assertPositiveUnits(units);
  const lot: OpenTradeLot = {
    id: input.id,
    state: 'Open',
    instrument_symbol: input.instrumentSymbol,
    open_price: canonical(input.openPrice),
    units: toDecimalString(units),
    direction: input.direction,
    opened_at: input.openedAt,
    opened_by_order_id: input.openedByOrderId,
  };
  if (input.baseOpenPrice !== undefined) lot.base_open_price = canonical(input.baseOpenPrice);
  if (input.openSlippageBps !== undefined) lot.open_slippage_bps = canonical(input.openSlippageBps);
  const entryCommission = input.entryCommission === undefined ? EXACT_ZERO : new Exact(input.entryCommission);
  if (!entryCommission.isZero()) lot.entry_commission = canonical(entryCommission);
  remember(lot, {
    units: new Exact(units),
    openPrice: new Exact(input.openPrice),
    entryCommission,
    exitCommission: EXACT_ZERO,
    realizedPnl: EXACT_ZERO,
  });
  return lot;
}

/** The closed version of an open lot; the open record is left as it was. */
export function closeLot(lot: OpenTradeLot, input: CloseLotInput): ClosedTradeLot {
  if (lot.state !== 'Open') throw new RangeError(`trade ${lot.id} is not open`);
  assertTime('closedAt', input.closedAt);
  if (input.closedAt < lot.opened_at) throw new RangeError(`trade ${lot.id} cannot close before it opened`);
  // Written field by field (not spread from the open lot): the same key order, without the slow
  // objects a spread of a dozen fields plus later additions makes in V8.
  const closed: ClosedTradeLot = {
    id: lot.id,
    state: 'Closed',
    instrument_symbol: lot.instrument_symbol,
    open_price: lot.open_price,
    units: lot.units,
    direction: lot.direction,
    opened_at: lot.opened_at,
    opened_by_order_id: lot.opened_by_order_id,
  } as ClosedTradeLot;
  if (lot.base_open_price !== undefined) closed.base_open_price = lot.base_open_price;
  if (lot.open_slippage_bps !== undefined) closed.open_slippage_bps = lot.open_slippage_bps;
  if (lot.entry_commission !== undefined) closed.entry_commission = lot.entry_commission;
  closed.close_price = canonical(input.closePrice);
  closed.closed_at = input.closedAt;
  closed.closed_by_order_id = input.closedByOrderId;
  closed.realized_pnl = canonical(input.realizedPnl);
  closed.close_reason = input.closeReason;
  if (input.baseClosePrice !== undefined) closed.base_close_price = canonical(input.baseClosePrice);
  if (input.closeSlippageBps !== undefined) closed.close_slippage_bps = canonical(input.closeSlippageBps);
  const exitCommission = input.exitCommission === undefined ? EXACT_ZERO : new Exact(input.exitCommission);
  if (!exitCommission.isZero()) closed.exit_commission = canonical(exitCommission);
  const open = lotDecimals(lot);
  remember(closed, {
    units: open.units,
    openPrice: open.openPrice,
    entryCommission: open.entryCommission,
    exitCommission,
    realizedPnl: new Exact(input.realizedPnl),
  });
  return closed;
}

/**
 * Partial close support: detaches `units` from an open lot as a new open lot with id `detachedId`
 * (created now, so its id sorts after every earlier lot, decision 7) and keeps the rest under the
 * original id. The entry commission is shared pro rata; the remainder gets entry - detached share so
 * the two always add up exactly. Everything else (prices, slippage, opening order and time) is copied.
 */
export function splitLot(
  lot: OpenTradeLot,
  units: DecimalInput,
  detachedId: string,
): { detached: OpenTradeLot; remainder: OpenTradeLot } {
  if (lot.state !== 'Open') throw new RangeError(`trade ${lot.id} is not open`);
  const figures = lotDecimals(lot);
  const total = figures.units;
  const part = new Dec(units);
  assertPositiveUnits(part);
  if (part.gte(total)) throw new RangeError(`split of trade ${lot.id} must leave a positive remainder`);
  const { entry_commission: entry, ...rest } = lot;
  const left = exact(total).minus(part);
  const detached: OpenTradeLot = { ...rest, id: detachedId, units: toDecimalString(part) };
  const remainder: OpenTradeLot = { ...rest, units: toDecimalString(left) };
  const { openPrice } = figures;
  let detachedShare: Dec = EXACT_ZERO;
  let remainderShare: Dec = EXACT_ZERO;
  if (entry !== undefined) {
    const entryTotal = new Dec(figures.entryCommission);
    const share = entryTotal.times(part).div(total);
    if (!share.isZero()) detached.entry_commission = toDecimalString(share);
    // The two shares must add up to the lot's commission exactly, so the remainder is not rounded.
    const rest = exact(entryTotal).minus(share);
    if (!rest.isZero()) remainder.entry_commission = toDecimalString(rest);
    detachedShare = new Exact(share);
    remainderShare = rest;
  }
  const none = { exitCommission: EXACT_ZERO, realizedPnl: EXACT_ZERO };
  remember(detached, { units: new Exact(part), openPrice, entryCommission: detachedShare, ...none });
  remember(remainder, { units: left, openPrice, entryCommission: remainderShare, ...none });
  return { detached, remainder };
}

/** Commission paid on a lot so far (entry, plus exit once closed), in USD. */
export function lotCommission(lot: TradeLot): Dec {
  const figures = lotDecimals(lot);
  let sum = new Dec(figures.entryCommission);
  if (lot.state === 'Closed' && lot.exit_commission !== undefined) sum = sum.plus(figures.exitCommission);
  return sum;
}
