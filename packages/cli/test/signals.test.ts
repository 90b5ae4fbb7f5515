import assert from 'node:assert/strict';
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openFileBarStore } from '@hindsight/marketdata';
import { importFiles } from '@hindsight/marketdata/import';
import pg from 'pg';
import { bin, runSources } from './support/cli-process.ts';
import { killGroup, leftovers, portIsFree, processTree } from './support/process-tree.ts';

/**
 * Process hygiene of the serving commands, run as a user or a supervisor runs them (`npm start`,
 * `npx hindsight ...`, the bin itself, in a terminal that is closed): once serving, a stop signal to
 * the process started, or SIGKILL to npx, leaves no process of its tree or process group running and
 * frees the port. (npx's own exit status is npm's business: it mirrors its shell's.) A running
 * scenario's strategy on `hindsight start`'s stop: scenarios.test.ts.
 */
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const sample = join(repoRoot, 'data/sample/crypto/binance_spot_BTCUSDT_1m_2024-01.csv.zst');
const cleanEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !k.startsWith('HINDSIGHT_') && !k.startsWith('GATEWAY_') && k !== 'DATABASE_URL' && k !== 'RUST_LOG',
    ),
  ),
  ...runSources,
};

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Serving {
  child: ChildProcess;
  /** The address it printed (empty for the worker, which serves no port). */
  url: string;
  exited: Promise<Exit>;
}

/**
 * Starts `command` in a process group of its own and resolves once its output matches `ready`
 * (group 1, if any, is its URL), then probes `probe` on that URL over HTTP.
 */
async function serving(
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  probe?: string,
  stdio: StdioOptions = ['ignore', 'pipe', 'pipe'],
): Promise<Serving> {
  const child = spawn(command, args, { cwd: repoRoot, env: { ...cleanEnv, ...env }, detached: true, stdio });
  const exited = new Promise<Exit>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) resolve(match[1] ?? '');
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then(({ code }) =>
      reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${output}`)),
    );
  });
  if (probe) assert.equal((await fetch(`${url}${probe}`)).status, 200);
  return { child, url, exited };
}

const portOf = (url: string) => Number(new URL(url).port);

/**
 * Runs argv[1..] in a new session on a pseudo-terminal, passing its output on, until its own stdin
 * ends: then it closes the terminal (the kernel hangs it up and sends SIGHUP to the session's
 * leader), waits for the command and prints its exit status.
 */
const IN_TERMINAL = `
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
while sys.stdin not in select.select([fd, sys.stdin], [], [])[0]:
    try:
        data = os.read(fd, 65536)
    except OSError:
        data = b""
    if not data:
        print("the command ended before the terminal was closed", flush=True)
        break
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
os.close(fd)
print("terminal closed, exit", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
`;

/** Signals the process started, then checks that its whole tree ended and its port is free. */
async function stopAndCheck({ child, url, exited }: Serving, signal: NodeJS.Signals) {
  const group = child.pid as number;
  const tree = await processTree(group);
  try {
    process.kill(group, signal);
    const exit = await exited;
    assert.deepEqual(await leftovers(tree, group), [], 'processes left running');
    if (url) assert.ok(await portIsFree(portOf(url)), `${url} is still held`);
    return exit;
  } finally {
    killGroup(group);
  }
}

describe('stop signals', { timeout: 600_000 }, () => {
  let gatewayEnv: Record<string, string> = {};
  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-cli-signals-'));
    const imported = await importFiles('binance', [sample], { symbol: 'C:BTCUSD' });
    await openFileBarStore(dir).writeBars('C:BTCUSD', imported.bars);
    const scenario = join(dir, 'scenario.json');
    await writeFile(
      scenario,
      JSON.stringify({
        subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m'] }],
        startTime: '2024-01-10T00:00:00Z',
        endTime: '2024-01-10T12:00:00Z',
      }),
    );
    gatewayEnv = {
      GATEWAY_PROVIDER: 'simulation',
      GATEWAY_PORT: '0',
      RUST_LOG: 'warn',
      HINDSIGHT_SCENARIO: scenario,
      HINDSIGHT_DATA_DIR: dir,
    };
  });
  const gatewayReady = /at (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Events:/;

  it('hindsight gateway in a terminal that is closed: SIGHUP drains the gateway, which exits 0', async () => {
    // A terminal of its own (python's pty), hung up by closing its master side once the gateway serves.
    const terminal = await serving(
      'python3',
      ['-c', IN_TERMINAL, process.execPath, bin, 'gateway'],
      { ...gatewayEnv, RUST_LOG: 'info' }, // the stop logs to the closed terminal
      gatewayReady,
      '/livez',
      ['pipe', 'pipe', 'pipe'],
    );
    let output = '';
    const status = new Promise<string>((resolve) => {
      const read = (chunk: Buffer) => {
        output += chunk;
        const match = /terminal closed, exit (-?\d+)/.exec(output);
        if (match) resolve(match[1] as string);
      };
      terminal.child.stdout?.on('data', read);
      terminal.child.stderr?.on('data', read);
      // Whatever happens, the wait ends with the terminal's process, saying what it printed.
      void terminal.exited.then((exit) => resolve(`(no status; ${JSON.stringify(exit)}) ${output}`));
    });
    const tree = await processTree(terminal.child.pid as number);
    terminal.child.stdin?.end();
    try {
      assert.deepEqual(await leftovers(tree), [], 'processes left running');
      assert.equal(await status, '0', output);
      assert.ok(await portIsFree(portOf(terminal.url)), `${terminal.url} is still held`);
    } finally {
      // Only a failed test leaves any: the terminal's session is a process group of its own.
      for (const pid of tree) killGroup(pid);
    }
  });

  it('npx hindsight gateway: SIGTERM to npx stops the gateway (npm passes it only to its shell)', async () => {
    const gateway = await serving('npx', ['hindsight', 'gateway'], gatewayEnv, gatewayReady, '/livez');
    await stopAndCheck(gateway, 'SIGTERM');
  });

  it('npx hindsight gateway: SIGKILL to npx stops the gateway', async () => {
    const gateway = await serving('npx', ['hindsight', 'gateway'], gatewayEnv, gatewayReady, '/livez');
    await stopAndCheck(gateway, 'SIGKILL');
  });

  it('npm start: SIGTERM to npm stops the platform, and npm exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-cli-signals-start-'));
    const platform = await serving(
      'npm',
      ['start', '--', '--port', '0'],
      { HINDSIGHT_DATA_DIR: dir, HINDSIGHT_LOG_LEVEL: 'warn' },
      /running at (http:\/\/\S+) [\s\S]*API docs:/,
      '/v1/openapi.json',
    );
    assert.deepEqual(await stopAndCheck(platform, 'SIGTERM'), { code: 0, signal: null });
  });

  describe('hindsight worker', () => {
    const server = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const name = `hindsight_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: server });
    before(async () => {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
    });
    after(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    });

    it('SIGTERM stops claiming and exits 0', async () => {
      const database = new URL(server);
      database.pathname = `/${name}`;
      const worker = await serving(
        process.execPath,
        [bin, 'worker'],
        {
          DATABASE_URL: database.toString(),
          HINDSIGHT_DATA_DIR: await mkdtemp(join(tmpdir(), 'hindsight-cli-signals-worker-')),
          HINDSIGHT_LOG_LEVEL: 'warn',
        },
        /is claiming scenarios/,
      );
      assert.deepEqual(await stopAndCheck(worker, 'SIGTERM'), { code: 0, signal: null });
    });
  });
});
