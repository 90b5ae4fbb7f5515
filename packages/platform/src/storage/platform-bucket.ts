import { S3Client } from '@aws-sdk/client-s3';
import { S3ObjectStore } from '@hindsight/marketdata';
import { S3Blobs } from '../registry/s3-blobs.ts';
import { ResultFileStore } from './result-files.ts';
import { type StorageSettings, storagePrefix } from './storage-settings.ts';

/**
 * The platform's parts in a bucket (`HINDSIGHT_STORAGE_URL=s3://bucket/prefix`), sharing one S3 client:
 * registry blobs under `<prefix>/registry/`, result files under `<prefix>/results/` (market data,
 * `<prefix>/market/`, is opened by openMarketStore with the same client). Undefined for the data dir.
 */
export interface PlatformBucket {
  client: S3Client;
  registryBlobs: S3Blobs;
  resultFiles: ResultFileStore;
}

export function openPlatformBucket(storage: StorageSettings): PlatformBucket | undefined {
  if (storage.kind !== 's3') return undefined;
  const client = new S3Client(storage.client);
  return {
    client,
    registryBlobs: new S3Blobs(client, storage.bucket, storagePrefix(storage, 'registry')),
    resultFiles: new ResultFileStore(
      new S3ObjectStore({ client, bucket: storage.bucket, prefix: storagePrefix(storage, 'results') }),
    ),
  };
}
