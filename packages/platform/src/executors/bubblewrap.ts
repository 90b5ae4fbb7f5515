import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The sandbox of the `local` executor: bubblewrap (`bwrap`, Debian package `bubblewrap`) builds a root
 * of read-only bind mounts, the image's top-level entries over a few of the host's system folders, in
 * new PID, IPC and UTS namespaces, started inside the run's own network namespace, which has only its
 * loopback with the gateway's address on it (`sandbox-network.ts`). Nothing is writable but `/tmp`, a
 * tmpfs of the run's scratch size.
 */
export interface SandboxUser {
  uid: number;
  gid: number;
}

/** The host folders a strategy sees under its image by default: interpreters and their libraries. */
export const DEFAULT_HOST_PATHS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
];

/** Image entries the sandbox provides itself. */
const PROVIDED = new Set(['dev', 'proc', 'sys', 'tmp']);

const run = promisify(execFile);

/** `bwrap` from the usual places, or undefined. */
export function findBubblewrap(): string | undefined {
  return ['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'].find((path) => existsSync(path));
}

/** Runs `true` in a minimal sandbox as `user`: answers the error text when bubblewrap cannot work here. */
export async function probeBubblewrap(bwrap: string, user?: SandboxUser): Promise<string | undefined> {
  try {
    await run(
      bwrap,
      [
        '--ro-bind',
        '/',
        '/',
        '--proc',
        '/proc',
        '--unshare-pid',
        '--unshare-net',
        '--die-with-parent',
        'true',
      ],
      { timeout: 10_000, ...(user && { uid: user.uid, gid: user.gid }) },
    );
    return undefined;
  } catch (error) {
    const failed = error as { stderr?: string; message: string };
    return (failed.stderr || failed.message).trim();
  }
}

/** A top-level entry of the sandbox's root: a folder or file bound read-only, or a symbolic link. */
type RootEntry = { name: string; source: string } | { name: string; link: string };

function rootEntry(dir: string, name: string): RootEntry | undefined {
  const source = join(dir, name);
  try {
    const info = lstatSync(source);
    if (info.isSymbolicLink()) return { name, link: readlinkSync(source) };
    if (info.isDirectory() || info.isFile()) return { name, source };
  } catch {
    // absent on this host
  }
  return undefined;
}

/**
 * The sandbox's root: every top-level entry of the image (`rootfs`), then the host paths the image does
 * not have. A full-rootfs image brings its own `/usr`, `/bin`, `/lib` and so runs on its own files; an
 * image holding only `/app` runs on the host's interpreters.
 */
export function sandboxRoot(rootfs: string, hostPaths: readonly string[]): RootEntry[] {
  const entries: RootEntry[] = [];
  for (const name of readdirSync(rootfs).sort()) {
    if (PROVIDED.has(name)) continue;
    const entry = rootEntry(rootfs, name);
    if (entry) entries.push(entry);
  }
  const fromImage = new Set(entries.map((entry) => entry.name));
  for (const path of hostPaths) {
    const name = path.replace(/^\/+/, '').split('/')[0];
    if (!name || fromImage.has(name) || PROVIDED.has(name) || entries.some((e) => e.name === name)) continue;
    const entry = rootEntry('/', name);
    if (entry) entries.push(entry);
  }
  return entries;
}

/** Whether `path` (absolute, in the sandbox) is a folder there. */
export function isSandboxFolder(entries: readonly RootEntry[], path: string): boolean {
  const parts = path.split('/').filter(Boolean);
  if (parts.length === 0) return true;
  const top = entries.find((entry) => entry.name === parts[0]);
  if (!top || !('source' in top)) return false;
  try {
    return lstatSync(join(top.source, ...parts.slice(1))).isDirectory();
  } catch {
    return false;
  }
}

/** Device nodes a program may expect; bound from the host (no devpts: see `bubblewrapArgs`). */
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom'];

/**
 * bwrap's arguments up to the command. `--info-fd 3` reports the sandbox's PID 1 as seen from the host;
 * `--block-fd 4` holds the sandbox, set up, until the worker has put it in its cgroups and opened the
 * gateway's address inside it.
 *
 * `/dev` is a small read-only tmpfs with the usual device nodes and no pseudo-terminals (bwrap's `--dev`
 * would mount a devpts, which a strategy does not need). `/dev/shm` is `/tmp`, so that shared memory
 * counts against the one scratch limit.
 */
export function bubblewrapArgs(
  entries: readonly RootEntry[],
  workingDir: string,
  scratchBytes: number,
): string[] {
  const args = [
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'strategy',
    '--die-with-parent',
    '--new-session',
  ];
  for (const entry of entries) {
    if ('link' in entry) args.push('--symlink', entry.link, `/${entry.name}`);
    else args.push('--ro-bind', entry.source, `/${entry.name}`);
  }
  args.push('--proc', '/proc', '--size', String(scratchBytes), '--tmpfs', '/tmp');
  args.push('--size', String(64 * 1024), '--tmpfs', '/dev');
  for (const device of DEVICES) args.push('--dev-bind', `/dev/${device}`, `/dev/${device}`);
  args.push('--symlink', '/proc/self/fd', '/dev/fd');
  for (const [fd, name] of ['stdin', 'stdout', 'stderr'].entries()) {
    args.push('--symlink', `/proc/self/fd/${fd}`, `/dev/${name}`);
  }
  args.push('--symlink', '/tmp', '/dev/shm', '--remount-ro', '/dev');
  // bwrap builds the root on a tmpfs of its own, writable by the sandbox's user until made read-only.
  args.push('--remount-ro', '/');
  args.push('--chdir', isSandboxFolder(entries, workingDir) ? workingDir : '/');
  args.push('--info-fd', '3', '--block-fd', '4');
  return args;
}
