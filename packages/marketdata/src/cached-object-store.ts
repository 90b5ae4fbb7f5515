import { mkdir, rm } from 'node:fs/promises';
import {
  assertObjectKey,
  type ConditionalObjectStore,
  FileObjectStore,
  type ObjectStore,
  type ObjectVersion,
} from './object-store.ts';

/**
 * A read-through cache in front of a remote ObjectStore (S3): a worker replaying market data reads each
 * chunk from the bucket once and then from its local disk. Copies live as files under `dir`, bounded by
 * `maxBytes` with least-recently-used eviction; the directory is emptied when the cache opens, since copies
 * left by an earlier process may be stale. `put` and `delete` through the wrapper go to the remote store and
 * drop the local copy. Writes made by other machines are not seen for keys already cached, unless the cache
 * revalidates: with `revalidate`, every read of a cached copy asks the remote store whether the copy is still
 * current (a conditional request answered without a body when it is), so a month re-imported elsewhere is never
 * served stale; without it, pass a `cacheable` predicate that leaves out mutable keys.
 */
export interface CachedObjectStoreOptions {
  /** Directory for the cached copies; owned by the cache (emptied on open). */
  dir: string;
  /** Upper bound for the bytes held under `dir`; objects larger than this are never cached. */
  maxBytes: number;
  /** Which keys may be cached (default: all). */
  cacheable?: (key: string) => boolean;
  /** Check each cached copy against the remote store's tag (ETag) before serving it; needs a ConditionalObjectStore. */
  revalidate?: boolean;
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
  private readonly conditional: ConditionalObjectStore | undefined;
  /** key -> size and remote tag, in least-recently-used-first order (a Map keeps insertion order). */
  private readonly entries = new Map<string, CacheEntry>();
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
    if (options.revalidate && !('getIfChanged' in inner))
      throw new Error('a revalidating cache needs a store that answers conditional reads (getIfChanged)');
    this.files = new FileObjectStore(options.dir);
    this.maxBytes = options.maxBytes;
    this.cacheable = options.cacheable ?? (() => true);
    this.conditional = options.revalidate ? (inner as ConditionalObjectStore) : undefined;
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
    if (!this.conditional && this.entries.has(key)) {
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

  /** The remote object, or 'unchanged' when `tag` is given and still current. */
  private async remote(key: string, tag?: string): Promise<ObjectVersion | 'unchanged' | undefined> {
    if (this.conditional) return this.conditional.getIfChanged(key, tag);
    const bytes = await this.inner.get(key);
    return bytes && { bytes, tag: '' };
  }

  private async fetch(key: string): Promise<Uint8Array | undefined> {
    const version = this.versions.get(key) ?? 0;
    const entry = this.conditional ? this.entries.get(key) : undefined;
    let found = await this.remote(key, entry?.tag);
    if (found === 'unchanged') {
      const bytes = await this.files.get(key);
      if (bytes && this.entries.get(key) === entry) {
        this.touch(key);
        this.counts.hits++;
        return bytes;
      }
      // the copy went while the server answered: read the object whole
      found = await this.remote(key);
    }
    this.counts.misses++;
    if (found === 'unchanged' || found === undefined) {
      if (entry && this.entries.get(key) === entry) await this.drop(key);
      return undefined;
    }
    const { bytes, tag } = found;
    if (bytes.byteLength <= this.maxBytes && this.cacheable(key)) {
      await this.files.put(key, bytes);
      if ((this.versions.get(key) ?? 0) === version)
        await this.remember(key, { size: bytes.byteLength, tag });
      else await this.files.delete(key);
    } else if (entry && this.entries.get(key) === entry) {
      await this.drop(key);
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
    const entry = this.entries.get(key) as CacheEntry;
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.counts.bytes -= entry.size;
  }

  private async drop(key: string): Promise<void> {
    this.forget(key);
    await this.files.delete(key);
  }

  private async remember(key: string, entry: CacheEntry): Promise<void> {
    this.forget(key);
    this.entries.set(key, entry);
    this.counts.bytes += entry.size;
    while (this.counts.bytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value as string;
      this.forget(oldest);
      this.counts.evictions++;
      // a key re-cached during this delete is found missing on its next hit and fetched again
      await this.files.delete(oldest);
    }
  }
}

interface CacheEntry {
  size: number;
  /** The remote tag of the cached bytes ('' when the store has none). */
  tag: string;
}
