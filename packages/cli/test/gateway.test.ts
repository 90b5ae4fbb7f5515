import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openFileBarStore } from '@hindsight/marketdata';
import { importFiles } from '@hindsight/marketdata/import';
import { runSources } from './support/cli-process.ts';
import { childrenOf, commandLine, gone } from './support/process-tree.ts';

/** `hindsight gateway` as a real process: startup refusals, a whole backtest, and SIGTERM. */
const bin = fileURLToPath(new URL('../bin/hindsight.js', import.meta.url));
const sample = fileURLToPath(
  new URL('../../../data/sample/crypto/binance_spot_BTCUSDT_1m_2024-01.csv.zst', import.meta.url),
);
const example = fileURLToPath(new URL('../../../examples/sma-crossover-typescript/main.ts', import.meta.url));
const cleanEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('HINDSIGHT_') && !k.startsWith('GATEWAY_') && k !== 'RUST_LOG',
    ),
  ),
  ...runSources,
};

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function gateway(env: Record<string, string>, onStdout?: (text: string, kill: () => void) => void) {
  const child = spawn(process.execPath, [bin, 'gateway'], { env: { ...cleanEnv, RUST_LOG: 'warn', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
    onStdout?.(stdout, () => child.kill('SIGTERM'));
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise<Finished>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hindsight-cli-gateway-'));
  const imported = await importFiles('binance', [sample], { symbol: 'C:BTCUSD' });
  await openFileBarStore(dir).writeBars('C:BTCUSD', imported.bars);
  return dir;
}

async function scenarioFile(dir: string, instrument = 'C:BTCUSD'): Promise<string> {
  const file = join(dir, 'scenario.json');
  await writeFile(
    file,
    JSON.stringify({
      subscriptions: [{ instrument, events: ['candle_1m', 'order_update'] }],
      startTime: '2024-01-10T00:00:00Z',
      endTime: '2024-01-10T12:00:00Z',
    }),
  );
  return file;
}

/** The environment of `hindsight gateway` on a backtest of fresh data, its log level warn. */
async function backtestEnv(extra: Record<string, string>): Promise<Record<string, string | undefined>> {
  const dir = await dataDir();
  return {
    ...cleanEnv,
    RUST_LOG: 'warn',
    GATEWAY_PROVIDER: 'simulation',
    GATEWAY_PORT: '0',
    HINDSIGHT_SCENARIO: await scenarioFile(dir),
    HINDSIGHT_DATA_DIR: dir,
    ...extra,
  };
}

/** Starts `hindsight gateway` on a backtest and resolves once it has printed its address. */
async function startedGateway(singleThreaded: 'true' | 'false') {
  const env = await backtestEnv({ GATEWAY_SINGLE_THREADED: singleThreaded });
  const child = spawn(process.execPath, [bin, 'gateway'], { env });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('Events:')) resolve();
    });
    child.on('close', (code) => reject(new Error(`hindsight gateway exited with ${code} before starting`)));
  });
  return { child, closed };
}

/** The children of `pid` that run the CLI again (tsx may run an esbuild service beside them). */
async function relaunchedChildren(pid: number): Promise<number[]> {
  const children = await childrenOf(pid);
  const lines = await Promise.all(children.map(commandLine));
  return children.filter((_, i) => lines[i]?.includes(bin));
}

/** The process `hindsight gateway` started for its gateway (the launcher's one relaunched child). */
async function hostingProcess(launcher: number): Promise<number> {
  const [hosting, ...others] = await relaunchedChildren(launcher);
  assert.equal(others.length, 0);
  assert.ok(hosting !== undefined, 'the launcher started no child');
  return hosting;
}

