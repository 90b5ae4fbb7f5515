import {
  type BidAskBarBatch,
  type BidAskPriceColumns,
  bidAskBarBatch,
  type TradeBarBatch,
} from '@hindsight/core';
import { DEFAULT_ZSTD_LEVEL, ZstdDecompressionError, zstdCompress, zstdDecompress } from '../zstd.ts';
import { MAX_VARINT_BYTES, readSignedVarints, writeSignedVarint } from './varint.ts';

/**
 * "HSB1": one chunk of 1-minute bars of one instrument (the store keeps one per UTC month). Layout:
 *
 * | offset | size | field |
 * |---|---|---|
 * | 0 | 4 | magic `HSB1` (ASCII) |
 * | 4 | 1 | kind: 1 = bid/ask bars, 2 = trade bars |
 * | 5 | 1 | priceDecimals (price = ticks / 10^priceDecimals) |
 * | 6 | 1 | volumeDecimals |
 * | 7 | 1 | reserved, 0 |
 * | 8 | 4 | count of bars, uint32 little-endian |
 * | 12 | 4 | byte length of the uncompressed payload, uint32 little-endian |
 * | 16 | … | one zstd frame holding the payload |
 *
 * The payload is column after column. Each column is one mode byte, then its values:
 * - 0: `count` signed varints (see varint.ts), residuals against the column's predictor;
 * - 1: `count` signed varints, the raw values (used when some residual would not be a safe integer);
 * - 2: nothing follows: every residual is 0 (the column equals its predictor, e.g. gap-free bar times);
 * - 3: nothing follows: every value is 0 (e.g. the volume of quote bars that have none).
 * Columns and predictors, where `prev` is the previous bar (the predictor of the first bar is 0):
 * - bid/ask: time (prev time + 60000: the base series is 1-minute bars), bidOpen (prev bidClose),
 *   bidClose (bidOpen), bidHigh (max(bidOpen, bidClose)), bidLow (min(bidOpen, bidClose)), askOpen (bidOpen),
 *   askClose (bidClose), askHigh (bidHigh), askLow (bidLow), volume (none: raw);
 * - trade: time (prev time + 60000), open (prev close), close (open), high (max(open, close)),
 *   low (min(open, close)), volume (none).
 * Residuals are small (price moves, wicks, spreads), which varints and zstd store in a few bytes per bar.
 */
export const BAR_CHUNK_MAGIC = 'HSB1';
export const BAR_CHUNK_HEADER_BYTES = 16;

export type BarChunkKind = 'bidask' | 'trade';

export interface BarChunkHeader {
  kind: BarChunkKind;
  priceDecimals: number;
  volumeDecimals: number;
  count: number;
  payloadBytes: number;
}

const KIND_CODE: Record<BarChunkKind, number> = { bidask: 1, trade: 2 };
const MODE_PREDICTED = 0;
const MODE_RAW = 1;
const MODE_PREDICTED_ZERO = 2;
const MODE_RAW_ZERO = 3;
const MAX_DECIMALS = 30;

export function isBidAskBatch(batch: BidAskBarBatch | TradeBarBatch): batch is BidAskBarBatch {
  return 'bidOpen' in batch;
}

export function barBatchKind(batch: BidAskBarBatch | TradeBarBatch): BarChunkKind {
  return isBidAskBatch(batch) ? 'bidask' : 'trade';
}

export class ChunkFormatError extends Error {
  override name = 'ChunkFormatError';
}

function checkMagic(bytes: Uint8Array, magic: string): void {
  if (bytes.length < BAR_CHUNK_HEADER_BYTES) throw new ChunkFormatError(`${magic} chunk too short`);
  for (let i = 0; i < 4; i++) {
    if (bytes[i] !== magic.charCodeAt(i)) throw new ChunkFormatError(`not a ${magic} chunk`);
  }
}

/** Writes the common 16-byte header of HSB1/HST1 chunks. */
export function writeChunkHeader(
  out: Uint8Array,
  magic: string,
  kindCode: number,
  priceDecimals: number,
  volumeDecimals: number,
  count: number,
  payloadBytes: number,
): void {
  for (let i = 0; i < 4; i++) out[i] = magic.charCodeAt(i);
  out[4] = kindCode;
  out[5] = priceDecimals;
  out[6] = volumeDecimals;
  out[7] = 0;
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint32(8, count, true);
  view.setUint32(12, payloadBytes, true);
}

