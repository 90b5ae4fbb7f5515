import {
  BID_ASK_PRICE_COLUMNS,
  type BidAskBarBatch,
  type QuoteTickBatch,
  TRADE_PRICE_COLUMNS,
  type TradeBarBatch,
} from '@hindsight/core';
import { isBidAskBatch } from './codec/bars.ts';

/**
 * Merging new rows into stored chunks: sorted by time, a new row replaces a stored one with the same
 * time, decimals widened exactly to the larger scale. Pure functions over columnar batches.
 */
type BarBatch = BidAskBarBatch | TradeBarBatch;

export function priceColumns(batch: BarBatch): Float64Array[] {
  return isBidAskBatch(batch)
    ? BID_ASK_PRICE_COLUMNS.map((c) => batch[c])
    : TRADE_PRICE_COLUMNS.map((c) => batch[c]);
}

/** All columns of a batch in a fixed order: time, prices, volume. */
export function allColumns(batch: BarBatch): Float64Array[] {
  return [batch.time, ...priceColumns(batch), batch.volume];
}

export function emptyLike(
  batch: BarBatch,
  n: number,
  priceDecimals: number,
  volumeDecimals: number,
): BarBatch {
  const col = () => new Float64Array(n);
  const base = { symbol: batch.symbol, priceDecimals, volumeDecimals, length: n, time: col() };
  if (isBidAskBatch(batch)) {
    return {
      ...base,
      bidOpen: col(),
      bidHigh: col(),
      bidLow: col(),
      bidClose: col(),
      askOpen: col(),
      askHigh: col(),
      askLow: col(),
      askClose: col(),
      volume: col(),
    };
  }
  return { ...base, open: col(), high: col(), low: col(), close: col(), volume: col() };
}

export function checkColumns(label: string, columns: Float64Array[], n: number): void {
  for (const column of columns) {
    if (column.length < n) throw new RangeError(`${label}: a column is shorter than length ${n}`);
    for (let i = 0; i < n; i++) {
      if (!Number.isSafeInteger(column[i])) {
        throw new RangeError(`${label}: value ${column[i]} at row ${i} is not a safe integer`);
      }
    }
  }
}

/** Multiplies by 10^shift exactly or throws. */
export function rescale(values: number[] | Float64Array, shift: number, label: string): void {
  if (shift === 0) return;
  const factor = 10 ** shift;
  for (let i = 0; i < values.length; i++) {
    const v = (values[i] as number) * factor;
    if (!Number.isSafeInteger(v))
      throw new RangeError(`${label}: rescaling by 10^${shift} leaves safe integers`);
    values[i] = v;
  }
}

/** Columns of a merge input and the decimal shifts that bring its prices and volumes to the merged scale. */
type RowSource = { columns: Float64Array[]; priceShift: number; volumeShift: number };

/**
 * Sorted by time, one row per time (the last occurrence wins). Returns row indices into the batch.
 */
export function sortedUniqueRows(time: Float64Array, n: number): Int32Array {
  let sorted = true;
  for (let i = 1; i < n; i++) {
    if ((time[i] as number) <= (time[i - 1] as number)) {
      sorted = false;
      break;
    }
  }
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (sorted) return order;
  // stable sort by time, then keep the last of equal times
  const rows = Array.from(order).sort((a, b) => (time[a] as number) - (time[b] as number) || a - b);
  const kept: number[] = [];
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k] as number;
    const next = rows[k + 1];
    if (next !== undefined && time[next] === time[row]) continue;
    kept.push(row);
  }
  return Int32Array.from(kept);
}

/**
 * Merges old rows with new rows (both sorted, unique times); on equal time the new row replaces the old.
 * Values are rescaled to the larger decimals. Returns the merged batch.
 */
