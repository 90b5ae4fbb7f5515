import type { QuoteTickBatch } from '@hindsight/core';
import { DEFAULT_ZSTD_LEVEL } from '../zstd.ts';
import {
  BAR_CHUNK_HEADER_BYTES,
  ChunkFormatError,
  ColumnWriter,
  checkDecimals,
  chunkPayload,
  finishChunk,
  predictorWeight,
  prefixSum,
  readChunkHeader,
  readColumn,
} from './bars.ts';

/**
 * "HST1": one chunk of top-of-book quote ticks of one instrument (the store keeps one per UTC day). The 16-byte
 * header is the one of HSB1 with magic `HST1` and kind 1 (quotes); the zstd payload holds, column after column
 * (mode byte + `count` signed varints, as in HSB1): time (predictor: previous time), bid (previous bid),
 * ask (bid of the same tick), bidVolume (raw), askVolume (raw). Ticks may share a timestamp; order is kept.
 */
export const TICK_CHUNK_MAGIC = 'HST1';
export const TICK_CHUNK_HEADER_BYTES = BAR_CHUNK_HEADER_BYTES;
const QUOTES_KIND = 1;

export interface TickChunkHeader {
  priceDecimals: number;
  volumeDecimals: number;
  count: number;
  payloadBytes: number;
}

export function readTickChunkHeader(bytes: Uint8Array): TickChunkHeader {
  const header = readChunkHeader(bytes, TICK_CHUNK_MAGIC);
  if (header.kindCode !== QUOTES_KIND)
    throw new ChunkFormatError(`HST1 chunk: unknown kind ${header.kindCode}`);
  return {
    priceDecimals: header.priceDecimals,
    volumeDecimals: header.volumeDecimals,
    count: header.count,
    payloadBytes: header.payloadBytes,
  };
}

/** Encodes quote ticks (time order) into an HST1 chunk. Deterministic. Needs `await ensureZstd()`. */
export function encodeTickChunk(batch: QuoteTickBatch, level: number = DEFAULT_ZSTD_LEVEL): Uint8Array {
  checkDecimals(batch.priceDecimals, batch.volumeDecimals);
  const n = batch.length;
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`bad batch length ${n}`);
  const writer = new ColumnWriter(5, n);
  const { time, bid } = batch;
  writer.write('time', time, n, (i) => (i === 0 ? 0 : (time[i - 1] as number)));
  writer.write('bid', bid, n, (i) => (i === 0 ? 0 : (bid[i - 1] as number)));
  writer.write('ask', batch.ask, n, (i) => bid[i] as number);
  writer.write('bidVolume', batch.bidVolume, n);
  writer.write('askVolume', batch.askVolume, n);
  return finishChunk(
    writer,
    TICK_CHUNK_MAGIC,
    QUOTES_KIND,
    batch.priceDecimals,
    batch.volumeDecimals,
    n,
    level,
  );
}

/** Decodes an HST1 chunk into a batch of `symbol`, straight into Float64Arrays. Needs `await ensureZstd()`. */
export function decodeTickChunk(bytes: Uint8Array, symbol: string): QuoteTickBatch {
  const header = readTickChunkHeader(bytes);
  const n = header.count;
  const payload = chunkPayload(bytes, header.payloadBytes, TICK_CHUNK_MAGIC);
  const buffer = new Float64Array(5 * n);
  const cols: Float64Array[] = [];
  const weights: number[] = [];
  let pos = 0;
  for (let c = 0; c < 5; c++) {
    const col = buffer.subarray(c * n, (c + 1) * n);
    weights.push(predictorWeight(payload, pos));
    pos = readColumn(payload, pos, col, n);
    cols.push(col);
  }
  if (pos !== payload.length) throw new ChunkFormatError('HST1 chunk: trailing bytes');
  const [time, bid, ask, bidVolume, askVolume] = cols as [
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
    Float64Array,
  ];
  prefixSum(time, n, weights[0] as number);
  prefixSum(bid, n, weights[1] as number);
  const wa = weights[2] as number;
  for (let i = 0; i < n; i++) ask[i] = (ask[i] as number) + wa * (bid[i] as number);
  return {
    symbol,
    priceDecimals: header.priceDecimals,
    volumeDecimals: header.volumeDecimals,
    length: n,
    time,
    bid,
    ask,
    bidVolume,
    askVolume,
  };
}