describe('hindsight gateway', () => {
  it('refuses to start without GATEWAY_PROVIDER, in one line naming the providers', async () => {
    const result = await gateway({});
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr,
      'hindsight gateway: GATEWAY_PROVIDER: is not set; the gateway serves one provider, choose one of: simulation.\n',
    );
  });

  it('takes in the bundled sample on an empty store, and refuses an instrument without data, saying what to do', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-cli-gateway-empty-'));
    const result = await gateway({
      GATEWAY_PROVIDER: 'simulation',
      GATEWAY_PORT: '0',
      HINDSIGHT_SCENARIO: await scenarioFile(dir, 'C:ETHUSD'),
      HINDSIGHT_DATA_DIR: dir,
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /subscriptions\[0\]\.instrument: "C:ETHUSD" has no data in the market store/);
    assert.match(result.stderr, /`npx hindsight data import` adds files/);
    assert.deepEqual((await openFileBarStore(dir).symbols()).sort(), [
      'C:BTCUSD',
      'F:EURUSD',
      'F:USDJPY',
      'S:SPY',
    ]);
  });

  it('runs a backtest for a strategy process, writes the results and exits 0', async () => {
    const dir = await dataDir();
    const results = join(dir, 'results');
    let strategy: Promise<number | null> | undefined;
    const result = await gateway(
      {
        GATEWAY_PROVIDER: 'simulation',
        GATEWAY_PORT: '0',
        HINDSIGHT_SCENARIO: await scenarioFile(dir),
        HINDSIGHT_DATA_DIR: dir,
        HINDSIGHT_RESULTS_DIR: results,
      },
      (stdout) => {
        const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
        if (!url || strategy) return;
        const child = spawn(process.execPath, ['--import', 'tsx', example], {
          env: {
            PATH: process.env.PATH ?? '',
            PROXY_REST_URL: `${url}/v1`,
            PROXY_WS_URL: `${url.replace('http', 'ws')}/v1/ws`,
            PLATFORM_SUBSCRIPTIONS: JSON.stringify([{ instrument: 'C:BTCUSD', events: ['candle_1m'] }]),
          },
          stdio: 'ignore',
        });
        strategy = new Promise((resolve) => child.on('close', resolve));
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Backtest complete\.\n {2}netPnl: -?\d/);
    assert.match(result.stdout, /totalTrades: \d+/);
    assert.equal(await strategy, 0);
    assert.deepEqual((await readdir(results)).sort(), [
      'metadata.json.zst',
      'metrics.json',
      'timeseries.json.zst',
      'trades.json.zst',
    ]);
  });

  it('drains and exits 0 on SIGTERM', async () => {
    const dir = await dataDir();
    let killed = false;
    const result = await gateway(
      {
        GATEWAY_PROVIDER: 'simulation',
        GATEWAY_PORT: '0',
        HINDSIGHT_SCENARIO: await scenarioFile(dir),
        HINDSIGHT_DATA_DIR: dir,
        RUST_LOG: 'info',
      },
      (stdout, kill) => {
        if (stdout.includes('Events:') && !killed) {
          killed = true;
          kill();
        }
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /shutting down/);
  });

  it('runs the gateway in a child started with --single-threaded (GATEWAY_SINGLE_THREADED=true), which stops when the launcher is killed', {
    timeout: 30_000,
  }, async () => {
    const { child, closed } = await startedGateway('true');
    const launcher = child.pid as number;
    assert.ok(!(await commandLine(launcher)).includes('--single-threaded'));
    const hosting = await hostingProcess(launcher);
    try {
      assert.deepEqual((await commandLine(hosting)).slice(1, 4), ['--single-threaded', bin, 'gateway']);
      child.kill('SIGKILL');
      await closed;
      await gone(hosting); // its IPC channel closed: it drains as on SIGTERM
    } finally {
      try {
        process.kill(hosting, 'SIGKILL'); // only a failed test leaves it running
      } catch {
        // gone (ESRCH): reaped already
      }
    }
  });

  it('relaunched, ends as its gateway ends: SIGTERM drained to 0, a settings error 2, a death by signal that signal', {
    timeout: 60_000,
  }, async () => {
    const drained = await startedGateway('true');
    drained.child.kill('SIGTERM');
    assert.equal(await drained.closed, 0);

    const refused = await gateway({
      GATEWAY_PROVIDER: 'simulation',
      GATEWAY_SINGLE_THREADED: 'true',
      HINDSIGHT_SCENARIO: '/nonexistent/scenario.json',
    });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /^hindsight gateway: .*scenario\.json/);

    const killed = await startedGateway('true');
    const signalled = new Promise((resolve) => killed.child.on('exit', (_code, signal) => resolve(signal)));
    process.kill(await hostingProcess(killed.child.pid as number), 'SIGKILL');
    assert.equal(await signalled, 'SIGKILL');
  });

  it('relaunched, stops at once when its launcher died while it was loading', {
    timeout: 30_000,
  }, async () => {
    const child = spawn(process.execPath, ['--single-threaded', bin, 'gateway'], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: await backtestEnv({ HINDSIGHT_RELAUNCHED: '1' }),
    });
    child.disconnect(); // as a launcher killed before the child has loaded its code
    let stdout = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr?.resume();
    const signal = await new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    assert.equal(signal, 'SIGTERM');
    assert.equal(stdout, '', 'the gateway started without a launcher');
  });

  it('runs the gateway in its own process with GATEWAY_SINGLE_THREADED=false, and refuses other values', async () => {
    const { child, closed } = await startedGateway('false');
    assert.deepEqual(await relaunchedChildren(child.pid as number), []);
    assert.ok(!(await commandLine(child.pid as number)).includes('--single-threaded'));
    child.kill('SIGTERM');
    assert.equal(await closed, 0);

    const refused = await gateway({ GATEWAY_PROVIDER: 'simulation', GATEWAY_SINGLE_THREADED: 'yes' });
    assert.equal(refused.code, 2);
    assert.equal(
      refused.stderr,
      'hindsight gateway: GATEWAY_SINGLE_THREADED: must be auto, true or false, not "yes"\n',
    );
  });
});