export function mergeBars(
  old: BarBatch | undefined,
  incoming: BarBatch,
  rows: Int32Array,
  from: number,
  to: number,
): BarBatch {
  const priceDecimals = Math.max(old?.priceDecimals ?? 0, incoming.priceDecimals);
  const volumeDecimals = Math.max(old?.volumeDecimals ?? 0, incoming.volumeDecimals);
  const make = (batch: BarBatch): RowSource => ({
    columns: allColumns(batch),
    priceShift: priceDecimals - batch.priceDecimals,
    volumeShift: volumeDecimals - batch.volumeDecimals,
  });
  const oldSource = old ? make(old) : undefined;
  const newSource = make(incoming);
  // merge plan: (source, row) pairs in time order
  const plan: Array<[RowSource, number]> = [];
  const oldTime = old?.time;
  const newTime = incoming.time;
  let i = 0;
  const oldN = old?.length ?? 0;
  let k = from;
  while (i < oldN || k < to) {
    const ot = i < oldN && oldTime ? (oldTime[i] as number) : Number.POSITIVE_INFINITY;
    const nt = k < to ? (newTime[rows[k] as number] as number) : Number.POSITIVE_INFINITY;
    if (nt <= ot) {
      plan.push([newSource, rows[k] as number]);
      k++;
      if (nt === ot) i++;
    } else {
      plan.push([oldSource as RowSource, i]);
      i++;
    }
  }
  const merged = emptyLike(incoming, plan.length, priceDecimals, volumeDecimals);
  const out = allColumns(merged);
  const last = out.length - 1;
  for (let c = 0; c < out.length; c++) {
    const target = out[c] as Float64Array;
    for (let j = 0; j < plan.length; j++) {
      const [source, row] = plan[j] as [RowSource, number];
      target[j] = (source.columns[c] as Float64Array)[row] as number;
    }
    // rescale per source, exactly
    const shiftOf = (s: RowSource) => (c === 0 ? 0 : c === last ? s.volumeShift : s.priceShift);
    for (const source of [oldSource, newSource]) {
      if (!source || shiftOf(source) === 0) continue;
      const factor = 10 ** shiftOf(source);
      for (let j = 0; j < plan.length; j++) {
        if ((plan[j] as [RowSource, number])[0] !== source) continue;
        const v = (target[j] as number) * factor;
        if (!Number.isSafeInteger(v)) {
          throw new RangeError(`${incoming.symbol}: rescaling to more decimals leaves safe integers`);
        }
        target[j] = v;
      }
    }
  }
  return merged;
}

export function mergeTicks(
  old: QuoteTickBatch | undefined,
  incoming: QuoteTickBatch,
  rows: number[],
): QuoteTickBatch {
  const priceDecimals = Math.max(old?.priceDecimals ?? 0, incoming.priceDecimals);
  const volumeDecimals = Math.max(old?.volumeDecimals ?? 0, incoming.volumeDecimals);
  const first = incoming.time[rows[0] as number] as number;
  const last = incoming.time[rows[rows.length - 1] as number] as number;
  type Row = [QuoteTickBatch, number];
  const before: Row[] = [];
  const after: Row[] = [];
  if (old) {
    for (let i = 0; i < old.length; i++) {
      const t = old.time[i] as number;
      if (t < first) before.push([old, i]);
      else if (t > last) after.push([old, i]);
    }
  }
  const plan: Row[] = [...before, ...rows.map((row): Row => [incoming, row]), ...after];
  const n = plan.length;
  const out: QuoteTickBatch = {
    symbol: incoming.symbol,
    priceDecimals,
    volumeDecimals,
    length: n,
    time: new Float64Array(n),
    bid: new Float64Array(n),
    ask: new Float64Array(n),
    bidVolume: new Float64Array(n),
    askVolume: new Float64Array(n),
  };
  const names = ['time', 'bid', 'ask', 'bidVolume', 'askVolume'] as const;
  for (const name of names) {
    const target = out[name];
    const decimalsOf = (b: QuoteTickBatch) =>
      name === 'time'
        ? 0
        : name === 'bid' || name === 'ask'
          ? priceDecimals - b.priceDecimals
          : volumeDecimals - b.volumeDecimals;
    plan.forEach(([batch, row], j) => {
      target[j] = batch[name][row] as number;
    });
    for (const batch of old ? [old, incoming] : [incoming]) {
      const shift = decimalsOf(batch);
      if (shift === 0) continue;
      const indices = plan.flatMap(([b], j) => (b === batch ? [j] : []));
      const values = indices.map((j) => target[j] as number);
      rescale(values, shift, `${incoming.symbol} ticks`);
      indices.forEach((j, k) => {
        target[j] = values[k] as number;
      });
    }
  }
  return out;
}

/** A BarStore over files under `<dataDir>/market` (`dataDir` is `$HINDSIGHT_DATA_DIR`). */
