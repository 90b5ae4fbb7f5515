import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { assertObjectKey, type ObjectStore } from './object-store.ts';

/**
 * The ObjectStore in an S3 bucket (AWS or any S3-compatible server), under an optional key prefix, so
 * several machines share one market-data store. The client is built by the caller (endpoint, region,
 * credentials, path style): see `openObjectStore` in storage-url.ts.
 */
export interface S3ObjectStoreOptions {
  client: S3Client;
  bucket: string;
  /** Keys live under `<prefix>/` in the bucket; '' for the bucket's root. */
  prefix?: string;
  /** Keys per ListObjectsV2 page (the server's default, at most 1000, when unset). */
  pageSize?: number;
}

function isNotFound(err: unknown): boolean {
  // only a missing key: NoSuchBucket (also a 404) is a configuration error and must surface
  const name = (err as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound';
}

export class S3ObjectStore implements ObjectStore {
  readonly bucket: string;
  /** '' or a prefix ending in '/'. */
  readonly root: string;
  private readonly client: S3Client;
  private readonly pageSize: number | undefined;

  constructor(options: S3ObjectStoreOptions) {
    this.client = options.client;
    this.bucket = options.bucket;
    this.pageSize = options.pageSize;
    const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    if (prefix !== '') assertObjectKey(prefix);
    this.root = prefix === '' ? '' : `${prefix}/`;
  }

  private s3Key(key: string): string {
    assertObjectKey(key);
    return this.root + key;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const Key = this.s3Key(key);
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      if (!out.Body) return new Uint8Array(0);
      return await out.Body.transformToByteArray();
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** A single PutObject: S3 replaces an object atomically, so readers see the old bytes or the new. */
  async put(key: string, bytes: Uint8Array): Promise<void> {
    const Key = this.s3Key(key);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key,
        Body: bytes,
        ContentLength: bytes.byteLength,
        ContentType: 'application/octet-stream',
      }),
    );
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const out = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.root + prefix,
          ContinuationToken: token,
          MaxKeys: this.pageSize,
        }),
      );
      for (const object of out.Contents ?? []) {
        const key = object.Key?.slice(this.root.length);
        // objects written by other tools (folder markers, odd names) are not ours to list
        if (key !== undefined && isObjectKey(key)) keys.push(key);
      }
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
    // S3 orders by UTF-8 bytes; sort as the other backends do
    return keys.sort();
  }

  /** DeleteObject succeeds for a missing key; a NoSuchKey from a stricter server is treated the same. */
  async delete(key: string): Promise<void> {
    const Key = this.s3Key(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

function isObjectKey(key: string): boolean {
  try {
    assertObjectKey(key);
    return true;
  } catch {
    return false;
  }
}
