import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { BarStore, CachedObjectStore, openFileBarStore, S3ObjectStore } from '@hindsight/marketdata';
import { isAlive } from '../db/data-dir-lock.ts';
import { type StorageSettings, storagePrefix } from '../storage/storage-settings.ts';

/**
 * Where the platform's market data lives. By default beside the database in the data dir
 * (`$HINDSIGHT_DATA_DIR/market`); with `HINDSIGHT_STORAGE_URL=s3://...` in the bucket under
 * `<prefix>/market/`, read through a bounded local cache in `$HINDSIGHT_DATA_DIR/cache/market/<pid>`
 * that checks each copy against the bucket's ETag, so a month re-imported by another host is never
 * served stale.
 */
export const marketDir = (dataDir: string): string => join(dataDir, 'market');

/** Where `hindsight data import` takes its lock file for a bucket when there is no shared database. */
export const marketImportLockDir = (dataDir: string): string => join(dataDir, 'locks', 'market-import');

/** One cache directory per process: a worker and an API process may share a data dir. */
export const marketCacheRoot = (dataDir: string): string => join(dataDir, 'cache', 'market');

export interface MarketStoreOptions {
  /** Read through the local cache (default true); an import that only writes goes straight to the bucket. */
  cache?: boolean;
  /** An S3 client to share (else one is made from the settings). */
  client?: S3Client;
}

export async function openMarketStore(
  dataDir: string,
  storage: StorageSettings = { kind: 'data-dir' },
  options: MarketStoreOptions = {},
): Promise<BarStore> {
  if (storage.kind === 'data-dir') return openFileBarStore(dataDir);
  const bucket = new S3ObjectStore({
    client: options.client ?? new S3Client(storage.client),
    bucket: storage.bucket,
    prefix: storagePrefix(storage, 'market'),
  });
  if (options.cache === false) return new BarStore(bucket);
  const root = marketCacheRoot(dataDir);
  await removeDeadCaches(root);
  const cache = await CachedObjectStore.open(bucket, {
    dir: join(root, String(process.pid)),
    maxBytes: storage.cacheBytes,
    revalidate: true,
  });
  return new BarStore(cache);
}

/** Cache directories of processes that are gone (a crash leaves its copies behind). */
async function removeDeadCaches(root: string): Promise<void> {
  await mkdir(root, { recursive: true });
  for (const name of await readdir(root)) {
    const pid = Number(name);
    if (pid === process.pid || (Number.isInteger(pid) && pid > 0 && isAlive(pid))) continue;
    await rm(join(root, name), { recursive: true, force: true });
  }
}
