import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite is one process, one connection, with no lock of its own: two processes on one data dir would
 * corrupt it. A PID file taken with O_EXCL guards it; a file left by a dead process is taken over, so
 * a crash (even kill -9) never blocks the next start.
 */
export interface DataDirLock {
  path: string;
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    what = 'The embedded store',
  ) {
    super(
      `${what} in ${dataDir} is in use by ${Number.isInteger(pid) ? `process ${pid}` : 'another process'}. Stop that process (or use another HINDSIGHT_DATA_DIR), or set DATABASE_URL so several processes share a PostgreSQL server.`,
    );
    this.name = 'DataDirLockedError';
  }
}

/** Whether a process with this id runs (one of another user counts: EPERM). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** A lock file without a PID yet is being written by a starting process. */
const isFresh = (path: string): boolean => Date.now() - statSync(path).mtimeMs < 5000;

export function acquireDataDirLock(dataDir: string): DataDirLock {
  return acquireDirectoryLock(dataDir, 'The embedded store');
}

/** The same single-process guard for any directory one process at a time may write (`what` names it). */
export function acquireDirectoryLock(dataDir: string, what: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'hindsight.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        path,
        release: () => {
          if (released) return;
          released = true;
          rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
      if (Number.isInteger(holder) ? holder === process.pid || isAlive(holder) : isFresh(path)) {
        throw new DataDirLockedError(dataDir, holder, what);
      }
      rmSync(path, { force: true });
    }
  }
  throw new Error(`Could not take the lock ${path}; remove it if no Hindsight process is running.`);
}
