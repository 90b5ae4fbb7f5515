/**
 * Base market data in memory: columnar batches of 1-minute bars of one instrument, oldest first.
 *
 * Prices are exact scaled integers held in Float64Array (exact below 2^53): a price is
 * `ticks / 10 ** priceDecimals`. Volumes likewise with `volumeDecimals`. Columns are index-aligned.
 * Times are bar starts in epoch milliseconds UTC. Consumers that need decimals convert with
 * `ticksToDecimalString`; fills and accounting never go through floats.
 */
export interface BidAskBarBatch {
  symbol: string;
  priceDecimals: number;
  volumeDecimals: number;
  length: number;
  time: Float64Array;
  bidOpen: Float64Array;
  bidHigh: Float64Array;
  bidLow: Float64Array;
  bidClose: Float64Array;
  askOpen: Float64Array;
  askHigh: Float64Array;
  askLow: Float64Array;
  askClose: Float64Array;
  volume: Float64Array;
}

/** The eight price columns of a bid/ask batch, in BidAskBarBatch's order (bid OHLC, then ask OHLC). */
export type BidAskPriceColumns = [
  Float64Array,
  Float64Array,
  Float64Array,
  Float64Array,
  Float64Array,
  Float64Array,
  Float64Array,
  Float64Array,
];

/**
 * A BidAskBarBatch written as one literal in the interface's order. The engine reads a batch's columns
 * for every replayed bar; batches built by spreading objects each got a hidden class of their own, which
 * made those reads megamorphic (about a fifth of an idle engine run). Every replayed batch is made here.
 */
export function bidAskBarBatch(
  head: Pick<BidAskBarBatch, 'symbol' | 'priceDecimals' | 'volumeDecimals' | 'length' | 'time' | 'volume'>,
  prices: BidAskPriceColumns,
): BidAskBarBatch {
  const [bidOpen, bidHigh, bidLow, bidClose, askOpen, askHigh, askLow, askClose] = prices;
  return {
    symbol: head.symbol,
    priceDecimals: head.priceDecimals,
    volumeDecimals: head.volumeDecimals,
    length: head.length,
    time: head.time,
    bidOpen,
    bidHigh,
    bidLow,
    bidClose,
    askOpen,
    askHigh,
    askLow,
    askClose,
    volume: head.volume,
  };
}

