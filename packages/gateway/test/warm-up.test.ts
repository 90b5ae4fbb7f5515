import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import {
  type GatewayOptions,
  type RunningGateway,
  readGatewaySettings,
  SettingsError,
  startGateway,
} from '../src/index.ts';
import { sampleData } from './support/sample-store.ts';
import { StrategyClient } from './support/strategy-client.ts';
import { BTC_SCENARIO, marketOrder } from './support/test-gateway.ts';

/**
 * The JIT warm-up (warm-up.ts): before its strategy connects, a simulation gateway replays the start
 * of its scenario on a throwaway copy of itself. It must leave the real run exactly as it would
 * have been, end as soon as anything reaches the real server, and be off where it was not asked for.
 */
interface Started {
  gateway: RunningGateway;
  resultsDir: string;
  logs: string[];
}

/** The whole January of the BTC sample: more bars than a warm-up can replay in the tests' waits (1 s). */
const MONTH_SCENARIO = {
  ...BTC_SCENARIO,
  startTime: '2024-01-01T00:00:00Z',
  endTime: '2024-02-01T00:00:00Z',
};

async function start(
  env: Record<string, string>,
  options: GatewayOptions = {},
  scenario: unknown = BTC_SCENARIO,
): Promise<Started> {
  const { dataDir, store } = await sampleData();
  const dir = await mkdtemp(join(tmpdir(), 'hindsight-warm-up-'));
  await writeFile(join(dir, 'scenario.json'), JSON.stringify(scenario));
  const resultsDir = join(dir, 'results');
  const settings = readGatewaySettings({
    GATEWAY_PROVIDER: 'simulation',
    GATEWAY_PORT: '0',
    HINDSIGHT_SCENARIO: join(dir, 'scenario.json'),
    HINDSIGHT_DATA_DIR: dataDir,
    HINDSIGHT_RESULTS_DIR: resultsDir,
    RUST_LOG: 'info',
    ...env,
  });
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  const gateway = await startGateway(settings, { store, logDestination, ...options });
  return { gateway, resultsDir, logs };
}

/**
 * A scripted strategy: acknowledges every batch, and at every 7th candle first places a MARKET order
 * over the socket (alternately buying and selling). Returns every frame it received but pings.
 */
async function runScriptedStrategy(url: string): Promise<string[]> {
  const client = await StrategyClient.connect(url);
  let candles = 0;
  let side: 'BUY' | 'SELL' = 'BUY';
  client.socket.on('message', async (data) => {
    const event = JSON.parse(data.toString());
    if (event.type !== 'candle' || event.bar.timeframe !== '1m') return;
    if (++candles % 7 === 0) {
      const answer = await client.request('POST', '/v1/orders', marketOrder(side, '0.01'));
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      side = side === 'BUY' ? 'SELL' : 'BUY';
    }
    client.ack();
  });
  await client.waitFor((e) => e.type === 'candle', 'the first candle');
  client.ack();
  assert.equal(await client.closed, 1000);
  return client.raw.filter((text) => !text.startsWith('{"type":"ping"'));
}

const RESULT_FILES = ['metadata.json.zst', 'timeseries.json.zst', 'trades.json.zst', 'metrics.json'];

async function resultFiles(dir: string): Promise<Buffer[]> {
  return Promise.all(RESULT_FILES.map((name) => readFile(join(dir, name))));
}

async function ordersSubmitted(gateway: RunningGateway): Promise<number> {
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  const line = metrics.split('\n').find((l) => l.startsWith('gateway_orders_submitted_total{'));
  return Number(line?.split(' ').at(-1));
}

