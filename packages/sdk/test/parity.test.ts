import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkScenario, compressResultFiles } from '@hindsight/gateway';
import { sampleData } from '../../gateway/test/support/sample-store.ts';
import { startTestGateway } from '../../gateway/test/support/test-gateway.ts';
import { runInProcess } from '../src/in-process/index.ts';
import { strategyOf } from '../src/strategy.ts';

/**
 * The same strategy, in-process and over the wire against a real gateway, gives byte-identical
 * result files (docs/sdk.md).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const WIRE_MAIN = fileURLToPath(new URL('../src/wire/main.ts', import.meta.url));

async function overWire(strategyFile: string, scenario: unknown) {
  const { gateway } = await startTestGateway({ scenario, writeResults: false });
  const url = new URL(gateway.url);
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', WIRE_MAIN, strategyFile], {
    cwd: ROOT,
    env: { ...process.env, PROXY_WS_URL: `ws://${url.host}/v1/ws`, PROXY_REST_URL: `${gateway.url}/v1` },
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

async function inProcess(strategyFile: string, scenario: unknown) {
  const { store } = await sampleData();
  const checked = await checkScenario('scenario', scenario, store);
  const strategy = strategyOf(await import(`${ROOT}${strategyFile}`), strategyFile);
  const end = await runInProcess(strategy, { scenario: checked, store });
  assert.equal(end.outcome.kind, 'completed', JSON.stringify(end.outcome));
  return end.files as NonNullable<typeof end.files>;
}

const SMA_SCENARIO = {
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
  startTime: '2024-01-02T00:00:00Z',
  endTime: '2024-01-05T00:00:00Z',
  costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '1' } },
};

test('the SMA crossover: byte-identical result files in-process and over the wire', async () => {
  const file = 'examples/sma-crossover-typescript/strategy.ts';
  const local = await inProcess(file, SMA_SCENARIO);
  const wire = await overWire(file, SMA_SCENARIO);
  assert.ok(local.metrics.totalTrades > 50, `${local.metrics.totalTrades} trades`);
  const [a, b] = await Promise.all([compressResultFiles(local), compressResultFiles(wire)]);
  for (const name of Object.keys(a) as (keyof typeof a)[]) {
    assert.ok(
      Buffer.from(a[name] as Uint8Array).equals(Buffer.from(b[name] as Uint8Array)),
      `${name} differs`,
    );
  }
});
