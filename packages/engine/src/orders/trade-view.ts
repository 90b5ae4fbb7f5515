import { scaledText } from '../account/scaled-decimal.ts';
import { isoTime } from '../iso-time.ts';
import type { FillFigures } from '../positions/fill-figures.ts';
import { type EveryKey, lazyView } from './lazy-view.ts';
import type { Side, Trade } from './order-types.ts';

/** One fill as the engine records it (immutable); its wire Trade is written when read. */
export interface FillRecord {
  /** The fill's sequence number, from 1: the trade id. */
  sequence: number;
  orderId: string;
  symbol: string;
  side: Side;
  /** Units, price and commission (USD) as the books took them. */
  figures: FillFigures;
  /** Epoch ms. */
  at: number;
}

/** The wire Trade of a fill (trading-gateway.md, Trade): `trd-` and the zero-padded sequence. */
export function toWireTrade(fill: FillRecord): Trade {
  return {
    id: `trd-${String(fill.sequence).padStart(9, '0')}`,
    order_id: fill.orderId,
    symbol: fill.symbol,
    side: fill.side,
    quantity: fill.figures.unitsText,
    price: fill.figures.priceText,
    commission: scaledText(fill.figures.commission),
    commission_currency: 'USD',
    timestamp: isoTime(fill.at),
  };
}

const WIRE_TRADE_KEYS = [
  'id',
  'order_id',
  'symbol',
  'side',
  'quantity',
  'price',
  'commission',
  'commission_currency',
  'is_maker',
  'timestamp',
] as const satisfies readonly (keyof Trade)[];
export const WIRE_TRADE_KEYS_COMPLETE: EveryKey<Trade, typeof WIRE_TRADE_KEYS> = true;

/** The wire Trade of a fill, written when first read or serialised (`GET /v1/trades`, trade events). */
export const lazyWireTrade: (fill: FillRecord) => Trade = lazyView(WIRE_TRADE_KEYS, toWireTrade);
