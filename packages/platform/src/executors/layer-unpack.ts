import { createWriteStream } from 'node:fs';
import { chmod, lchown, link, lstat, mkdir, readdir, readlink, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { ensureZstd, zstdDecompress } from '@hindsight/marketdata';
import tar from 'tar-stream';
import { ImageRunError } from './executor.ts';

/**
 * Applies image layers (tar archives, gzip, zstd or uncompressed) one after the other into a root folder,
 * as a container runtime's snapshotter would:
 * - whiteouts: `.wh.<name>` removes `<name>` of the layers below; `.wh..wh..opq` empties its folder of
 *   everything the layers below put there (what this layer adds stays);
 * - every path is resolved inside the root: a symbolic link in the way (absolute or with `..`) is followed
 *   as it would be inside the container, never out to the host's files; entries naming `..` are dropped;
 * - files, folders, symbolic and hard links are written; devices and FIFOs are skipped (the sandbox
 *   brings its own `/dev`); set-user-ID and set-group-ID bits are dropped;
 * - every entry is owned by `owner` when given (the user the strategy runs as, so that it can read what
 *   its image holds whatever the image's modes), else by whoever unpacks.
 */
export interface UnpackOwner {
  uid: number;
  gid: number;
}

export interface UnpackStats {
  /** Bytes of regular files written (the cache's size accounting). */
  bytes: number;
  entries: number;
}

const OPAQUE = '.wh..wh..opq';
const WHITEOUT = '.wh.';
const MAX_LINK_HOPS = 40;

type Compression = 'gzip' | 'zstd' | 'none';

/** The compression of a layer media type (OCI and Docker v2 names, distributable or not). */
export function layerCompression(mediaType: string): Compression {
  if (mediaType.includes('zstd')) return 'zstd';
  if (mediaType.endsWith('gzip')) return 'gzip';
  if (mediaType.endsWith('.tar') || mediaType.endsWith('+tar') || mediaType.endsWith('v1.tar')) return 'none';
  throw new ImageRunError(`layer media type "${mediaType}" is not a tar layer (tar, tar+gzip or tar+zstd)`);
}

/** Largest zstd layer unpacked (zstd layers are decompressed in memory). */
const MAX_ZSTD_BYTES = 1024 * 1024 * 1024;

async function zstdStream(source: Readable): Promise<Readable> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += (chunk as Buffer).length;
    if (size > MAX_ZSTD_BYTES) throw new ImageRunError('a zstd layer over 1 GiB cannot be unpacked');
    chunks.push(chunk as Buffer);
  }
  await ensureZstd();
  const bytes = Buffer.concat(chunks);
  try {
    return Readable.from([Buffer.from(zstdDecompress(bytes))]);
  } catch {
    // A frame written by a stream records no content size: give the decoder room, once.
    return Readable.from([Buffer.from(zstdDecompress(bytes, Math.min(bytes.length * 64, MAX_ZSTD_BYTES)))]);
  }
}

/** Splits an archive path into its components, without `.` and empty parts. */
function components(name: string): string[] {
  return name.split('/').filter((part) => part !== '' && part !== '.');
}

/**
 * The host path of the folder that holds `parts`' last component, with every symbolic link on the way
 * followed inside `root` (an absolute target restarts at `root`, `..` stops at `root`).
 */
async function parentInside(root: string, parts: string[]): Promise<string> {
  const resolved: string[] = [];
  const queue = parts.slice(0, -1);
  let hops = 0;
  while (queue.length > 0) {
    const part = queue.shift() as string;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      resolved.pop();
      continue;
    }
    const candidate = join(root, ...resolved, part);
    const info = await lstat(candidate).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      hops += 1;
      if (hops > MAX_LINK_HOPS) throw new ImageRunError(`too many symbolic links under ${parts.join('/')}`);
      const target = await readlink(candidate);
      if (target.startsWith('/')) resolved.length = 0;
      queue.unshift(...target.split('/'));
      continue;
    }
    resolved.push(part);
  }
  return join(root, ...resolved);
}