describe('JIT warm-up before the strategy connects (warm-up.ts)', () => {
  it('replays a throwaway copy with orders over the socket and HTTP, and leaves the real run byte for byte as without it', async () => {
    const cold = await start({ GATEWAY_WARM_UP: 'false' });
    let coldFrames: string[];
    try {
      assert.equal(await cold.gateway.warmUp, undefined, 'no warm-up when GATEWAY_WARM_UP=false');
      coldFrames = await runScriptedStrategy(cold.gateway.url);
      assert.equal((await cold.gateway.done).outcome.kind, 'completed');
    } finally {
      await cold.gateway.close();
    }

    const warm = await start({}, { warmUpLimits: { maxBars: 200, orderEvery: 5 } });
    try {
      const report = await warm.gateway.warmUp;
      assert.ok(report, 'a simulation gateway warms up by default');
      assert.equal(report.ended, 'bars');
      assert.equal(report.bars, 200);
      assert.equal(
        report.orders,
        39,
        'an order every 5 candles before the 200th, over the socket and over HTTP',
      );
      assert.ok(
        warm.logs.some((line) => line.includes('JIT warm-up done')),
        'the warm-up is logged once it ends',
      );
      // The copy is closed once the warm-up has ended.
      await assert.rejects(fetch(`${report.url}/livez`));
      const warmFrames = await runScriptedStrategy(warm.gateway.url);
      assert.equal((await warm.gateway.done).outcome.kind, 'completed');
      assert.deepEqual(warmFrames, coldFrames, 'the strategy gets the same frames, seq for seq');
      assert.deepEqual(await resultFiles(warm.resultsDir), await resultFiles(cold.resultsDir));
      assert.equal(
        await ordersSubmitted(warm.gateway),
        coldFrames.filter((text) => text.startsWith('{"type":"response"')).length,
        "the real gateway's metrics count the strategy's orders, not the warm-up's",
      );
    } finally {
      await warm.gateway.close();
    }
  });

  it('ends at the first request or upgrade that reaches the real gateway', async () => {
    for (const arrive of [
      (gateway: RunningGateway) => fetch(`${gateway.url}/livez`).then((r) => r.text()),
      (gateway: RunningGateway) => StrategyClient.connect(gateway.url).then((c) => c.close()),
    ]) {
      const t = await start({}, { warmUpLimits: { maxBars: 1_000_000, maxMs: 60_000 } }, MONTH_SCENARIO);
      try {
        // The warm-up replays bars until something arrives.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await arrive(t.gateway);
        const report = await t.gateway.warmUp;
        assert.equal(report?.ended, 'interrupted');
        assert.ok((report?.bars ?? 0) > 0, 'it replayed bars meanwhile');
      } finally {
        await t.gateway.close();
      }
    }
  });

  it('stops after its time budget, and closes the copy', async () => {
    const t = await start({}, { warmUpLimits: { maxBars: 1_000_000, maxMs: 200 } }, MONTH_SCENARIO);
    try {
      const report = await t.gateway.warmUp;
      assert.equal(report?.ended, 'time');
      if (report) await assert.rejects(fetch(`${report.url}/livez`));
    } finally {
      await t.gateway.close();
    }
  });

  it('stops when the gateway closes first, and leaves nothing running', async () => {
    const t = await start({}, { warmUpLimits: { maxBars: 1_000_000, maxMs: 60_000 } });
    await t.gateway.close();
    const report = await t.gateway.warmUp;
    assert.equal(report?.ended, 'interrupted');
    if (report) await assert.rejects(fetch(`${report.url}/livez`));
  });

  it('is off in paper mode, and GATEWAY_WARM_UP takes true or false only', async () => {
    const paper = await start({ GATEWAY_MODE: 'paper' });
    try {
      assert.equal(await paper.gateway.warmUp, undefined, 'paper mode replays in wall-clock time');
    } finally {
      await paper.gateway.close();
    }
    const base = { GATEWAY_PROVIDER: 'simulation', HINDSIGHT_SCENARIO: 'scenario.json' };
    assert.equal(readGatewaySettings(base).warmUp, true);
    assert.equal(readGatewaySettings({ ...base, GATEWAY_WARM_UP: '0' }).warmUp, false);
    assert.throws(
      () => readGatewaySettings({ ...base, GATEWAY_WARM_UP: 'sometimes' }),
      (error: Error) =>
        error instanceof SettingsError && /GATEWAY_WARM_UP.*true or false/.test(error.message),
    );
  });
});
