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
 * Decompresses one zstd frame synchronously; `await ensureZstd()` must have completed. Frames written by
 * `zstdCompress` (and by the zstd CLI for regular files) record their content size, which sizes the output;
 * `expectedSize` is the fallback for frames that do not.
 */
export function zstdDecompress(bytes: Uint8Array, expectedSize?: number): Uint8Array {
  assertReady();
  return expectedSize === undefined
    ? decompress(bytes)
    : decompress(bytes, { defaultHeapSize: Math.max(expectedSize, 1) });
}
