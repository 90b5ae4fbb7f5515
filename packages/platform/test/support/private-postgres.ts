import { execFile, execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A PostgreSQL cluster of one test's own, which the test may stop and start at will: the machine's
 * shared server (127.0.0.1:5432) serves other tests at the same time and must never be restarted.
 * initdb in a temp dir, trust auth, a free loopback port, the socket in the temp dir. As root the
 * binaries run as the `postgres` user, since initdb refuses to run as root.
 */
export interface PrivatePostgres {
  /** The `postgres` database of the cluster (`postgres(url)` of storage-backends makes fresh ones). */
  url: string;
  /** `pg_ctl stop -m fast`: clients are disconnected, open transactions rolled back. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the cluster if it runs and removes its files. */
  dispose(): Promise<void>;
}

const run = promisify(execFile);

/** Debian's server binaries, the newest version installed. */
function serverBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter(
          (v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')),
        )
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const version = versions[0];
  if (version === undefined) {
    throw new Error(
      `This test runs a PostgreSQL cluster of its own and needs the server binaries (initdb, pg_ctl) in ${root}/<version>/bin: install them (Debian: apt-get install postgresql).`,
    );
  }
  return join(root, version, 'bin');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address !== 'object') throw new Error('no free port');
  return address.port;
}

/** Where else the cluster listens: an address of this host, and the clients (CIDR) trusted there. */
export interface PrivatePostgresOptions {
  listen?: { address: string; clients: string };
}

export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const bin = serverBinDir();
  const asRoot = process.getuid?.() === 0;
  // As root: run as `postgres`, in a temp dir it owns (initdb and the server refuse root).
  const command = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
  const dir = mkdtempSync(join(tmpdir(), 'hindsight-private-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const log = join(dir, 'server.log');
  const port = await freePort();
  const pgCtl = (args: string[]) => {
    const [file, argv] = command('pg_ctl', ['-D', data, '-w', '-t', '120', ...args]);
    // Async: the test's platform runs in this process and must keep running while the server stops.
    return run(file, argv).catch((error: Error) => {
      const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
      throw new Error(`pg_ctl ${args.at(-1)} failed: ${error.message}\n${tail}`);
    });
  };
  const listenAddresses = ['127.0.0.1', ...(options.listen ? [options.listen.address] : [])].join(',');
  let running = false;
  const start = async () => {
    await pgCtl([
      '-l',
      log,
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=${listenAddresses} -c fsync=off -c full_page_writes=off`,
      'start',
    ]);
    running = true;
  };
  // A test process that dies leaves no server behind.
  const kill = () => {
    if (!running) return;
    const [file, argv] = command('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    try {
      execFileSync(file, argv, { stdio: 'ignore' });
    } catch {}
  };
  process.once('exit', kill);
  try {
    const [file, argv] = command('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    await run(file, argv);
    // initdb trusts loopback only; other hosts (network namespaces) connect from their own addresses.
    if (options.listen)
      appendFileSync(join(data, 'pg_hba.conf'), `host all all ${options.listen.clients} trust\n`);
    await start();
  } catch (error) {
    kill();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    async stop() {
      await pgCtl(['-m', 'fast', 'stop']);
      running = false;
    },
    async dispose() {
      if (running) await pgCtl(['-m', 'immediate', 'stop']).catch(() => {});
      running = false;
      process.off('exit', kill);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
