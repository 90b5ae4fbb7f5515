import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, truncate } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type DigestAlgorithm, parseDigest } from './manifests.ts';
import type { S3Blobs } from './s3-blobs.ts';

/**
 * The registry's bytes on disk, beside the database in the data dir:
 * `<data dir>/registry/blobs/<algorithm>/<first two hex>/<hex>` holds each blob once (content addressed,
 * shared by every version that links it) and `<data dir>/registry/uploads/<uuid>` the bytes of an upload
 * in progress. Bytes stream through: a layer is never held in memory. An upload becomes a blob by
 * fsync and rename, so a blob file is always whole (the object-store convention of `@hindsight/marketdata`).
 * With `HINDSIGHT_STORAGE_URL=s3://...` completed blobs live in the bucket instead (`remote`, s3-blobs.ts):
 * an upload still collects on the disk of the host that received it and is streamed to the bucket when it
 * completes, so the requests of one push must reach one API host (docs/registry.md).
 *
 * The sha256 of each upload is kept running in memory while chunks arrive in order, so completing an
 * upload does not read the layer again; when the running hash is missing (another process took earlier
 * chunks, a chunk failed, or sha512) the upload file is hashed from disk instead.
 */
export class BlobStore {
  private readonly running = new Map<string, { size: number; hash: Hash }>();
  private readonly busy = new Map<string, Promise<unknown>>();

  constructor(
    readonly root: string,
    /** Where completed blobs live when not on disk. */
    readonly remote?: S3Blobs,
  ) {}

  blobPath(digest: string): string {
    const { algorithm, hex } = parseDigest(digest);
    return join(this.root, 'blobs', algorithm, hex.slice(0, 2), hex);
  }

  private uploadPath(id: string): string {
    return join(this.root, 'uploads', id);
  }

  async createUpload(id: string): Promise<void> {
    const path = this.uploadPath(id);
    await mkdir(dirname(path), { recursive: true });
    await (await open(path, 'wx')).close();
    this.running.set(id, { size: 0, hash: createHash('sha256') });
  }

  /** Bytes received so far, or undefined when the upload file is gone. */
  uploadSize(id: string): Promise<number | undefined> {
    return fileSize(this.uploadPath(id));
  }

  /**
   * Appends `source` to the upload after checking it has exactly `expectedStart` bytes (when given) and,
   * when `expectedLength` is given, that exactly so many arrive. On any failure the upload is cut back
   * to its previous size, so a broken chunk leaves no partial write. Calls on one upload run one at a time.
   */
  append(
    id: string,
    source: Readable,
    check: (currentSize: number) => void,
    expectedLength?: number,
  ): Promise<number> {
    const previous = this.busy.get(id) ?? Promise.resolve();
    const task = previous.catch(() => {}).then(() => this.appendNow(id, source, check, expectedLength));
    this.busy.set(id, task);
    return task.finally(() => {
      if (this.busy.get(id) === task) this.busy.delete(id);
    });
  }

  private async appendNow(
    id: string,
    source: Readable,
    check: (currentSize: number) => void,
    expectedLength: number | undefined,
  ): Promise<number> {
    const path = this.uploadPath(id);
    const start = await this.uploadSize(id);
    if (start === undefined) throw new UploadGoneError(id);
    check(start);
    const entry = this.running.get(id);
    const hash = entry && entry.size === start ? entry.hash : undefined;
    this.running.delete(id);
    let written = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        written += chunk.length;
        hash?.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, counter, createWriteStream(path, { flags: 'r+', start }));
      if (expectedLength !== undefined && written !== expectedLength) {
        throw new LengthMismatchError(expectedLength, written);
      }
    } catch (error) {
      await truncate(path, start).catch(() => {});
      throw error;
    }
    if (hash) this.running.set(id, { size: start + written, hash });
    return start + written;
  }

  /** The digest of the upload's bytes in `algorithm`. */
  async uploadDigest(id: string, algorithm: DigestAlgorithm): Promise<string> {
    const size = await this.uploadSize(id);
    if (size === undefined) throw new UploadGoneError(id);
    const entry = this.running.get(id);
    if (algorithm === 'sha256' && entry && entry.size === size) {
      return `sha256:${entry.hash.copy().digest('hex')}`;
    }
    const hash = createHash(algorithm);
    await pipeline(createReadStream(this.uploadPath(id)), async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) hash.update(chunk);
    });
    return `${algorithm}:${hash.digest('hex')}`;
  }

  /** Makes the upload the blob `digest`: flushed to disk, then renamed into place (atomic), or sent to the bucket. */
  async commitUpload(id: string, digest: string): Promise<void> {
    const source = this.uploadPath(id);
    if (this.remote) {
      const size = await this.uploadSize(id);
      if (size === undefined) throw new UploadGoneError(id);
      await this.remote.putFile(digest, source, size);
      await this.discardUpload(id);
      return;
    }
    const handle = await open(source, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    const target = this.blobPath(digest);
    await mkdir(dirname(target), { recursive: true });
    await rename(source, target);
    this.running.delete(id);
  }

  async discardUpload(id: string): Promise<void> {
    this.running.delete(id);
    await rm(this.uploadPath(id), { force: true });
  }

  /** Ids of every upload file on disk (to find those a crash left without an upload row). */
  async uploadIds(): Promise<string[]> {
    try {
      return (await readdir(join(this.root, 'uploads'))).filter((name) => !name.startsWith('.'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** The stored blob's size, or undefined when there is none. */
  size(digest: string): Promise<number | undefined> {
    return this.remote ? this.remote.size(digest) : fileSize(this.blobPath(digest));
  }

  async read(digest: string, range?: { start: number; end: number }): Promise<Readable> {
    if (this.remote) return this.remote.read(digest, range);
    return createReadStream(this.blobPath(digest), range ?? {});
  }

  /** A small blob (an image config) whole. */
  async readBytes(digest: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.read(digest)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async remove(digest: string): Promise<void> {
    if (this.remote) await this.remote.remove(digest);
    else await rm(this.blobPath(digest), { force: true });
  }
}

async function fileSize(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export class UploadGoneError extends Error {
  constructor(readonly uploadId: string) {
    super(`upload ${uploadId} is gone`);
  }
}

export class LengthMismatchError extends Error {
  constructor(
    readonly expected: number,
    readonly received: number,
  ) {
    super(`expected ${expected} bytes, received ${received}`);
  }
}
