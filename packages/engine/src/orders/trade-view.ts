import { isoTime } from '../numbers/iso-time.ts';
import { type Scaled, scaledText } from '../numbers/scaled-decimal.ts';
import { type EveryKey, lazyView } from './lazy-view.ts';
import type { Side, Trade } from './order-types.ts';

/** One fill as the engine records it (immutable); its wire Trade is written when read. */
export interface FillRecord {
  /** The fill's sequence number, from 1: the trade id. */
  sequence: number;
  orderId: string;
  symbol: string;
  side: Side;
  /**
   * Units and price as the books took them, and the commission (USD): only what the Trade shows, so
   * the rest of the fill's figures need not outlive the fill (a fill record lasts the whole run).
   */
  unitsText: string;
  priceText: string;
  commission: Scaled;
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
    quantity: fill.unitsText,
    price: fill.priceText,
    commission: scaledText(fill.commission),
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
export const lazyWireTrade: (fill: FillRecord) => Trade = lazyView(WIRE_TRADE_KEYS, toWireTrade, [
  'symbol',
  'side',
]);
