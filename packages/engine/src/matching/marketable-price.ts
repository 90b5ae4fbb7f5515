import type { Dec } from '@hindsight/core';
import type { TickQuote } from '../numbers/tick-quote.ts';
import type { SubmitOrder } from '../orders/commands.ts';
import type { LegKind } from '../orders/order-links.ts';
import type { Side } from '../orders/order-types.ts';

/**
 * Whether an order would trade at once at the current quote, and at what price: the rule a new or
 * modified order, a post-only order and an exit leg's trigger are all checked with.
 */

/** An instrument's current quote, if it has one yet. */
export interface CurrentQuote {
  readonly hasQuote: boolean;
  readonly quote: TickQuote;
}

/** The order fields the rule reads. */
export interface MarketableRequest {
  side: Side;
  order_type: SubmitOrder['order_type'];
  limit_price?: Dec | null | undefined;
  stop_price?: Dec | null | undefined;
}

/** The price a `side` order trades at on `quote`: the ask for a buy, the bid for a sell. */
export const quoteOn = (quote: TickQuote, side: Side): Dec => (side === 'BUY' ? quote.ask : quote.bid);

/**
 * The price an order trades at right now, if the current quote already satisfies it: a limit
 * through the quote, a stop already through its trigger (a stop-limit only if its limit is then
 * marketable too). Buys look at the ask, sells at the bid.
 */
export function marketablePrice(state: CurrentQuote, request: MarketableRequest): Dec | undefined {
  const type = request.order_type;
  if (!state.hasQuote || (type !== 'LIMIT' && type !== 'STOP' && type !== 'STOP_LIMIT')) return undefined;
  const buy = request.side === 'BUY';
  const quote = quoteOn(state.quote, request.side);
  switch (type) {
    case 'LIMIT':
      return reaches(quote, buy, request.limit_price, 'limit') ? quote : undefined;
    case 'STOP':
      return reaches(quote, buy, request.stop_price, 'stop') ? quote : undefined;
    default:
      return reaches(quote, buy, request.stop_price, 'stop') &&
        reaches(quote, buy, request.limit_price, 'limit')
        ? quote
        : undefined;
  }
}

/**
 * The one rule for an exit leg's trigger against the market: the current quote on the exit's side
 * when a leg at `price` would fill at once (a stop already reached, a take-profit limit already
 * marketable), else undefined.
 */
export function legThroughMarket(
  state: CurrentQuote,
  exitSide: Side,
  leg: LegKind,
  price: Dec,
): Dec | undefined {
  return marketablePrice(state, {
    side: exitSide,
    order_type: leg === 'stop' ? 'STOP' : 'LIMIT',
    limit_price: leg === 'take' ? price : null,
    stop_price: leg === 'stop' ? price : null,
  });
}

/** Whether `quote` already satisfies a buy's or sell's limit (at or through it) or stop (reached). */
function reaches(
  quote: Dec,
  buy: boolean,
  price: Dec | null | undefined,
  through: 'limit' | 'stop',
): boolean {
  if (!price) return false;
  return (through === 'limit') === buy ? quote.lte(price) : quote.gte(price);
}
