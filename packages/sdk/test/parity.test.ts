import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ResultFiles } from '@hindsight/engine';
import { checkScenario, compressResultFiles } from '@hindsight/gateway';
import { type BarStore, openFileBarStore } from '@hindsight/marketdata';
import { importFiles } from '@hindsight/marketdata/import';
import { SAMPLE_DIR, type SampleSymbol, sampleData } from '../../gateway/test/support/sample-store.ts';
import { startTestGateway } from '../../gateway/test/support/test-gateway.ts';
import { runInProcess } from '../src/in-process/index.ts';
import { strategyOf } from '../src/strategy.ts';

/**
 * The same strategy, in-process and over the wire against a real gateway, gives byte-identical
 * result files (docs/sdk.md).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WIRE_MAIN = fileURLToPath(new URL('../src/wire/main.ts', import.meta.url));

/** Debian's python3, which has python3-websockets (prepare-test-host installs it). */
const PYTHON =
  process.env.HINDSIGHT_TEST_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

async function overWire(strategyFile: string, scenario: unknown, store: BarStore) {
  const command = strategyFile.endsWith('.py')
    ? [PYTHON, strategyFile]
    : [process.execPath, '--conditions=source', '--import', 'tsx', WIRE_MAIN, strategyFile];
  const { gateway } = await startTestGateway({ scenario, writeResults: false, store });
  const url = new URL(gateway.url);
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: ROOT,
    env: {
      ...process.env,
      PYTHONPATH: join(ROOT, 'sdk/python'),
      PROXY_WS_URL: `ws://${url.host}/v1/ws`,
      PROXY_REST_URL: `${gateway.url}/v1`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const end = await gateway.done;
  const code = await exit;
  await gateway.close();
  assert.equal(code, 0, stderr);
  assert.equal(end.outcome.kind, 'completed', JSON.stringify(end.outcome));
  return end.files as NonNullable<typeof end.files>;
}

async function inProcess(strategyFile: string, scenario: unknown, store: BarStore) {
  const checked = await checkScenario('scenario', scenario, store);
  const strategy = strategyOf(await import(`${ROOT}${strategyFile}`), strategyFile);
  const end = await runInProcess(strategy, { scenario: checked, store });
  assert.equal(end.outcome.kind, 'completed', JSON.stringify(end.outcome));
  return end.files as NonNullable<typeof end.files>;
}

/** EURUSD hourly (2007-2018) and USDJPY by the minute (February 2013): two pairs over one window. */
async function fxStore(): Promise<BarStore> {
  const store = openFileBarStore(await mkdtemp(join(tmpdir(), 'hindsight-fx-')));
  const files = [
    ['F:EURUSD', 'forex/oanda_EURUSD_1h_bidask_2007-2018.csv.zst'],
    ['F:USDJPY', 'forex/fxcm_USDJPY_1m_bidask_2013-02.csv.zst'],
  ] as const;
  for (const [symbol, file] of files) {
    const imported = await importFiles('forex-sample', [join(SAMPLE_DIR, file)], { symbol });
    await store.writeBars(symbol, imported.bars);
  }
  return store;
}

/** Asserts two runs' result files are the same bytes, as the platform stores them. */
async function assertSameFiles(a: ResultFiles, b: ResultFiles, label: string) {
  const [x, y] = await Promise.all([compressResultFiles(a), compressResultFiles(b)]);
  for (const name of Object.keys(x) as (keyof typeof x)[]) {
    assert.ok(
      Buffer.from(x[name] as Uint8Array).equals(Buffer.from(y[name] as Uint8Array)),
      `${label}: ${name} differs`,
    );
  }
}

/** Runs the example both ways and compares the result files byte for byte; returns the metrics. */
async function parity(example: string, scenario: unknown, data: SampleSymbol[] | BarStore) {
  const file = `examples/${example}/strategy.ts`;
  const store = Array.isArray(data) ? (await sampleData(data)).store : data;
  const local = await inProcess(file, scenario, store);
  const wire = await overWire(file, scenario, store);
  await assertSameFiles(local, wire, example);
  return local;
}

test('an SMA crossover: the same files in-process and over the wire', async () => {
  const files = await parity(
    'sma-crossover-typescript',
    {
      subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
      startTime: '2024-01-02T00:00:00Z',
      endTime: '2024-01-05T00:00:00Z',
      costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '1' } },
    },
    ['C:BTCUSD'],
  );
  assert.ok(files.metrics.totalTrades > 50, `${files.metrics.totalTrades} trades`);
});

