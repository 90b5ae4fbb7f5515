import { DEC_ZERO, type Dec } from '@hindsight/core';
import type { Side } from '../orders/order-types.ts';
import type { PositionSnapshot } from './position.ts';
import type { PositionBook } from './position-book.ts';

/**
 * Which open position an order reduces: what reduce-only orders, exit legs and (hedging) orders aimed
 * at a position with `position_id` are trimmed to, and what an exit leg protects.
 */

/**
 * The open position an order of `side` on `symbol` reduces, if any: netting, the symbol's position
 * when it is on the other side; hedging, the position named (or the oldest on the other side).
 */
export function positionReducedBy(
  book: Pick<PositionBook, 'mode' | 'positionOf' | 'position' | 'positions'>,
  symbol: string,
  side: Side,
  positionId: string | null | undefined,
): PositionSnapshot | undefined {
  const opposite = side === 'BUY' ? 'SHORT' : 'LONG';
  const target =
    book.mode === 'netting'
      ? book.positionOf(symbol)
      : positionId
        ? book.position(positionId)
        : book.positions(symbol).find((p) => p.side === opposite);
  return target && target.symbol === symbol && target.side === opposite ? target : undefined;
}

/** Units of the position an exit of `exitSide` protects (netting: the symbol's; hedging: its own). */
export function protectedUnits(
  book: Pick<PositionBook, 'mode' | 'positionOf' | 'position' | 'positions'>,
  symbol: string,
  exitSide: Side,
  positionId: string | undefined,
): Dec {
  return positionReducedBy(book, symbol, exitSide, positionId)?.quantity ?? DEC_ZERO;
}
