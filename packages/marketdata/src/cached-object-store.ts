import { mkdir, rm } from 'node:fs/promises';
import { assertObjectKey, FileObjectStore, type ObjectStore } from './object-store.ts';

/**
 * A read-through cache in front of a remote ObjectStore (S3): a worker replaying market data reads each
 * chunk from the bucket once and then from its local disk. Copies live as files under `dir`, bounded by
 * `maxBytes` with least-recently-used eviction; the directory is emptied when the cache opens, since copies
 * left by an earlier process may be stale. `put` and `delete` through the wrapper go to the remote store and
 * drop the local copy. Writes made by other machines are not seen for keys already cached: pass a
 * `cacheable` predicate that leaves out mutable keys (e.g. indexes) when other hosts write to the store.
 */
export interface CachedObjectStoreOptions {
  /** Directory for the cached copies; owned by the cache (emptied on open). */
  dir: string;
  /** Upper bound for the bytes held under `dir`; objects larger than this are never cached. */
  maxBytes: number;
  /** Which keys may be cached (default: all). */
  cacheable?: (key: string) => boolean;
}

export interface CacheStats {
  hits: number;
  misses: number;
  evictions: number;
  /** Bytes currently held. */
  bytes: number;
}

export class CachedObjectStore implements ObjectStore {
  private readonly files: FileObjectStore;
  private readonly maxBytes: number;
  private readonly cacheable: (key: string) => boolean;
  /** key -> size, in least-recently-used-first order (a Map keeps insertion order). */
  private readonly entries = new Map<string, number>();
  /** Bumped by writes, so a fetch that raced a write does not cache the bytes it read before it. */
  private readonly versions = new Map<string, number>();
  private readonly loading = new Map<string, Promise<Uint8Array | undefined>>();
  private counts = { hits: 0, misses: 0, evictions: 0, bytes: 0 };

  private constructor(
    readonly inner: ObjectStore,
    options: CachedObjectStoreOptions,
  ) {
    if (!(Number.isSafeInteger(options.maxBytes) && options.maxBytes >= 0))
      throw new Error(`cache maxBytes must be a non-negative integer, got ${options.maxBytes}`);
    this.files = new FileObjectStore(options.dir);
    this.maxBytes = options.maxBytes;
    this.cacheable = options.cacheable ?? (() => true);
  }

  /** Opens a cache over `inner`, emptying `options.dir`. */
  static async open(inner: ObjectStore, options: CachedObjectStoreOptions): Promise<CachedObjectStore> {
    await rm(options.dir, { recursive: true, force: true });
    await mkdir(options.dir, { recursive: true });
    return new CachedObjectStore(inner, options);
  }

  stats(): CacheStats {
    return { ...this.counts };
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    assertObjectKey(key);
    if (this.entries.has(key)) {
      const bytes = await this.files.get(key);
      if (bytes && this.entries.has(key)) {
        this.touch(key);
        this.counts.hits++;
        return bytes;
      }
      // evicted or invalidated while reading: fetch again
      if (!bytes) this.forget(key);
    }
    const pending = this.loading.get(key);
    // joiners get their own copy so no two callers share one buffer
    if (pending) return pending.then((bytes) => bytes?.slice());
    const load = this.fetch(key).finally(() => this.loading.delete(key));
    this.loading.set(key, load);
    return load;
  }

  private async fetch(key: string): Promise<Uint8Array | undefined> {
    this.counts.misses++;
    const version = this.versions.get(key) ?? 0;
    const bytes = await this.inner.get(key);
    if (bytes && bytes.byteLength <= this.maxBytes && this.cacheable(key)) {
      await this.files.put(key, bytes);
      if ((this.versions.get(key) ?? 0) === version) await this.remember(key, bytes.byteLength);
      else await this.files.delete(key);
    }
    return bytes;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    await this.write(key, () => this.inner.put(key, bytes));
  }

  async delete(key: string): Promise<void> {
    await this.write(key, () => this.inner.delete(key));
  }

  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }

  /** Drops the copy before and after the remote write; bumping the version on both sides stops racing fetches. */
  private async write(key: string, task: () => Promise<void>): Promise<void> {
    assertObjectKey(key);
    this.bump(key);
    await this.drop(key);
    try {
      await task();
    } finally {
      this.bump(key);
      await this.drop(key);
    }
  }

  private bump(key: string): void {
    this.versions.set(key, (this.versions.get(key) ?? 0) + 1);
  }

  private touch(key: string): void {
    const size = this.entries.get(key) as number;
    this.entries.delete(key);
    this.entries.set(key, size);
  }

  private forget(key: string): void {
    const size = this.entries.get(key);
    if (size === undefined) return;
    this.entries.delete(key);
    this.counts.bytes -= size;
  }

  private async drop(key: string): Promise<void> {
    this.forget(key);
    await this.files.delete(key);
  }

  private async remember(key: string, size: number): Promise<void> {
    this.forget(key);
    this.entries.set(key, size);
    this.counts.bytes += size;
    while (this.counts.bytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value as string;
      this.forget(oldest);
      this.counts.evictions++;
      // a key re-cached during this delete is found missing on its next hit and fetched again
      await this.files.delete(oldest);
    }
  }
}