test('RSI with brackets (exit legs that cancel each other): the same files both ways', async () => {
  const files = await parity(
    'rsi-brackets-typescript',
    {
      subscriptions: [{ instrument: 'F:EURUSD', events: ['candle_15m', 'order_update', 'position_update'] }],
      startTime: '2014-05-01T00:00:00Z',
      endTime: '2014-05-15T00:00:00Z',
    },
    ['F:EURUSD'],
  );
  // Every exit is a leg: take-profits win, stop-losses lose.
  const { winningTrades, losingTrades } = files.metrics;
  assert.ok(winningTrades > 0 && losingTrades > 0, `${winningTrades} won, ${losingTrades} lost`);
  const closed = files.trades.trades.filter((lot) => lot.state === 'Closed');
  assert.ok(closed.every((lot) => lot.closed_by_order_id !== lot.opened_by_order_id));
});

test('momentum on two FX pairs paying funding: the same files both ways', async () => {
  const store = await fxStore();
  const scenario = {
    subscriptions: [
      { instrument: 'F:EURUSD', events: ['candle_1h', 'order_update'] },
      { instrument: 'F:USDJPY', events: ['candle_1h', 'order_update'] },
    ],
    startTime: '2013-02-04T00:00:00Z',
    endTime: '2013-02-23T00:00:00Z',
  };
  const funding = { funding: { model: 'daily', long_rate: '-0.02', short_rate: '-0.01' } };
  const files = await parity('fx-momentum-typescript', { ...scenario, costs: funding }, store);
  const symbols = new Set(files.trades.trades.map((lot) => lot.instrument_symbol));
  assert.deepEqual([...symbols].sort(), ['F:EURUSD', 'F:USDJPY']);
  // The same trades without funding end on another balance: the positions paid for their nights.
  const free = await inProcess('examples/fx-momentum-typescript/strategy.ts', scenario, store);
  assert.equal(free.metrics.totalTrades, files.metrics.totalTrades);
  assert.ok(
    Number(free.metadata.finalBalance) > Number(files.metadata.finalBalance),
    `${free.metadata.finalBalance} without funding, ${files.metadata.finalBalance} with`,
  );
});

test('hedging: a long and a short at once, closed by position id: the same files both ways', async () => {
  const files = await parity(
    'hedging-typescript',
    {
      subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
      startTime: '2024-01-02T00:00:00Z',
      endTime: '2024-01-03T00:00:00Z',
      positionMode: 'hedging',
    },
    ['C:BTCUSD'],
  );
  const lots = files.trades.trades;
  const overlapping = lots.some((a) =>
    lots.some(
      (b) =>
        a.direction === 'Long' &&
        b.direction === 'Short' &&
        b.opened_at < (a.closed_at ?? Number.POSITIVE_INFINITY) &&
        a.opened_at < (b.closed_at ?? Number.POSITIVE_INFINITY),
    ),
  );
  assert.ok(overlapping, 'a long and a short were open at the same time');
});

test('the Python SDK example over the wire gives the TypeScript example’s files, byte for byte', async () => {
  const scenario = {
    subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
    startTime: '2024-01-02T00:00:00Z',
    endTime: '2024-01-04T00:00:00Z',
    costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '1' } },
  };
  const { store } = await sampleData(['C:BTCUSD']);
  const typescript = await inProcess('examples/sma-crossover-typescript/strategy.ts', scenario, store);
  const python = await overWire('examples/sma-crossover-python/strategy.py', scenario, store);
  assert.ok(typescript.metrics.totalTrades > 20, `${typescript.metrics.totalTrades} trades`);
  await assertSameFiles(typescript, python, 'Python against TypeScript');
});
