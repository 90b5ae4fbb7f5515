import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Keys and bytes: the storage seam of market data. Keys are `/`-separated relative paths
 * (`bars/C_BTCUSD/2024-01.hsb`). The file backend below serves a local data directory; an S3-style backend
 * can implement the same four operations later.
 */
export interface ObjectStore {
  /** The object's bytes, or undefined when there is none. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Stores the object atomically: a concurrent or later `get` sees the old bytes or the new, never a mix. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** Every key starting with `prefix`, sorted. */
  list(prefix: string): Promise<string[]>;
  /** Removes the object; no error when there is none. */
  delete(key: string): Promise<void>;
}

/** An object's bytes with a tag that changes whenever they do (S3's ETag). */
export interface ObjectVersion {
  bytes: Uint8Array;
  tag: string;
}

/**
 * A store that can tell whether a copy is still current: a cache shared with writers on other machines
 * revalidates its copies through it (CachedObjectStore's `revalidate`).
 */
export interface ConditionalObjectStore extends ObjectStore {
  /** 'unchanged' when the object's tag is still `tag`; else its bytes and tag, or undefined when absent. */
  getIfChanged(key: string, tag?: string): Promise<ObjectVersion | 'unchanged' | undefined>;
}

const KEY_SEGMENT = /^[A-Za-z0-9_=+@,][A-Za-z0-9._=+@,-]*$/;

/** Throws unless `key` is a safe relative key: non-empty segments, no `.`/`..`, no leading dots, no backslashes. */
export function assertObjectKey(key: string): void {
  const segments = key.split('/');
  if (key.length === 0 || key.length > 1024 || !segments.every((s) => KEY_SEGMENT.test(s))) {
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Objects as files under `rootDir` (`rootDir/<key>`). `put` writes a hidden temporary file in the target
 * directory, flushes it to disk and renames it over the target, so readers never see a partial object. Temporary
 * files (names starting with `.`) are never listed; ones left by a crash are harmless.
 */
export class FileObjectStore implements ObjectStore {
  constructor(readonly rootDir: string) {}

  private path(key: string): string {
    assertObjectKey(key);
    return join(this.rootDir, ...key.split('/'));
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      const buffer = await readFile(this.path(key));
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const target = this.path(key);
    const dir = dirname(target);
    await mkdir(dir, { recursive: true });
    const name = target.slice(dir.length + 1);
    const temp = join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const handle = await open(temp, 'wx');
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async list(prefix: string): Promise<string[]> {
    // walk from the deepest directory named completely by the prefix
    const slash = prefix.lastIndexOf('/');
    const base = slash < 0 ? '' : prefix.slice(0, slash);
    if (base !== '') assertObjectKey(base);
    const keys: string[] = [];
    const walk = async (dir: string, keyPrefix: string): Promise<void> => {
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if (isMissing(err)) return;
        throw err;
      }
      for (const entry of entries) {
        if (entry.name.startsWith('.')) continue;
        const key = keyPrefix + entry.name;
        if (entry.isDirectory()) {
          if (prefix.startsWith(`${key}/`) || key.startsWith(prefix))
            await walk(join(dir, entry.name), `${key}/`);
        } else if (entry.isFile() && key.startsWith(prefix)) {
          keys.push(key);
        }
      }
    };
    await walk(
      base === '' ? this.rootDir : join(this.rootDir, ...base.split('/')),
      base === '' ? '' : `${base}/`,
    );
    return keys.sort();
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}

/** Objects in memory (tests, caches); copies bytes in and out so callers cannot alias stored objects. */
export class MemoryObjectStore implements ObjectStore {
  private readonly objects = new Map<string, Uint8Array>();

  async get(key: string): Promise<Uint8Array | undefined> {
    const bytes = this.objects.get(key);
    return bytes ? bytes.slice() : undefined;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    assertObjectKey(key);
    this.objects.set(key, bytes.slice());
  }

  async list(prefix: string): Promise<string[]> {
    return [...this.objects.keys()].filter((key) => key.startsWith(prefix)).sort();
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }
}
