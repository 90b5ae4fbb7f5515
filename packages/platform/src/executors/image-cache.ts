import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ExecutorError, ImageRunError, type StrategyImage } from './executor.ts';
import type { ImageConfigFields } from './image-command.ts';
import { LayerUnpacker, type UnpackOwner } from './layer-unpack.ts';
import { RegistryPuller } from './registry-pull.ts';

/**
 * Unpacked images on disk, keyed by the version's image digest:
 *
 *     <cacheDir>/images/<algorithm>-<hex>/rootfs/       the image's files, every layer applied
 *     <cacheDir>/images/<algorithm>-<hex>/image.json    its config, size and the manifest that ran
 *     <cacheDir>/tmp/<random>/                           unpacks in progress
 *
 * An image is fetched and unpacked under `tmp/` and renamed into `images/` only once whole, so a reader
 * never sees half an image, and two processes unpacking the same digest at once both succeed (the
 * second rename loses, and its copy is discarded). Within a process, concurrent prepares of one digest
 * share a single download. Entries are bounded by `maxBytes` (files' sizes): after each unpack the least
 * recently used entries no run of this process is using are removed until the cache fits. Leftovers of a
 * crashed unpack (`tmp/` entries older than an hour) are removed when the cache opens.
 */
export interface CachedImage {
  digest: string;
  /** The host folder holding the image's root filesystem. */
  rootfs: string;
  config: ImageConfigFields | undefined;
  bytes: number;
}

export interface ImageCacheOptions {
  dir: string;
  /** Upper bound of the unpacked files' total size (default 10 GiB); the entry in use may exceed it. */
  maxBytes?: number;
  /** Owner of unpacked entries (the user strategies run as). */
  owner?: UnpackOwner;
}

interface EntryFile {
  digest: string;
  manifestDigest: string;
  bytes: number;
  config?: ImageConfigFields;
}

interface Inflight {
  promise: Promise<CachedImage>;
  controller: AbortController;
  waiters: number;
}

export const DEFAULT_CACHE_MAX_BYTES = 10 * 1024 * 1024 * 1024;
const STALE_TMP_MS = 60 * 60 * 1000;

const entryName = (digest: string) => digest.replace(':', '-');

/** Rejects with the signal's reason once it aborts. */
export function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

export class ImageCache {
  readonly dir: string;
  private readonly maxBytes: number;
  private readonly inflight = new Map<string, Inflight>();
  private readonly inUse = new Map<string, number>();
  private opened: Promise<void> | undefined;
  /** Downloads started (a cache hit starts none): what tests and metrics look at. */
  fetches = 0;

  constructor(private readonly options: ImageCacheOptions) {
    this.dir = options.dir;
    this.maxBytes = options.maxBytes ?? DEFAULT_CACHE_MAX_BYTES;
  }

  private open(): Promise<void> {
    this.opened ??= (async () => {
      await mkdir(join(this.dir, 'images'), { recursive: true, mode: 0o755 });
      await mkdir(join(this.dir, 'tmp'), { recursive: true, mode: 0o755 });
      const now = Date.now();
      for (const name of await readdir(join(this.dir, 'tmp'))) {
        const path = join(this.dir, 'tmp', name);
        const info = await stat(path).catch(() => undefined);
        if (info && now - info.mtimeMs > STALE_TMP_MS) await rm(path, { recursive: true, force: true });
      }
    })().catch((error) => {
      this.opened = undefined;
      throw new ExecutorError(`cannot use the image cache at ${this.dir}: ${(error as Error).message}`, {
        cause: error,
      });
    });
    return this.opened;
  }

  /**
   * The unpacked image, fetched when it is not cached yet. Marks it in use until `done` is called (an
   * entry in use is never evicted). Rejects with the signal's reason when `signal` aborts first.
   */
  async acquire(image: StrategyImage, signal?: AbortSignal): Promise<CachedImage & { done(): void }> {
    signal?.throwIfAborted();
    await this.open();
    const cached = await this.read(image.digest);
    const entry = cached ?? (await this.join(image, signal));
    const count = (this.inUse.get(entry.digest) ?? 0) + 1;
    this.inUse.set(entry.digest, count);
    let released = false;
    return {
      ...entry,
      done: () => {
        if (released) return;
        released = true;
        const left = (this.inUse.get(entry.digest) ?? 1) - 1;
        if (left > 0) this.inUse.set(entry.digest, left);
        else this.inUse.delete(entry.digest);
      },
    };
  }