/** Reads the common header; `kindCode` is returned raw for the caller to interpret. */
export function readChunkHeader(
  bytes: Uint8Array,
  magic: string,
): { kindCode: number; priceDecimals: number; volumeDecimals: number; count: number; payloadBytes: number } {
  checkMagic(bytes, magic);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const priceDecimals = bytes[5] as number;
  const volumeDecimals = bytes[6] as number;
  if (priceDecimals > MAX_DECIMALS || volumeDecimals > MAX_DECIMALS) {
    throw new ChunkFormatError(`${magic} chunk: decimals out of range`);
  }
  return {
    kindCode: bytes[4] as number,
    priceDecimals,
    volumeDecimals,
    count: view.getUint32(8, true),
    payloadBytes: view.getUint32(12, true),
  };
}

export function readBarChunkHeader(bytes: Uint8Array): BarChunkHeader {
  const header = readChunkHeader(bytes, BAR_CHUNK_MAGIC);
  const kind = header.kindCode === 1 ? 'bidask' : header.kindCode === 2 ? 'trade' : undefined;
  if (!kind) throw new ChunkFormatError(`HSB1 chunk: unknown kind ${header.kindCode}`);
  return {
    kind,
    priceDecimals: header.priceDecimals,
    volumeDecimals: header.volumeDecimals,
    count: header.count,
    payloadBytes: header.payloadBytes,
  };
}

export function checkDecimals(priceDecimals: number, volumeDecimals: number): void {
  for (const d of [priceDecimals, volumeDecimals]) {
    if (!Number.isInteger(d) || d < 0 || d > MAX_DECIMALS) {
      throw new RangeError(`decimals must be an integer in 0..${MAX_DECIMALS}, got ${d}`);
    }
  }
}

/** Column writer: residuals when every residual is a safe integer, raw values otherwise. */
export class ColumnWriter {
  readonly out: Uint8Array;
  pos = 0;
  private readonly residuals: Float64Array;

  constructor(columns: number, count: number) {
    this.out = new Uint8Array(columns * (1 + count * MAX_VARINT_BYTES));
    this.residuals = new Float64Array(count);
  }

  /** `predict(i)` is the predictor of `values[i]`; without it the values are stored raw. */
  write(label: string, values: Float64Array, count: number, predict?: (i: number) => number): void {
    const residuals = this.residuals;
    let mode = predict ? MODE_PREDICTED : MODE_RAW;
    for (let i = 0; i < count; i++) {
      const value = values[i] as number;
      if (!Number.isSafeInteger(value))
        throw new RangeError(`${label}[${i}] is not a safe integer: ${value}`);
      if (mode === MODE_PREDICTED && predict) {
        const r = value - predict(i);
        if (Number.isSafeInteger(r)) residuals[i] = r;
        else mode = MODE_RAW;
      }
    }
    const out = this.out;
    let pos = this.pos;
    const source = mode === MODE_RAW ? values : residuals;
    let zero = true;
    for (let i = 0; i < count && zero; i++) if (source[i] !== 0) zero = false;
    if (zero && count > 0) {
      out[pos++] = mode === MODE_RAW ? MODE_RAW_ZERO : MODE_PREDICTED_ZERO;
    } else {
      out[pos++] = mode;
      for (let i = 0; i < count; i++) pos = writeSignedVarint(out, pos, source[i] as number);
    }
    this.pos = pos;
  }
}

/** Bar times are predicted one minute after the previous bar: contiguous 1m bars give residual 0. */
export const BAR_TIME_STEP_MS = 60_000;

function nextMinuteOf(time: Float64Array): (i: number) => number {
  return (i) => (i === 0 ? 0 : (time[i - 1] as number) + BAR_TIME_STEP_MS);
}

function prevOf(column: Float64Array): (i: number) => number {
  return (i) => (i === 0 ? 0 : (column[i - 1] as number));
}

/**
 * Encodes bars (sorted by time; the store guarantees it) into an HSB1 chunk. Every time, price and volume must
 * be a safe integer. Deterministic: the same batch always gives the same bytes. Needs `await ensureZstd()`.
 */
