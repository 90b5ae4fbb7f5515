import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ensureZstd, zstdDecompress } from '@hindsight/marketdata';
import { readGatewaySettings, startGateway } from '../src/index.ts';
import { sampleData } from './support/sample-store.ts';

/**
 * End to end: the repository's SMA(10)/SMA(30) crossover example strategies, in Python (Debian's
 * python3 with python3-websockets, installed by .ci/run) and in TypeScript, run as real processes
 * against a real gateway replaying a week of the real BTCUSDT sample. Both must produce the same
 * trades, byte for byte. The Python strategy places its orders over HTTP and the TypeScript one as
 * requests over its WebSocket (docs/gateway.md, "REST over the socket"). The transport may change
 * nothing but time.
 */
const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));
const PYTHON =
  process.env.HINDSIGHT_TEST_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
const SUBSCRIPTIONS = [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }];
const SCENARIO = {
  subscriptions: SUBSCRIPTIONS,
  startTime: '2024-01-02T00:00:00Z',
  endTime: '2024-01-09T00:00:00Z',
  costs: {
    commission: { model: 'bps_of_notional', fee_rate_bps: '1' },
    slippage: { base_slippage_bps: '0.5', size_impact_bps_per_100k: '0.1', max_slippage_bps: '5' },
  },
};

interface StrategyRun {
  trades: Buffer;
  metrics: Record<string, unknown>;
  exitCode: number | null;
  output: string;
}

async function runStrategy(command: string, args: string[]): Promise<StrategyRun> {
  const { dataDir, store } = await sampleData();
  const dir = await mkdtemp(join(tmpdir(), 'hindsight-e2e-'));
  await writeFile(join(dir, 'scenario.json'), JSON.stringify(SCENARIO));
  const settings = readGatewaySettings({
    GATEWAY_PROVIDER: 'simulation',
    GATEWAY_PORT: '0',
    GATEWAY_API_KEY: 'e2e-key',
    HINDSIGHT_SCENARIO: join(dir, 'scenario.json'),
    HINDSIGHT_DATA_DIR: dataDir,
    HINDSIGHT_RESULTS_DIR: join(dir, 'results'),
    RUST_LOG: 'warn',
  });
  const silent = new Writable({ write: (_c, _e, done) => done() });
  const gateway = await startGateway(settings, { store, logDestination: silent });
  let output = '';
  try {
    const child = spawn(command, args, {
      env: {
        PATH: process.env.PATH ?? '',
        PROXY_REST_URL: `${gateway.url}/v1`,
        PROXY_WS_URL: `${gateway.url.replace(/^http/, 'ws')}/v1/ws`,
        PLATFORM_GATEWAY_API_KEY: 'e2e-key',
        PLATFORM_SUBSCRIPTIONS: JSON.stringify(SUBSCRIPTIONS),
      },
    });
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    const end = await gateway.done;
    assert.equal(end.outcome.kind, 'completed', output.slice(-2000));
    await ensureZstd();
    const trades = Buffer.from(zstdDecompress(await readFile(join(dir, 'results', 'trades.json.zst'))));
    const metrics = JSON.parse(await readFile(join(dir, 'results', 'metrics.json'), 'utf8'));
    return { trades, metrics, exitCode, output };
  } finally {
    await gateway.close();
  }
}

describe('SMA crossover strategies through the gateway', () => {
  it('trades identically in Python and in TypeScript', async () => {
    const python = await runStrategy(PYTHON, [join(EXAMPLES, 'sma-crossover-python', 'main.py')]);
    assert.equal(
      python.exitCode,
      0,
      `the Python strategy failed (it needs python3-websockets):\n${python.output.slice(-2000)}`,
    );
    const typescript = await runStrategy(process.execPath, [
      '--import',
      'tsx',
      join(EXAMPLES, 'sma-crossover-typescript', 'main.ts'),
    ]);
    assert.equal(typescript.exitCode, 0, typescript.output.slice(-2000));
    const lots = JSON.parse(python.trades.toString()).trades as { state: string }[];
    assert.ok(lots.length > 50, `the crossover traded (${lots.length} lots)`);
    assert.ok(lots.some((lot) => lot.state === 'Closed'));
    assert.ok(python.trades.equals(typescript.trades), 'the same trades file, byte for byte');
    assert.deepEqual(python.metrics, typescript.metrics);
  });
});