/** Bars of a source that only has trades (or mids): one OHLC set, bid/ask derived by the spread model. */
export interface TradeBarBatch {
  symbol: string;
  priceDecimals: number;
  volumeDecimals: number;
  length: number;
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

/** Top-of-book quotes (ticks) where a source has them; kept for tick-level replay. */
export interface QuoteTickBatch {
  symbol: string;
  priceDecimals: number;
  volumeDecimals: number;
  length: number;
  time: Float64Array;
  bid: Float64Array;
  ask: Float64Array;
  bidVolume: Float64Array;
  askVolume: Float64Array;
}

/** The ticks inside one base bar during replay: rows [from, to) of `batch`, in time order. */
export interface TickWindow {
  batch: QuoteTickBatch;
  from: number;
  to: number;
}

export const BID_ASK_PRICE_COLUMNS = [
  'bidOpen',
  'bidHigh',
  'bidLow',
  'bidClose',
  'askOpen',
  'askHigh',
  'askLow',
  'askClose',
] as const;

export const TRADE_PRICE_COLUMNS = ['open', 'high', 'low', 'close'] as const;

/** Exact decimal text of a scaled integer, canonical per decision 37 (no exponent, no `-0`). */
export function ticksToDecimalString(ticks: number, decimals: number): string {
  if (ticks === 0) return '0';
  const negative = ticks < 0;
  const abs = negative ? -ticks : ticks;
  if (decimals === 0) return negative ? `-${abs}` : String(abs);
  // On the replay's hot path (every candle price read): the whole and fractional parts are split
  // with integer arithmetic, exact below 2^53, so that each is a small integer written by V8's fast
  // path; the digits of one large number are handled as text otherwise.
  const unit = decimals <= MAX_SPLIT_DECIMALS ? POWERS_OF_TEN[decimals] : undefined;
  const text =
    unit !== undefined && abs <= Number.MAX_SAFE_INTEGER
      ? splitText(abs, decimals, unit)
      : digitText(abs, decimals);
  return negative ? `-${text}` : text;
}

/**
 * 10^0 .. 10^63 as floats, each made once: `10 ** k` with a variable exponent is a call to `pow`, and
 * the per-bar and per-fill paths that divide by one run all the time. Up to 10^22 each is exact.
 */
const POWERS_OF_TEN: readonly number[] = Array.from({ length: 64 }, (_, i) => 10 ** i);
const MAX_EXACT_POWER = 22;
/** The widest split `ticksToDecimalString` makes with integer arithmetic (see `splitText`). */
const MAX_SPLIT_DECIMALS = 15;

/** 10^decimals as a float (`10 ** decimals`), looked up. */
export function powerOfTen(decimals: number): number {
  return POWERS_OF_TEN[decimals] ?? 10 ** decimals;
}

/**
 * `ticks / 10^decimals` as the nearest float, which is exactly what parsing `ticksToDecimalString`
 * gives: both operands are exact floats (a safe integer, a power of ten up to 10^22) and the division
 * is correctly rounded. Otherwise the text is parsed.
 */
export function ticksToNumber(ticks: number, decimals: number): number {
  const unit = decimals <= MAX_EXACT_POWER ? POWERS_OF_TEN[decimals] : undefined;
  return unit !== undefined && Number.isSafeInteger(ticks)
    ? ticks / unit
    : Number(ticksToDecimalString(ticks, decimals));
}
const ZEROS: readonly string[] = Array.from({ length: 16 }, (_, i) => '0'.repeat(i));

function splitText(abs: number, decimals: number, unit: number): string {
  let whole = Math.floor(abs / unit);
  // whole x unit is an integer at most abs, so exact; the quotient may have rounded across an integer.
  let fraction = abs - whole * unit;
  if (fraction < 0) {
    whole -= 1;
    fraction += unit;
  } else if (fraction >= unit) {
    whole += 1;
    fraction -= unit;
  }
  if (fraction === 0) return String(whole);
  let width = decimals;
  while (fraction % 10 === 0) {
    fraction /= 10;
    width--;
  }
  const digits = String(fraction);
  return `${whole}.${ZEROS[width - digits.length] ?? ''}${digits}`;
}

function digitText(abs: number, decimals: number): string {
  let digits = String(abs);
  if (digits.length <= decimals) digits = '0'.repeat(decimals + 1 - digits.length) + digits;
  // Trailing zeros of the fraction go.
  const point = digits.length - decimals;
  let end = digits.length;
  while (end > point && digits.charCodeAt(end - 1) === 48) end--;
  const whole = digits.slice(0, point);
  return end > point ? `${whole}.${digits.slice(point, end)}` : whole;
}

/**
 * Parses a plain decimal (`-?digits[.digits]`) into ticks at `decimals`; undefined when it has more
 * significant decimals than that, or is not a decimal. Never goes through a float.
 */
export function decimalStringToTicks(text: string, decimals: number): number | undefined {
  const match = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(text);
  if (!match) return undefined;
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) return undefined;
  const value = Number((match[2] ?? '') + fraction.padEnd(decimals, '0'));
  if (!Number.isSafeInteger(value)) return undefined;
  return match[1] === '-' && value !== 0 ? -value : value;
}

/** Number of significant decimals of a plain decimal string (`"1.2300"` -> 2). */
export function significantDecimals(text: string): number {
  const dot = text.indexOf('.');
  if (dot < 0) return 0;
  let end = text.length;
  while (end > dot + 1 && text.charCodeAt(end - 1) === 48) end--;
  return end - dot - 1;
}