export function encodeBarChunk(
  batch: BidAskBarBatch | TradeBarBatch,
  level: number = DEFAULT_ZSTD_LEVEL,
): Uint8Array {
  checkDecimals(batch.priceDecimals, batch.volumeDecimals);
  const n = batch.length;
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`bad batch length ${n}`);
  let writer: ColumnWriter;
  if (isBidAskBatch(batch)) {
    writer = new ColumnWriter(10, n);
    const { bidOpen: o, bidClose: c, bidHigh: h, bidLow: l } = batch;
    writer.write('time', batch.time, n, nextMinuteOf(batch.time));
    writer.write('bidOpen', o, n, prevOf(c));
    writer.write('bidClose', c, n, (i) => o[i] as number);
    writer.write('bidHigh', h, n, (i) => Math.max(o[i] as number, c[i] as number));
    writer.write('bidLow', l, n, (i) => Math.min(o[i] as number, c[i] as number));
    writer.write('askOpen', batch.askOpen, n, (i) => o[i] as number);
    writer.write('askClose', batch.askClose, n, (i) => c[i] as number);
    writer.write('askHigh', batch.askHigh, n, (i) => h[i] as number);
    writer.write('askLow', batch.askLow, n, (i) => l[i] as number);
    writer.write('volume', batch.volume, n);
  } else {
    writer = new ColumnWriter(6, n);
    const { open: o, close: c } = batch;
    writer.write('time', batch.time, n, nextMinuteOf(batch.time));
    writer.write('open', o, n, prevOf(c));
    writer.write('close', c, n, (i) => o[i] as number);
    writer.write('high', batch.high, n, (i) => Math.max(o[i] as number, c[i] as number));
    writer.write('low', batch.low, n, (i) => Math.min(o[i] as number, c[i] as number));
    writer.write('volume', batch.volume, n);
  }
  return finishChunk(
    writer,
    BAR_CHUNK_MAGIC,
    KIND_CODE[barBatchKind(batch)],
    batch.priceDecimals,
    batch.volumeDecimals,
    n,
    level,
  );
}

export function finishChunk(
  writer: ColumnWriter,
  magic: string,
  kindCode: number,
  priceDecimals: number,
  volumeDecimals: number,
  count: number,
  level: number,
): Uint8Array {
  const payload = writer.out.subarray(0, writer.pos);
  const compressed = zstdCompress(payload, level);
  const out = new Uint8Array(BAR_CHUNK_HEADER_BYTES + compressed.length);
  writeChunkHeader(out, magic, kindCode, priceDecimals, volumeDecimals, count, payload.length);
  out.set(compressed, BAR_CHUNK_HEADER_BYTES);
  return out;
}

/**
 * Decompresses a chunk's payload and checks its size against the header. A truncated or corrupt payload
 * is a ChunkFormatError saying so (decompression's own error, not a bare zstd code).
 */
export function chunkPayload(bytes: Uint8Array, payloadBytes: number, magic: string): Uint8Array {
  let payload: Uint8Array;
  try {
    payload = zstdDecompress(bytes.subarray(BAR_CHUNK_HEADER_BYTES), payloadBytes);
  } catch (error) {
    if (!(error instanceof ZstdDecompressionError)) throw error;
    throw new ChunkFormatError(`${magic} chunk: ${error.message}`);
  }
  if (payload.length !== payloadBytes) throw new ChunkFormatError(`${magic} chunk: payload size mismatch`);
  return payload;
}

/** Reads one column's mode byte and values into `out`; returns the position after the column. */
export function readColumn(payload: Uint8Array, pos: number, out: Float64Array, n: number): number {
  const mode = payload[pos];
  if (mode === MODE_PREDICTED_ZERO || mode === MODE_RAW_ZERO) {
    out.fill(0, 0, n);
    return pos + 1;
  }
  if (mode !== MODE_PREDICTED && mode !== MODE_RAW) throw new ChunkFormatError('bad column mode');
  const next = readSignedVarints(payload, pos + 1, out, n);
  if (next > payload.length) throw new ChunkFormatError('truncated column');
  return next;
}

/** 1 when the column at `pos` is stored as residuals (the predictor is added back), 0 when raw. */
export function predictorWeight(payload: Uint8Array, pos: number): number {
  const mode = payload[pos];
  return mode === MODE_PREDICTED || mode === MODE_PREDICTED_ZERO ? 1 : 0;
}

/** Float64 values a decoded chunk needs (all columns): 10 per bid/ask bar, 6 per trade bar. */
export function barChunkValues(kind: BarChunkKind, count: number): number {
  return (kind === 'bidask' ? 10 : 6) * count;
}

