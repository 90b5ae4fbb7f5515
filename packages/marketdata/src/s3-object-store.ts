import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { assertObjectKey, type ConditionalObjectStore, type ObjectVersion } from './object-store.ts';

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

function isNotModified(err: unknown): boolean {
  const meta = (err as { $metadata?: { httpStatusCode?: number } }).$metadata;
  return meta?.httpStatusCode === 304 || (err as { name?: string }).name === 'NotModified';
}

function isNotFound(err: unknown): boolean {
  // only a missing key: NoSuchBucket (also a 404) is a configuration error and must surface
  const name = (err as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound';
}

export class S3ObjectStore implements ConditionalObjectStore {
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
    const found = await this.getIfChanged(key);
    return found === 'unchanged' ? undefined : found?.bytes;
  }

  /**
   * A conditional GetObject (`If-None-Match` with the ETag the caller holds): 'unchanged' costs a 304 and
   * no body, so a cache can check its copy is current with one small request.
   */
  async getIfChanged(key: string, tag?: string): Promise<ObjectVersion | 'unchanged' | undefined> {
    const Key = this.s3Key(key);
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key, ...(tag !== undefined && { IfNoneMatch: tag }) }),
      );
      const bytes = out.Body ? await out.Body.transformToByteArray() : new Uint8Array(0);
      // without an ETag the copy can never be validated: an empty tag never matches
      return { bytes, tag: out.ETag ?? '' };
    } catch (err) {
      if (tag !== undefined && isNotModified(err)) return 'unchanged';
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
