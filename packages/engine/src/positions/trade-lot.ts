/**
 * Trade lots: the records of the trades result file (management-api.md "Result files", Trades file).
 *
 * Field names are the file's own (snake_case). Money and prices are canonical decimal strings
 * (decision 37); times are epoch milliseconds. The builders are pure: they return new records and
 * never mutate their input. Realized P&L is computed (and converted to USD, decision 1) by the
 * caller; this module only carries it.
 */

import { Dec, toDecimalString } from '@hindsight/core';
import {
  add,
  compare,
  scaledOf,
  scaledOfText,
  scaledText,
  shareOf,
  subtract,
} from '../numbers/scaled-decimal.ts';

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

/** The first sequence too long for the width (a constant: `10 **` here was a `pow` call per lot). */
const TRADE_ID_LIMIT = 10 ** TRADE_ID_WIDTH;

/** `formatTradeId(1)` is `"000000001"`. */
export function formatTradeId(sequence: number): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1 || sequence >= TRADE_ID_LIMIT) {
    throw new RangeError(`trade sequence must be an integer from 1 to ${TRADE_ID_LIMIT - 1}`);
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
/** An optional input's canonical text; absent stays absent (the record leaves it out). */
const canonicalIfPresent = (value: DecimalInput | undefined): string | undefined =>
  value === undefined ? undefined : canonical(value);

/** An open lot's fields as canonical texts (how the position book writes its lots, without parsing). */
export interface OpenLotFields {
  id: string;
  instrumentSymbol: string;
  direction: TradeDirection;
  units: string;
  openPrice: string;
  baseOpenPrice?: string;
  openSlippageBps?: string;
  /** Omitted when absent or `0`. */
  entryCommission?: string;
  openedAt: number;
  openedByOrderId: string;
}

/** The close-side fields as canonical texts. */
export interface CloseLotFields {
  closePrice: string;
  baseClosePrice?: string;
  closeSlippageBps?: string;
  /** Omitted when absent or `0`. */
  exitCommission?: string;
  closedAt: number;
  closedByOrderId: string;
  realizedPnl: string;
  closeReason: CloseReason;
}

function assertTime(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be an integer epoch ms`);
}

function assertPositiveUnits(units: Dec): void {
  if (!units.isFinite() || units.lte(0)) throw new RangeError('lot units must be positive');
}

/** The record of an open lot from canonical texts (the caller has checked the amounts). */
export function writeOpenLot(fields: OpenLotFields): OpenTradeLot {
  return withoutAbsent({
    id: fields.id,
    state: 'Open',
    instrument_symbol: fields.instrumentSymbol,
    open_price: fields.openPrice,
    units: fields.units,
    direction: fields.direction,
    opened_at: fields.openedAt,
    opened_by_order_id: fields.openedByOrderId,
    base_open_price: fields.baseOpenPrice,
    open_slippage_bps: fields.openSlippageBps,
    entry_commission: amountOrAbsent(fields.entryCommission),
  });
}

/** A new open lot. Optional inputs that are absent stay absent; a zero commission is omitted. */
export function openLot(input: OpenLotInput): OpenTradeLot {
  assertTime('openedAt', input.openedAt);
  const units = new Dec(input.units);
  assertPositiveUnits(units);
  return writeOpenLot({
    id: input.id,
    instrumentSymbol: input.instrumentSymbol,
    direction: input.direction,
    units: toDecimalString(units),
    openPrice: canonical(input.openPrice),
    baseOpenPrice: canonicalIfPresent(input.baseOpenPrice),
    openSlippageBps: canonicalIfPresent(input.openSlippageBps),
    entryCommission: canonicalIfPresent(input.entryCommission),
    openedAt: input.openedAt,
    openedByOrderId: input.openedByOrderId,
  });
}

/** The closed version of an open lot from canonical texts; the open record is left as it was. */
export function writeClosedLot(lot: OpenTradeLot, fields: CloseLotFields): ClosedTradeLot {
  if (lot.state !== 'Open') throw new RangeError(`trade ${lot.id} is not open`);
  return withoutAbsent({
    id: lot.id,
    state: 'Closed',
    instrument_symbol: lot.instrument_symbol,
    open_price: lot.open_price,
    units: lot.units,
    direction: lot.direction,
    opened_at: lot.opened_at,
    opened_by_order_id: lot.opened_by_order_id,
    base_open_price: lot.base_open_price,
    open_slippage_bps: lot.open_slippage_bps,
    entry_commission: lot.entry_commission,
    close_price: fields.closePrice,
    closed_at: fields.closedAt,
    closed_by_order_id: fields.closedByOrderId,
    realized_pnl: fields.realizedPnl,
    close_reason: fields.closeReason,
    base_close_price: fields.baseClosePrice,
    close_slippage_bps: fields.closeSlippageBps,
    exit_commission: amountOrAbsent(fields.exitCommission),
  });
}

/** A commission text as a lot writes it: absent when zero (decision 6). */
const amountOrAbsent = (text: string | undefined): string | undefined => (text === '0' ? undefined : text);

/**
 * A lot record with its `undefined` fields left out (absent, not `undefined`-valued), in the same key
 * order. A fill's usual lot has every field and is returned as written: one literal keeps all its
 * fields in the object, where fields added one by one go to a separate property array through a chain
 * of shape changes (more to copy for the collector, for a record kept the whole run).
 */
function withoutAbsent<T extends TradeLot>(full: { [K in keyof T]: T[K] | undefined }): T {
  let complete = true;
  for (const key in full) if (full[key] === undefined) complete = false;
  if (complete) return full as T;
  const lot: Partial<T> = {};
  for (const key in full) if (full[key] !== undefined) lot[key] = full[key] as T[typeof key];
  return lot as T;
}

/** The closed version of an open lot; the open record is left as it was. */
export function closeLot(lot: OpenTradeLot, input: CloseLotInput): ClosedTradeLot {
  if (lot.state !== 'Open') throw new RangeError(`trade ${lot.id} is not open`);
  assertTime('closedAt', input.closedAt);
  if (input.closedAt < lot.opened_at) throw new RangeError(`trade ${lot.id} cannot close before it opened`);
  return writeClosedLot(lot, {
    closePrice: canonical(input.closePrice),
    baseClosePrice: canonicalIfPresent(input.baseClosePrice),
    closeSlippageBps: canonicalIfPresent(input.closeSlippageBps),
    exitCommission: canonicalIfPresent(input.exitCommission),
    closedAt: input.closedAt,
    closedByOrderId: input.closedByOrderId,
    realizedPnl: canonical(input.realizedPnl),
    closeReason: input.closeReason,
  });
}

/**
 * Partial close support: detaches `units` from an open lot as a new open lot with id `detachedId`
 * (created now, so its id sorts after every earlier lot, decision 7) and keeps the rest under the
 * original id. The entry commission is shared pro rata (`shareOf`, as `Dec` computes entry x units /
 * lot units); the remainder gets entry - detached share exactly, so the two always add up. Everything
 * else (prices, slippage, opening order and time) is copied. In scaled integers from the record's texts.
 */
export function splitLot(
  lot: OpenTradeLot,
  units: DecimalInput,
  detachedId: string,
): { detached: OpenTradeLot; remainder: OpenTradeLot } {
  if (lot.state !== 'Open') throw new RangeError(`trade ${lot.id} is not open`);
  const partDec = new Dec(units);
  assertPositiveUnits(partDec);
  const total = scaledOfText(lot.units);
  const part = scaledOf(partDec);
  if (compare(part, total) >= 0)
    throw new RangeError(`split of trade ${lot.id} must leave a positive remainder`);
  const { entry_commission: entry, ...rest } = lot;
  const detached: OpenTradeLot = { ...rest, id: detachedId, units: scaledText(part) };
  const remainder: OpenTradeLot = { ...rest, units: scaledText(subtract(total, part)) };
  if (entry !== undefined) {
    const entryTotal = scaledOfText(entry);
    const share = shareOf(entryTotal, part, total);
    if (share.value !== 0n) detached.entry_commission = scaledText(share);
    const left = subtract(entryTotal, share);
    if (left.value !== 0n) remainder.entry_commission = scaledText(left);
  }
  return { detached, remainder };
}

/** Commission paid on a lot so far (entry, plus exit once closed), in USD. */
export function lotCommission(lot: TradeLot): Dec {
  let sum = scaledOfText(lot.entry_commission ?? '0');
  if (lot.state === 'Closed' && lot.exit_commission !== undefined)
    sum = add(sum, scaledOfText(lot.exit_commission));
  return new Dec(scaledText(sum));
}
