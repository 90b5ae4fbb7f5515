import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { parseDigest } from './manifests.ts';

/**
 * Completed registry blobs in an S3 bucket, content addressed as on disk:
 * `<prefix>/blobs/<algorithm>/<first two hex>/<hex>`. Bytes stream both ways: an upload file goes up in
 * multipart parts (`@aws-sdk/lib-storage`, at most `QUEUE_SIZE` parts of `PART_SIZE` bytes in memory)
 * and a pull streams the object's body, so a layer is never held whole in memory. A multipart upload is
 * completed by the server in one step, so a blob object is always whole.
 */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

export class S3Blobs {
  constructor(
    private readonly client: S3Client,
    readonly bucket: string,
    /** The registry's key prefix (`<prefix>/registry`), without a trailing '/'. */
    readonly prefix: string,
  ) {}

  key(digest: string): string {
    const { algorithm, hex } = parseDigest(digest);
    return `${this.prefix}/blobs/${algorithm}/${hex.slice(0, 2)}/${hex}`;
  }

  /** Streams the file at `path` (a finished upload) to the blob's key. */
  async putFile(digest: string, path: string, size: number): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: this.key(digest),
        Body: createReadStream(path),
        ContentType: 'application/octet-stream',
      },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    await upload.done();
    // a server that took fewer bytes than the file holds must not leave a short blob behind
    const stored = await this.size(digest);
    if (stored !== size) {
      await this.remove(digest);
      throw new Error(`blob ${digest}: the bucket holds ${stored} bytes after the upload, not ${size}`);
    }
  }

  async size(digest: string): Promise<number | undefined> {
    try {
      const out = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(digest) }),
      );
      return out.ContentLength ?? 0;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async read(digest: string, range?: { start: number; end: number }): Promise<Readable> {
    const out = await this.client.send(
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.key(digest),
        ...(range && { Range: `bytes=${range.start}-${range.end}` }),
      }),
    );
    return out.Body as Readable;
  }

  async remove(digest: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(digest) }));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return name === 'NoSuchKey' || name === 'NotFound' || (status === 404 && name !== 'NoSuchBucket');
}
