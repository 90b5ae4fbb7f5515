export {
  type BarBatch,
  type BarCoverage,
  BarStore,
  type BarStoreOptions,
  type MonthIndexEntry,
  openFileBarStore,
  type SymbolIndex,
  type WriteSummary,
} from './bar-store.ts';
export {
  CachedObjectStore,
  type CachedObjectStoreOptions,
  type CacheStats,
} from './cached-object-store.ts';
export {
  BAR_CHUNK_HEADER_BYTES,
  BAR_CHUNK_MAGIC,
  type BarChunkHeader,
  type BarChunkKind,
  barBatchKind,
  barChunkValues,
  ChunkFormatError,
  decodeBarChunk,
  encodeBarChunk,
  isBidAskBatch,
  readBarChunkHeader,
} from './codec/bars.ts';
export {
  decodeTickChunk,
  encodeTickChunk,
  readTickChunkHeader,
  TICK_CHUNK_MAGIC,
  type TickChunkHeader,
} from './codec/ticks.ts';
export { readSignedVarints, writeSignedVarint } from './codec/varint.ts';
export { exportParquet, type ParquetExport } from './export/parquet.ts';
export {
  assertObjectKey,
  type ConditionalObjectStore,
  FileObjectStore,
  MemoryObjectStore,
  type ObjectStore,
  type ObjectVersion,
} from './object-store.ts';
export { openObjectStore, s3ClientConfig } from './open-object-store.ts';
export {
  type BarSource,
  type ReplayInstrument,
  type ReplayOptions,
  ReplayReader,
  type ReplayStats,
  type ReplayWindow,
} from './replay.ts';
export { S3ObjectStore, type S3ObjectStoreOptions } from './s3-object-store.ts';
export { deriveBidAsk, type SpreadFactors, spreadFactors } from './spread.ts';
export { parseStorageUrl, type StorageLocation, storageChild } from './storage-url.ts';
export { barChunkKey, barIndexKey, monthRange, symbolKey, tickChunkKey, utcMonth } from './store-keys.ts';
export { TickReplay, type TickSource } from './tick-replay.ts';
export {
  DEFAULT_ZSTD_LEVEL,
  ensureZstd,
  ZstdDecompressionError,
  zstdCompress,
  zstdDecompress,
} from './zstd.ts';
