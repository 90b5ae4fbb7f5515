import {
  type BidAskBarBatch,
  type BidAskPriceColumns,
  bidAskBarBatch,
  decimalStringToTicks,
  type SpreadModel,
  significantDecimals,
  type TradeBarBatch,
} from '@hindsight/core';

/** Integer form of a spread model: bid = price x bidFactor, ask = price x askFactor, at `extraDecimals` more. */
export interface SpreadFactors {
  /** Decimals added to the price scale (0 for `zero`; decimals of v + 4 for `half_spread_bps`). */
  extraDecimals: number;
  bidFactor: number;
  askFactor: number;
}

/**
 * Exact integer factors of a spread model. `half_spread_bps` with v (a plain decimal, 0 <= v < 10000, d
 * decimals): bid = price x (10000·10^d − v·10^d) / 10^(d+4), ask = price x (10000·10^d + v·10^d) / 10^(d+4),
 * so a price at p decimals becomes an exact integer at p + d + 4 decimals.
 */
export function spreadFactors(model: SpreadModel): SpreadFactors {
  if (model.kind === 'zero') return { extraDecimals: 0, bidFactor: 1, askFactor: 1 };
  if (model.kind !== 'half_spread_bps')
    throw new Error(`unknown spread model ${(model as { kind: string }).kind}`);
  const decimals = significantDecimals(model.value);
  const v = decimalStringToTicks(model.value, decimals);
  const unit = 10000 * 10 ** decimals;
  if (v === undefined || v < 0 || v >= unit || !Number.isSafeInteger(unit)) {
    throw new RangeError(
      `half_spread_bps value must be a decimal in [0, 10000): ${JSON.stringify(model.value)}`,
    );
  }
  return { extraDecimals: decimals + 4, bidFactor: unit - v, askFactor: unit + v };
}

/**
 * Bid/ask bars of trade bars under the instrument's spread model, exactly (decision 3). `zero`: bid = ask =
 * traded price, at the same decimals; the returned columns are the input arrays themselves (no copy).
 * `half_spread_bps` v: prices at priceDecimals + (decimals of v) + 4, each an integer product that is checked to
 * stay a safe integer (RangeError otherwise); the 8 price columns are written into `scratch` when given and large
 * enough (8 x length values), else into a new buffer. Time and volume arrays are shared with the input.
 */
export function deriveBidAsk(
  batch: TradeBarBatch,
  model: SpreadModel,
  scratch?: Float64Array,
): BidAskBarBatch {
  const n = batch.length;
  const { extraDecimals, bidFactor, askFactor } = spreadFactors(model);
  const { open, high, low, close } = batch;
  if (extraDecimals === 0 && bidFactor === 1 && askFactor === 1) {
    return bidAskBarBatch(batch, [open, high, low, close, open, high, low, close]);
  }
  const buffer = scratch && scratch.length >= 8 * n ? scratch : new Float64Array(8 * n);
  const prices = Array.from({ length: 8 }, (_, k) =>
    buffer.subarray(k * n, (k + 1) * n),
  ) as BidAskPriceColumns;
  const [bidOpen, bidHigh, bidLow, bidClose, askOpen, askHigh, askLow, askClose] = prices;
  // every product |price| x factor <= max |price| x askFactor: all are exact iff that bound is a safe integer
  let max = 0;
  for (let i = 0; i < n; i++) {
    const o = open[i] as number;
    const h = high[i] as number;
    const l = low[i] as number;
    const c = close[i] as number;
    const a = Math.max(Math.abs(o), Math.abs(h), Math.abs(l), Math.abs(c));
    if (a > max) max = a;
    bidOpen[i] = o * bidFactor;
    bidHigh[i] = h * bidFactor;
    bidLow[i] = l * bidFactor;
    bidClose[i] = c * bidFactor;
    askOpen[i] = o * askFactor;
    askHigh[i] = h * askFactor;
    askLow[i] = l * askFactor;
    askClose[i] = c * askFactor;
  }
  if (max * askFactor > Number.MAX_SAFE_INTEGER) {
    throw new RangeError(
      `${batch.symbol}: prices too large for an exact spread at ${batch.priceDecimals + extraDecimals} decimals`,
    );
  }
  return bidAskBarBatch({ ...batch, priceDecimals: batch.priceDecimals + extraDecimals }, prices);
}
