import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The sandbox of the `local` executor: bubblewrap (`bwrap`, Debian package `bubblewrap`) builds a root
 * of read-only bind mounts, the image's top-level entries over a few of the host's system folders, in
 * new PID, IPC and UTS namespaces (the network is the host's, so the strategy reaches its gateway on
 * loopback). Nothing in the sandbox is writable but a fresh `/tmp`.
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
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--unshare-pid',
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

/** bwrap's arguments up to the command; `--info-fd 3` reports the sandbox's PID 1 as seen from the host. */
export function bubblewrapArgs(entries: readonly RootEntry[], workingDir: string): string[] {
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
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  args.push('--chdir', isSandboxFolder(entries, workingDir) ? workingDir : '/', '--info-fd', '3');
  return args;
}
