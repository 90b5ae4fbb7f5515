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
});
