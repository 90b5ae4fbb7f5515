import { compress, decompress, init } from '@bokuweb/zstd-wasm';

/**
 * The one zstd entry point of this package. `@bokuweb/zstd-wasm` breaks when its `init()` runs twice (the
 * module is re-instantiated and later decompression of large inputs fails), so every caller goes through
 * `ensureZstd()`, which starts `init()` at most once per process. The guard lives on `globalThis` under a
 * registered symbol so that two copies of this module (for example through different import paths) still share it.
 */
const READY = Symbol.for('hindsight.marketdata.zstdReady');
const READY_SYNC = Symbol.for('hindsight.marketdata.zstdReadySync');
type ReadyHolder = { [READY]?: Promise<void>; [READY_SYNC]?: boolean };

export function ensureZstd(): Promise<void> {
  const holder = globalThis as ReadyHolder;
  holder[READY] ??= init().then(() => {
    holder[READY_SYNC] = true;
  });
  return holder[READY];
}

function assertReady(): void {
  if (!(globalThis as ReadyHolder)[READY_SYNC]) {
    throw new Error('zstd is not initialised: await ensureZstd() first');
  }
}

/**
 * Default level for stored chunks. Decompression speed hardly depends on the level; 12 gets within a few percent
 * of 19's size on 1m bars (3.74 vs 3.51 bytes per EURUSD bar) at a third of the write time.
 */
export const DEFAULT_ZSTD_LEVEL = 12;

/** Compresses synchronously; `await ensureZstd()` must have completed. */
export function zstdCompress(bytes: Uint8Array, level = DEFAULT_ZSTD_LEVEL): Uint8Array {
  assertReady();
  return compress(bytes, level);
}

/**
 * zstd's own error numbers (zstd_errors.h) for the failures input can cause, worded for people: the
 * library reports every decompression failure as "Failed to compress with code -N".
 */
const DECOMPRESSION_ERRORS: Record<number, string> = {
  10: 'not zstd data (unknown frame header)',
  12: 'written by an unsupported zstd version',
  14: 'uses unsupported frame parameters',
  16: 'needs a larger window than this decoder supports',
  20: 'the data is corrupt',
  22: 'the data is corrupt (checksum mismatch)',
  24: 'the data is corrupt (bad literals header)',
  64: 'out of memory',
  70: 'the content is larger than the space allowed for it',
  72: 'the data is truncated (it ends inside a frame)',
};

/** zstd error number of "output buffer too small", which a caller may retry with a larger bound. */
export const ZSTD_DST_SIZE_TOO_SMALL = 70;

/** A zstd decompression failure; `code` is zstd's error number (see DECOMPRESSION_ERRORS). */
export class ZstdDecompressionError extends Error {
  override name = 'ZstdDecompressionError';
  /** What went wrong, without the "zstd decompression failed" prefix. */
  readonly reason: string;

  constructor(
    readonly code: number | undefined,
    detail: string,
  ) {
    const reason = code === undefined ? detail : (DECOMPRESSION_ERRORS[code] ?? `zstd error ${code}`);
    super(`zstd decompression failed: ${reason}`);
    this.reason = reason;
  }
}

/**
 * Decompresses one zstd frame synchronously; `await ensureZstd()` must have completed. Frames written by
 * `zstdCompress` (and by the zstd CLI for regular files) record their content size, which sizes the output;
 * `expectedSize` is the fallback for frames that do not. Throws ZstdDecompressionError.
 */
export function zstdDecompress(bytes: Uint8Array, expectedSize?: number): Uint8Array {
  assertReady();
  try {
    return expectedSize === undefined
      ? decompress(bytes)
      : decompress(bytes, { defaultHeapSize: Math.max(expectedSize, 1) });
  } catch (error) {
    const message = (error as Error).message;
    const code = /with code (-?\d+)/.exec(message)?.[1];
    throw new ZstdDecompressionError(code === undefined ? undefined : Math.abs(Number(code)), message);
  }
}
