/**
 * The data a report page embeds for its script: the account curve and candles as compact numeric
 * columns for the charts (charts draw floats: NAV and balance to the cent), and the trades as rows of
 * exact decimal strings for the table (money is never read as a float there; a lot's commission and
 * net P&L are added in `Dec`).
 *
 * Compact: times and prices are written as differences from the previous value, prices as integers
 * at a decimal scale. A 1m series is mostly "60000" apart and moves a few cents a bar, so three
 * months of candles and account points take about half the text of plain numbers.
 */
import { Dec, toDecimalString } from '@hindsight/core';
import type { TradeLot } from '@hindsight/engine';
import type { ReportCandles, ReportInput } from './report-input.ts';

/**
 * Times as the first epoch ms and the differences from each to the next (a 1m series is mostly
 * "60000"), which keeps a 131k-point series' JSON a third smaller than absolute times.
 */
export interface TimeColumn {
  t0: number;
  dt: number[];
}

/**
 * Values as integers times 10^-scale: the first, then the difference from each to the next. The page
 * reads value i as (first + deltas[0] + ... + deltas[i-1]) / 10^scale, the double nearest the scaled
 * decimal.
 */
export interface ScaledColumn {
  scale: number;
  first: number;
  deltas: number[];
}

export interface EquityData extends TimeColumn {
  /** To the cent. */
  nav: ScaledColumn;
  balance: ScaledColumn;
}

export interface CandleData extends TimeColumn {
  symbol: string;
  timeframe: string;
  open: ScaledColumn;
  high: ScaledColumn;
  low: ScaledColumn;
  close: ScaledColumn;
}

/** The trades table's columns, in the order of each row's cells. */
export const TRADE_COLUMNS = [
  { key: 'id', label: 'Trade', type: 'text' },
  { key: 'symbol', label: 'Symbol', type: 'text' },
  { key: 'side', label: 'Side', type: 'text' },
  { key: 'state', label: 'State', type: 'text' },
  { key: 'units', label: 'Units', type: 'decimal' },
  { key: 'openedAt', label: 'Opened (UTC)', type: 'time' },
  { key: 'openPrice', label: 'Open price', type: 'decimal' },
  { key: 'closedAt', label: 'Closed (UTC)', type: 'time' },
  { key: 'closePrice', label: 'Close price', type: 'decimal' },
  { key: 'realizedPnl', label: 'P&L (USD)', type: 'decimal' },
  { key: 'commission', label: 'Commission (USD)', type: 'decimal' },
  { key: 'netPnl', label: 'Net P&L (USD)', type: 'decimal' },
  { key: 'closeReason', label: 'Exit', type: 'text' },
] as const;

/** One table row: cells in TRADE_COLUMNS order; times are epoch ms, or null while a lot is open. */
export type TradeRow = [
  id: string,
  symbol: string,
  side: string,
  state: string,
  units: string,
  openedAt: number,
  openPrice: string,
  closedAt: number | null,
  closePrice: string,
  realizedPnl: string,
  commission: string,
  netPnl: string,
  closeReason: string,
];

export interface ReportData {
  startTime: number;
  endTime: number;
  equity: EquityData;
  candles: CandleData[];
  /** Every instrument with a price chart: those with candles and those traded, sorted. */
  symbols: string[];
  columns: { key: string; label: string; type: string }[];
  trades: TradeRow[];
}

function timeColumn(times: readonly number[]): TimeColumn {
  const dt = new Array<number>(Math.max(0, times.length - 1));
  for (let i = 1; i < times.length; i++) dt[i - 1] = (times[i] as number) - (times[i - 1] as number);
  return { t0: times[0] ?? 0, dt };
}

/** Decimal places beyond which prices are rounded for the charts. */
const MAX_SCALE = 8;

/** The most decimal places among the texts (at most MAX_SCALE). */
function placesOf(texts: readonly string[]): number {
  let most = 0;
  for (const text of texts) {
    const dot = text.indexOf('.');
    if (dot >= 0) most = Math.max(most, text.length - dot - 1);
  }
  return Math.min(most, MAX_SCALE);
}

/**
 * The texts at `scale` decimal places (fewer when the integers would pass 2^53, where a double stops
 * counting every unit), as a ScaledColumn.
 */
export function scaledColumn(texts: readonly string[], scale: number): ScaledColumn {
  const values = texts.map(Number);
  let largest = 0;
  for (const v of values) largest = Math.max(largest, Math.abs(v));
  while (scale > 0 && largest * 10 ** scale >= Number.MAX_SAFE_INTEGER) scale--;
  const unit = 10 ** scale;
  let previous = 0;
  const deltas = new Array<number>(Math.max(0, values.length - 1));
  for (let i = 0; i < values.length; i++) {
    const scaled = Math.round((values[i] as number) * unit);
    if (i > 0) deltas[i - 1] = scaled - previous;
    previous = scaled;
  }
  return { scale, first: values.length > 0 ? Math.round((values[0] as number) * unit) : 0, deltas };
}

function candleData(candles: ReportCandles): CandleData {
  const { bars } = candles;
  const open = bars.map((b) => b.open);
  const high = bars.map((b) => b.high);
  const low = bars.map((b) => b.low);
  const close = bars.map((b) => b.close);
  const scale = Math.max(placesOf(open), placesOf(high), placesOf(low), placesOf(close));
  return {
    symbol: candles.symbol,
    timeframe: candles.timeframe,
    ...timeColumn(bars.map((b) => b.time)),
    open: scaledColumn(open, scale),
    high: scaledColumn(high, scale),
    low: scaledColumn(low, scale),
    close: scaledColumn(close, scale),
  };
}

const ZERO = new Dec(0);

function tradeRow(lot: TradeLot): TradeRow {
  const entry = lot.entry_commission === undefined ? ZERO : new Dec(lot.entry_commission);
  const side = lot.direction;
  if (lot.state === 'Open') {
    const commission = toDecimalString(entry);
    return [
      lot.id,
      lot.instrument_symbol,
      side,
      'Open',
      lot.units,
      lot.opened_at,
      lot.open_price,
      null,
      '',
      '',
      commission,
      '',
      '',
    ];
  }
  const exit = lot.exit_commission === undefined ? ZERO : new Dec(lot.exit_commission);
  const commission = entry.plus(exit);
  const net = new Dec(lot.realized_pnl).minus(commission);
  return [
    lot.id,
    lot.instrument_symbol,
    side,
    'Closed',
    lot.units,
    lot.opened_at,
    lot.open_price,
    lot.closed_at,
    lot.close_price,
    lot.realized_pnl,
    toDecimalString(commission),
    toDecimalString(net),
    lot.close_reason,
  ];
}

export function reportData(input: ReportInput): ReportData {
  const { metadata, timeseries, trades } = input.files;
  const candles = (input.candles ?? []).filter((c) => c.bars.length > 0).map(candleData);
  const symbols = new Set<string>(candles.map((c) => c.symbol));
  for (const lot of trades.trades) symbols.add(lot.instrument_symbol);
  return {
    startTime: metadata.startTime,
    endTime: metadata.endTime,
    equity: {
      ...timeColumn(timeseries.timestamps),
      nav: scaledColumn(timeseries.nav, 2),
      balance: scaledColumn(timeseries.units, 2),
    },
    candles,
    symbols: [...symbols].sort(),
    columns: TRADE_COLUMNS.map((c) => ({ ...c })),
    trades: trades.trades.map(tradeRow),
  };
}
