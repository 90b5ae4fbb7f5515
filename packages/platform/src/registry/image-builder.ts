import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, readdir, readlink, rm } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { envIssues, formatIssues } from '@hindsight/core';
import tar from 'tar-stream';
import { type Descriptor, digestOf, mediaTypes } from './manifests.ts';

/**
 * Builds a one-layer OCI image from a directory, without Docker (`hindsight versions push`): the
 * directory becomes `/app` (the WorkingDir) in a gzipped tar layer, and the config carries Cmd, Env and
 * WorkingDir. The build is deterministic: entries in sorted order, mtimes 0, owner root, modes
 * normalised (0755 for directories and executables, 0644 for other files), no creation time in the
 * config. The same directory and options give the same digests on any machine of the same architecture.
 * `.git` and `__pycache__` folders are left out.
 */
export interface ImageSpec {
  /** The directory to put at `workingDir`. */
  dir: string;
  /** The command, exec form (`["python3", "main.py"]`). */
  cmd: string[];
  /** `KEY=VALUE` entries after the default PATH; a later entry for a key replaces an earlier one. */
  env?: string[];
  workingDir?: string;
  architecture?: string;
}

export interface BuiltImage {
  /** The gzipped tar layer, written to `layerPath`. */
  layer: Descriptor & { path: string; diffId: string };
  config: Descriptor & { bytes: Buffer };
  manifest: Descriptor & { bytes: Buffer };
  /** Removes the layer file. */
  dispose(): Promise<void>;
}

export const DEFAULT_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const SKIPPED = new Set(['.git', '__pycache__']);
const EPOCH = new Date(0);

const ociArchitecture = (arch: string) => ({ x64: 'amd64', ia32: '386', arm: 'arm' })[arch] ?? arch;

interface Entry {
  name: string;
  path: string;
  kind: 'directory' | 'file' | 'symlink';
  size: number;
  executable: boolean;
}

async function collect(root: string, prefix: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  const walk = async (dir: string, name: string): Promise<void> => {
    const children = (await readdir(dir)).filter((child) => !SKIPPED.has(child)).sort();
    for (const child of children) {
      const path = join(dir, child);
      const entryName = `${name}/${child}`;
      const info = await lstat(path);
      if (info.isDirectory()) {
        entries.push({ name: `${entryName}/`, path, kind: 'directory', size: 0, executable: true });
        await walk(path, entryName);
      } else if (info.isFile()) {
        entries.push({
          name: entryName,
          path,
          kind: 'file',
          size: info.size,
          executable: (info.mode & 0o111) !== 0,
        });
      } else if (info.isSymbolicLink()) {
        entries.push({ name: entryName, path, kind: 'symlink', size: 0, executable: false });
      } else {
        throw new Error(`${path}: only files, folders and symbolic links can go into an image`);
      }
    }
  };
  if (!(await lstat(root)).isDirectory()) throw new Error(`${root} is not a directory`);
  entries.push({ name: `${prefix}/`, path: root, kind: 'directory', size: 0, executable: true });
  await walk(root, prefix);
  return entries;
}

const hashing = (hash: ReturnType<typeof createHash>, counter?: { bytes: number }) =>
  new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      if (counter) counter.bytes += chunk.length;
      done(null, chunk);
    },
  });

function addEntry(pack: tar.Pack, entry: Entry): Promise<void> {
  const header = { name: entry.name, mtime: EPOCH, uid: 0, gid: 0, uname: '', gname: '' };
  return new Promise((resolve, reject) => {
    const finished = (error?: Error | null) => (error ? reject(error) : resolve());
    if (entry.kind === 'directory') {
      pack.entry({ ...header, type: 'directory', mode: 0o755 }, finished);
    } else if (entry.kind === 'symlink') {
      readlink(entry.path).then(
        (target) => pack.entry({ ...header, type: 'symlink', mode: 0o777, linkname: target }, finished),
        reject,
      );
    } else {
      const mode = entry.executable ? 0o755 : 0o644;
      const sink = pack.entry({ ...header, type: 'file', mode, size: entry.size }, finished);
      const source = createReadStream(entry.path);
      source.on('error', reject);
      source.pipe(sink);
    }
  });
}

/**
 * The image's Env: the default PATH, then `entries` (a later entry for a key replaces an earlier one).
 * The run rules of `env` (decision 24: key format, reserved names, sizes) hold here too, since the image
 * env is the lowest layer of every run's environment (decision 25).
 */
function imageEnv(entries: string[]): string[] {
  const env = new Map<string, string>();
  for (const entry of [DEFAULT_PATH, ...entries]) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new Error(`env entry "${entry}" is not KEY=VALUE`);
    env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  const issues = envIssues(Object.fromEntries(env));
  if (issues.length > 0) throw new Error(formatIssues(issues).message);
  return [...env].map(([key, value]) => `${key}=${value}`);
}

/** Writes the layer of `spec.dir` to `layerPath` and returns the image's three parts. */
export async function buildImage(spec: ImageSpec, layerPath: string): Promise<BuiltImage> {
  const workingDir = posix.normalize(spec.workingDir ?? '/app');
  if (!workingDir.startsWith('/') || workingDir === '/') {
    throw new Error(`workingDir "${workingDir}" must be an absolute path below /`);
  }
  if (spec.cmd.length === 0) throw new Error('the command is empty');
  const entries = await collect(spec.dir, workingDir.slice(1));

  const diffHash = createHash('sha256');
  const layerHash = createHash('sha256');
  const written = { bytes: 0 };
  const pack = tar.pack();
  const done = pipeline(
    pack,
    hashing(diffHash),
    createGzip({ level: 9 }),
    hashing(layerHash, written),
    createWriteStream(layerPath),
  );
  try {
    for (const entry of entries) await addEntry(pack, entry);
    pack.finalize();
    await done;
  } catch (error) {
    pack.destroy();
    await done.catch(() => {});
    await rm(layerPath, { force: true });
    throw error;
  }
  const diffId = `sha256:${diffHash.digest('hex')}`;
  const layer = {
    mediaType: mediaTypes.ociLayerGzip,
    digest: `sha256:${layerHash.digest('hex')}`,
    size: written.bytes,
    path: layerPath,
    diffId,
  };

  const env = imageEnv(spec.env ?? []);
  const configBytes = Buffer.from(
    JSON.stringify({
      architecture: spec.architecture ?? ociArchitecture(process.arch),
      os: 'linux',
      config: { Cmd: spec.cmd, Env: env, WorkingDir: workingDir },
      rootfs: { type: 'layers', diff_ids: [diffId] },
    }),
  );
  const config = {
    mediaType: mediaTypes.ociConfig,
    digest: digestOf(configBytes),
    size: configBytes.length,
    bytes: configBytes,
  };
  const descriptor = ({ mediaType, digest, size }: Descriptor) => ({ mediaType, digest, size });
  const manifestBytes = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: mediaTypes.ociManifest,
      config: descriptor(config),
      layers: [descriptor(layer)],
    }),
  );
  return {
    layer,
    config,
    manifest: {
      mediaType: mediaTypes.ociManifest,
      digest: digestOf(manifestBytes),
      size: manifestBytes.length,
      bytes: manifestBytes,
    },
    dispose: () => rm(layerPath, { force: true }),
  };
}

/**
 * Splits a command line into exec-form arguments the way a POSIX shell splits words: whitespace
 * separates, single quotes keep everything, double quotes keep all but `\"` and `\\`, a backslash
 * outside quotes escapes the next character. No variables, globs or operators (the image runs no shell).
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} quote in the command`);
  if (inWord) words.push(word);
  return words;
}
