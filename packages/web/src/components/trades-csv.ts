/**
 * The trades CSV the run page offers: one row per trade lot, the columns the trades result file's
 * fields in the spec's order (management-api.md, "Trades file"). Values are the file's own: decimal
 * strings as they are, epoch-ms integers as integers, an empty cell where the file omits a field
 * (open trades have no close side). RFC 4180: CRLF line ends, a field quoted when it holds a comma,
 * a double quote or a line break, quotes doubled. No DOM here, so node:test can import it.
 */

/** The trades file's fields in the order the spec lists them. */
export const TRADE_FIELDS = [
  'id',
  'state',
  'instrument_symbol',
  'open_price',
  'base_open_price',
  'open_slippage_bps',
  'close_price',
  'base_close_price',
  'close_slippage_bps',
  'entry_commission',
  'exit_commission',
  'units',
  'direction',
  'opened_at',
  'opened_by_order_id',
  'closed_at',
  'closed_by_order_id',
  'realized_pnl',
  'close_reason',
] as const;

export type TradeField = (typeof TRADE_FIELDS)[number];

/**
 * A trade lot as the CSV reads it: the file's fields, each a string or an epoch-ms integer, absent when
 * the file omits it (internal.ts's TradeLot is one; typed here so this module needs nothing from the DOM).
 */
export type TradeRecord = { readonly [K in TradeField]?: string | number };

/** One CSV field: as is, or quoted when RFC 4180 asks for it. */
export function csvField(value: string | number | undefined | null): string {
  if (value === undefined || value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The whole CSV: a header row of field names, then one row per trade in the order given. */
export function tradesCsv(trades: readonly TradeRecord[]): string {
  const lines = [TRADE_FIELDS.join(',')];
  for (const trade of trades) lines.push(TRADE_FIELDS.map((field) => csvField(trade[field])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