  private async read(digest: string): Promise<CachedImage | undefined> {
    const dir = join(this.dir, 'images', entryName(digest));
    try {
      const file = JSON.parse(await readFile(join(dir, 'image.json'), 'utf8')) as EntryFile;
      const now = new Date();
      await utimes(join(dir, 'image.json'), now, now).catch(() => undefined);
      return { digest, rootfs: join(dir, 'rootfs'), config: file.config, bytes: file.bytes };
    } catch {
      return undefined;
    }
  }

  /** Joins the download of `image` in progress, or starts it; leaving it (abort) cancels it once nobody waits. */
  private async join(image: StrategyImage, signal?: AbortSignal): Promise<CachedImage> {
    let flight = this.inflight.get(image.digest);
    if (!flight) {
      const controller = new AbortController();
      const created: Inflight = {
        controller,
        waiters: 0,
        promise: this.fetch(image, controller.signal).finally(() => {
          if (this.inflight.get(image.digest) === created) this.inflight.delete(image.digest);
        }),
      };
      created.promise.catch(() => undefined);
      this.inflight.set(image.digest, created);
      flight = created;
    }
    const joined = flight;
    joined.waiters += 1;
    try {
      return await (signal ? Promise.race([joined.promise, whenAborted(signal)]) : joined.promise);
    } finally {
      joined.waiters -= 1;
      if (joined.waiters === 0 && signal?.aborted) {
        joined.controller.abort(signal.reason);
        if (this.inflight.get(image.digest) === joined) this.inflight.delete(image.digest);
      }
    }
  }

  private async fetch(image: StrategyImage, signal: AbortSignal): Promise<CachedImage> {
    this.fetches += 1;
    const puller = new RegistryPuller(image, signal);
    const work = join(
      this.dir,
      'tmp',
      `${entryName(image.digest).slice(0, 24)}-${randomBytes(6).toString('hex')}`,
    );
    try {
      const pulled = await puller.pull();
      const rootfs = join(work, 'rootfs');
      await mkdir(rootfs, { recursive: true, mode: 0o755 });
      const unpacker = new LayerUnpacker(rootfs, this.options.owner);
      for (const layer of pulled.layers) {
        signal.throwIfAborted();
        await unpacker.apply(await puller.layer(layer), layer.mediaType);
      }
      signal.throwIfAborted();
      const file: EntryFile = {
        digest: image.digest,
        manifestDigest: pulled.manifestDigest,
        bytes: unpacker.stats.bytes,
        ...(pulled.config.config && { config: pulled.config.config }),
      };
      await writeFile(join(work, 'image.json'), JSON.stringify(file));
      const final = join(this.dir, 'images', entryName(image.digest));
      try {
        await rename(work, final);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
        // Another process unpacked the same digest first: keep its copy.
        await rm(work, { recursive: true, force: true });
      }
      const entry = await this.read(image.digest);
      if (!entry) throw new ExecutorError(`the unpacked image ${image.digest} vanished from the cache`);
      await this.evict(this.maxBytes, image.digest).catch(() => undefined);
      return entry;
    } catch (error) {
      await rm(work, { recursive: true, force: true }).catch(() => undefined);
      if (signal.aborted) throw signal.reason;
      if (error instanceof ExecutorError || error instanceof ImageRunError) throw error;
      throw new ExecutorError(`cannot unpack the image ${image.digest}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  /** Removes least recently used entries not in use (and not `keep`) until the cache holds at most `limit` bytes. */
  async evict(limit = this.maxBytes, keep?: string): Promise<string[]> {
    await this.open();
    const root = join(this.dir, 'images');
    const entries: { name: string; digest: string; bytes: number; used: number }[] = [];
    for (const name of await readdir(root)) {
      try {
        const path = join(root, name, 'image.json');
        const file = JSON.parse(await readFile(path, 'utf8')) as EntryFile;
        entries.push({ name, digest: file.digest, bytes: file.bytes, used: (await stat(path)).mtimeMs });
      } catch {
        // an entry another process is removing
      }
    }
    let total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
    const removed: string[] = [];
    for (const entry of entries.sort((a, b) => a.used - b.used)) {
      if (total <= limit) break;
      if (entry.digest === keep || this.inUse.has(entry.digest)) continue;
      // Renamed away first, so a concurrent reader finds the entry whole or not at all.
      const doomed = join(this.dir, 'tmp', `evicted-${randomBytes(6).toString('hex')}`);
      await rename(join(root, entry.name), doomed);
      await rm(doomed, { recursive: true, force: true });
      total -= entry.bytes;
      removed.push(entry.digest);
    }
    return removed;
  }

  /** Removes every entry no run of this process uses (deleting the folder while no worker runs is as good). */
  clear(): Promise<string[]> {
    return this.evict(0);
  }
}