/** Tracks what the current layer wrote, so an opaque whiteout keeps it. */
class LayerWrites {
  readonly paths = new Set<string>();
  /** Folders whose final mode is applied when the layer ends (a read-only folder must take children first). */
  readonly folderModes = new Map<string, number>();
}

async function removeLower(dir: string, writes: LayerWrites): Promise<void> {
  const children = await readdir(dir).catch(() => [] as string[]);
  for (const child of children) {
    const path = join(dir, child);
    if (!writes.paths.has(path)) await rm(path, { recursive: true, force: true });
    else if ((await lstat(path)).isDirectory()) await removeLower(path, writes);
  }
}

export class LayerUnpacker {
  readonly stats: UnpackStats = { bytes: 0, entries: 0 };

  constructor(
    private readonly root: string,
    private readonly owner?: UnpackOwner,
  ) {}

  /** Applies one layer, read from `source` (compressed as `mediaType` says). */
  async apply(source: Readable, mediaType: string): Promise<void> {
    const compression = layerCompression(mediaType);
    const extract = tar.extract();
    const writes = new LayerWrites();
    let input: Readable = source;
    if (compression === 'gzip') {
      const gunzip = createGunzip();
      source.on('error', (error) => gunzip.destroy(error));
      input = source.pipe(gunzip);
    } else if (compression === 'zstd') {
      input = await zstdStream(source);
    }
    input.on('error', (error) => extract.destroy(error));
    input.pipe(extract);
    for await (const entry of extract) {
      await this.entry(entry.header, entry as AsyncIterable<Buffer>, writes);
      entry.resume();
    }
    for (const [path, mode] of writes.folderModes) {
      // A later entry of the layer may have replaced the folder (with a symbolic link, which chmod would follow).
      if ((await lstat(path).catch(() => undefined))?.isDirectory()) await chmod(path, mode);
    }
  }

  private async own(path: string): Promise<void> {
    if (this.owner) await lchown(path, this.owner.uid, this.owner.gid);
  }

  private async entry(header: tar.Header, body: AsyncIterable<Buffer>, writes: LayerWrites): Promise<void> {
    const parts = components(header.name);
    const base = parts[parts.length - 1];
    if (!base || base === '..') return;
    const parent = await parentInside(this.root, parts);
    this.stats.entries += 1;
    if (base === OPAQUE) {
      await removeLower(parent, writes);
      return;
    }
    if (base.startsWith(WHITEOUT)) {
      const hidden = base.slice(WHITEOUT.length);
      if (hidden && hidden !== '..' && hidden !== '.')
        await rm(join(parent, hidden), { recursive: true, force: true });
      return;
    }
    await mkdir(parent, { recursive: true });
    const path = join(parent, base);
    const existing = await lstat(path).catch(() => undefined);
    const mode = header.mode & 0o1777;
    if (header.type === 'directory') {
      if (existing && !existing.isDirectory()) await rm(path, { recursive: true, force: true });
      if (!existing?.isDirectory()) await mkdir(path, { mode: 0o700 });
      writes.paths.add(path);
      writes.folderModes.set(path, mode | 0o700);
      await this.own(path);
      return;
    }
    if (!['file', 'contiguous-file', 'symlink', 'link'].includes(header.type)) return;
    if (existing) await rm(path, { recursive: true, force: true });
    writes.paths.add(path);
    if (header.type === 'symlink') {
      await symlink(header.linkname, path);
    } else if (header.type === 'link') {
      const targetParts = components(header.linkname);
      const targetBase = targetParts[targetParts.length - 1];
      const target = targetBase && join(await parentInside(this.root, targetParts), targetBase);
      const info = target ? await lstat(target).catch(() => undefined) : undefined;
      if (!target || !info || info.isDirectory()) {
        throw new ImageRunError(
          `the hard link ${header.name} points at ${header.linkname}, which the image lacks`,
        );
      }
      await link(target, path);
      return;
    } else {
      await pipeline(body, createWriteStream(path, { mode, flags: 'wx' }));
      await chmod(path, mode);
      this.stats.bytes += header.size;
    }
    await this.own(path);
  }
}