/**
 * Decodes an HSB1 chunk into a batch of `symbol`. Columns are decoded straight into one Float64Array (one
 * subarray per column), with no per-bar objects: `scratch` when given and large enough (see barChunkValues; its
 * contents are overwritten, which lets a reader recycle the buffers of chunks it has passed), else a new one.
 * Needs `await ensureZstd()`.
 */
export function decodeBarChunk(
  bytes: Uint8Array,
  symbol: string,
  scratch?: Float64Array,
): BidAskBarBatch | TradeBarBatch {
  const header = readBarChunkHeader(bytes);
  const n = header.count;
  const payload = chunkPayload(bytes, header.payloadBytes, BAR_CHUNK_MAGIC);
  const columns = header.kind === 'bidask' ? 10 : 6;
  const buffer = scratch && scratch.length >= columns * n ? scratch : new Float64Array(columns * n);
  const cols: Float64Array[] = [];
  const weights: number[] = [];
  let pos = 0;
  for (let c = 0; c < columns; c++) {
    const col = buffer.subarray(c * n, (c + 1) * n);
    weights.push(predictorWeight(payload, pos));
    pos = readColumn(payload, pos, col, n);
    cols.push(col);
  }
  if (pos !== payload.length) throw new ChunkFormatError('HSB1 chunk: trailing bytes');
  const w = weights as [number, number, number, number, number, number, number, number, number, number];
  const time = cols[0] as Float64Array;
  barTimes(time, n, w[0]);
  const head = {
    symbol,
    priceDecimals: header.priceDecimals,
    volumeDecimals: header.volumeDecimals,
    length: n,
    time,
  };
  if (header.kind === 'bidask') {
    // stored as time, bid open/close/high/low, ask open/close/high/low, volume
    const [, o, c, h, l, ao, ac, ah, al, v] = cols as [Float64Array, ...BidAskPriceColumns, Float64Array];
    reconstructOhlc(o, c, h, l, n, w[1], w[2], w[3], w[4]);
    reconstructAsk(o, c, h, l, ao, ac, ah, al, n, w[5], w[6], w[7], w[8]);
    return bidAskBarBatch({ ...head, volume: v }, [o, h, l, c, ao, ah, al, ac]);
  }
  const [, o, c, h, l, v] = cols as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  reconstructOhlc(o, c, h, l, n, w[1], w[2], w[3], w[4]);
  // Written out rather than spread from `head`, so that every trade batch shares one hidden class too.
  const { priceDecimals, volumeDecimals } = head;
  return {
    symbol,
    priceDecimals,
    volumeDecimals,
    length: n,
    time,
    open: o,
    high: h,
    low: l,
    close: c,
    volume: v,
  };
}

function barTimes(time: Float64Array, n: number, weight: number): void {
  if (weight === 0 || n === 0) return;
  let prev = time[0] as number;
  for (let i = 1; i < n; i++) {
    prev = (time[i] as number) + prev + BAR_TIME_STEP_MS;
    time[i] = prev;
  }
}

export function prefixSum(time: Float64Array, n: number, weight: number): void {
  if (weight === 0) return;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    prev = (time[i] as number) + prev;
    time[i] = prev;
  }
}

function reconstructOhlc(
  o: Float64Array,
  c: Float64Array,
  h: Float64Array,
  l: Float64Array,
  n: number,
  wo: number,
  wc: number,
  wh: number,
  wl: number,
): void {
  let prevClose = 0;
  for (let i = 0; i < n; i++) {
    const open = (o[i] as number) + wo * prevClose;
    const close = (c[i] as number) + wc * open;
    o[i] = open;
    c[i] = close;
    const hi = open > close ? open : close;
    const lo = open < close ? open : close;
    h[i] = (h[i] as number) + wh * hi;
    l[i] = (l[i] as number) + wl * lo;
    prevClose = close;
  }
}

function reconstructAsk(
  o: Float64Array,
  c: Float64Array,
  h: Float64Array,
  l: Float64Array,
  ao: Float64Array,
  ac: Float64Array,
  ah: Float64Array,
  al: Float64Array,
  n: number,
  wo: number,
  wc: number,
  wh: number,
  wl: number,
): void {
  for (let i = 0; i < n; i++) {
    ao[i] = (ao[i] as number) + wo * (o[i] as number);
    ac[i] = (ac[i] as number) + wc * (c[i] as number);
    ah[i] = (ah[i] as number) + wh * (h[i] as number);
    al[i] = (al[i] as number) + wl * (l[i] as number);
  }
}
