import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec } from '@hindsight/core';
import { computeMetrics, type TradeLot } from '@hindsight/engine';
import { ensureZstd, zstdDecompress } from '@hindsight/marketdata';
import type { ApiResponse } from './support/api-client.ts';
import {
  NEVER_ACKS,
  pushPythonExample,
  pushPythonScript,
  pushTypeScriptExampleWithSkopeo,
  SLOW_ACKS,
} from './support/scenario-images.ts';
import { storageBackends } from './support/storage-backends.ts';
import { type Account, type TestPlatform, withTestPlatform } from './support/test-platform.ts';

/**
 * Scenarios that really run: strategies pushed as images (with the platform's builder and with
 * skopeo), claimed by the in-process worker, run by the local executor against their own embedded
 * gateway, then read back through the API. Failure paths use small strategies that crash, never
 * connect or never acknowledge.
 */
const window = { startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-03T00:00:00Z' };
const btc = [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }];
const TERMINAL = new Set(['COMPLETE', 'FAILED', 'CANCELLED']);
const scenariosOf = (strategyId: string) => `/v1/strategies/${strategyId}/scenarios`;

interface Run {
  owner: Account;
  strategyId: string;
}

async function newStrategy(t: TestPlatform, label: string): Promise<Run> {
  const owner = await t.account(label);
  const strategyId = (await t.api.post('/v1/strategies', { key: owner.key, body: { name: label } })).body.data
    .strategyId;
  return { owner, strategyId };
}

async function waitFor(
  t: TestPlatform,
  key: string,
  id: string,
  done: (scenario: { state: string }) => boolean,
  timeoutMs = 300_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const scenario = (await t.api.get(`/v1/scenarios/${id}`, { key })).body.data;
    if (done(scenario)) return scenario;
    if (Date.now() > deadline) throw new Error(`scenario ${id} still ${scenario.state}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const finished = (t: TestPlatform, key: string, id: string) =>
  waitFor(t, key, id, (s) => TERMINAL.has(s.state));

async function create(t: TestPlatform, run: Run, versionId: string, extra: Record<string, unknown> = {}) {
  const created = await t.api.post(scenariosOf(run.strategyId), {
    key: run.owner.key,
    body: { strategyVersionId: versionId, subscriptions: btc, ...window, ...extra },
  });
  assert.equal(created.status, 201, created.text);
  return created.body.data.scenarioId as string;
}

async function download(t: TestPlatform, run: Run, id: string, file: string): Promise<Buffer> {
  // Through the contract-checking client once, for the status; then the bytes.
  const checked = await t.api.get(`${scenariosOf(run.strategyId)}/${id}/${file}`, { key: run.owner.key });
  assert.equal(checked.status, 200);
  const response = await fetch(`${t.api.baseUrl}${scenariosOf(run.strategyId)}/${id}/${file}`, {
    headers: { 'x-api-key': run.owner.key },
  });
  assert.equal(response.status, 200, `${file}: ${response.status}`);
  assert.equal(response.headers.get('content-type'), 'application/octet-stream');
  await ensureZstd();
  return Buffer.from(zstdDecompress(new Uint8Array(await response.arrayBuffer())));
}

const json = (bytes: Buffer) => JSON.parse(bytes.toString('utf8'));
const strategyLogs = async (t: TestPlatform, run: Run, id: string, stream: string): Promise<ApiResponse> =>
  t.api.get(`${scenariosOf(run.strategyId)}/${id}/logs`, { key: run.owner.key, query: { stream } });

for (const backend of storageBackends().slice(0, 1)) {
  describe(`scenario runs (${backend.name})`, () => {
    const t = withTestPlatform(backend, {
      settings: { workers: '2', leaseSeconds: '3', connectTimeoutSeconds: '15', stallTimeoutSeconds: '4' },
      platform: { runLimits: { exitGraceMs: 3000 } },
    });
    const python: { run?: Run; id?: string; files?: Record<'metadata' | 'timeseries' | 'trades', Buffer> } =
      {};

    it('runs the Python starter pushed with the platform builder to COMPLETE, with files that agree with its metrics', async () => {
      const run = await newStrategy(t.get(), 'python');
      const version = await pushPythonExample(t.get().api, run.owner.key, run.strategyId);
      const id = await create(t.get(), run, version.data.versionId, {
        costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '2.5' } },
      });
      const scenario = await finished(t.get(), run.owner.key, id);
      assert.equal(scenario.state, 'COMPLETE', JSON.stringify(scenario));
      assert.ok(scenario.startedAt && scenario.runningAt && scenario.finishedAt);
      assert.equal(scenario.manifest.imageDigest, version.data.imageDigest ?? scenario.manifest.imageDigest);
      assert.match(scenario.manifest.dataFingerprint, /^sha256:[0-9a-f]{64}$/);
      assert.deepEqual(scenario.manifest.configuration.subscriptions, btc);

      const files = {
        metadata: await download(t.get(), run, id, 'metadata'),
        timeseries: await download(t.get(), run, id, 'timeseries'),
        trades: await download(t.get(), run, id, 'trades'),
      };
      python.run = run;
      python.id = id;
      python.files = files;
      const timeseries = json(files.timeseries);
      const { trades } = json(files.trades) as { trades: TradeLot[] };
      assert.ok(trades.length > 10, `the SMA crossover traded (${trades.length} lots)`);
      assert.deepEqual(
        trades.map((lot) => lot.id),
        trades.map((lot) => lot.id).sort(),
        'trades sorted by id',
      );
      const metricsResponse = await t
        .get()
        .api.get(`${scenariosOf(run.strategyId)}/${id}/metrics`, { key: run.owner.key });
      assert.equal(metricsResponse.status, 200);
      const recomputed = computeMetrics({
        timestamps: timeseries.timestamps,
        nav: timeseries.nav,
        trades,
        initialCapital: '100000',
        startTime: Date.parse(window.startTime),
        endTime: Date.parse(window.endTime),
        allCrypto: true,
      });
      assert.deepEqual(metricsResponse.body.data, JSON.parse(JSON.stringify(recomputed)));
      // The books reconcile exactly: the last balance is the capital plus realized P&L minus commissions.
      const sum = (values: (string | undefined)[]) =>
        values.reduce((acc, v) => acc.plus(v ?? '0'), new Dec(0));
      const realized = sum(trades.map((lot) => lot.realized_pnl));
      const fees = sum(trades.flatMap((lot) => [lot.entry_commission, lot.exit_commission]));
      assert.ok(fees.gt(0), 'commissions were charged');
      assert.ok(
        new Dec(timeseries.units.at(-1)).eq(new Dec('100000').plus(realized).minus(fees)),
        'balance = capital + realized P&L - commissions, to the last digit',
      );
      assert.ok(new Dec(metricsResponse.body.data.totalCommission).eq(fees));
      const stdout = await strategyLogs(t.get(), run, id, 'stdout');
      assert.equal(stdout.status, 200);
      assert.match(stdout.text, /trading C:BTCUSD/, 'the strategy’s own log lines are kept');
      assert.equal(stdout.headers.get('x-hindsight-output-bytes'), String(Buffer.byteLength(stdout.text)));
    });

    it('gives byte-identical results for a run with an equal manifest, and the same trades from the TypeScript starter pushed with skopeo', async () => {
      assert.ok(python.run && python.id && python.files, 'the Python run completed first');
      const run = python.run;
      const reference = python.files;
      const first = (await t.get().api.get(`/v1/scenarios/${python.id}`, { key: run.owner.key })).body.data;
      const again = await create(t.get(), run, first.strategyVersionId, {
        costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '2.5' } },
      });
      const tsStrategy = await newStrategy(t.get(), 'typescript');
      const tsVersion = await pushTypeScriptExampleWithSkopeo(
        t.get().api,
        tsStrategy.owner.key,
        tsStrategy.strategyId,
      );
      const tsId = await create(t.get(), tsStrategy, tsVersion.data.versionId, {
        costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '2.5' } },
      });
      const repeated = await finished(t.get(), run.owner.key, again);
      assert.equal(repeated.state, 'COMPLETE', JSON.stringify(repeated));
      assert.deepEqual(repeated.manifest, first.manifest, 'equal manifests');
      for (const file of ['metadata', 'timeseries', 'trades'] as const) {
        const bytes = await download(t.get(), run, again, file);
        assert.ok(bytes.equals(reference[file]), `${file} is byte-identical`);
      }
      const ts = await finished(t.get(), tsStrategy.owner.key, tsId);
      assert.equal(ts.state, 'COMPLETE', JSON.stringify(ts));
      assert.notEqual(ts.manifest.imageDigest, first.manifest.imageDigest);
      assert.equal(ts.manifest.dataFingerprint, first.manifest.dataFingerprint);
      const tsTrades = await download(t.get(), tsStrategy, tsId, 'trades');
      assert.ok(tsTrades.equals(reference.trades), 'the TypeScript and Python starters make the same trades');
    });

    it('compares completed scenarios: metrics side by side and equity curves on one axis', async () => {
      assert.ok(python.run && python.id);
      const run = python.run;
      const other = await create(
        t.get(),
        run,
        (await t.get().api.get(`/v1/scenarios/${python.id}`, { key: run.owner.key })).body.data
          .strategyVersionId,
        {
          startTime: '2024-01-02T12:00:00Z',
          endTime: '2024-01-03T06:00:00Z',
          initialCapital: 50000,
        },
      );
      assert.equal((await finished(t.get(), run.owner.key, other)).state, 'COMPLETE');
      const response = await t.get().api.post('/v1/scenarios/compare', {
        key: run.owner.key,
        body: { scenarioIds: [other, python.id] },
      });
      assert.equal(response.status, 200, response.text);
      const { scenarios, equity } = response.body.data;
      assert.deepEqual(
        scenarios.map((s: { scenarioId: string }) => s.scenarioId),
        [other, python.id],
      );
      assert.equal(typeof scenarios[0].metrics.totalTrades, 'number');
      const axis = equity.timestamps as number[];
      assert.deepEqual(
        axis,
        [...axis].sort((a, b) => a - b),
      );
      assert.equal(equity.nav[other].length, axis.length);
      assert.equal(equity.nav[python.id].length, axis.length);
      assert.equal(equity.nav[other][0], '50000', 'before its window a run holds its initial capital');
      const pythonSeries = json(python.files?.timeseries as Buffer);
      assert.equal(equity.nav[python.id].at(-1), pythonSeries.nav.at(-1));
    });

    it('fails a crashing strategy as a strategy error and keeps its stderr', async () => {
      const run = await newStrategy(t.get(), 'crash');
      const version = await pushPythonScript(
        t.get().api,
        run.owner.key,
        run.strategyId,
        'import sys\nprint("starting", flush=True)\nsys.stderr.write("ValueError: FAST must be below SLOW\\n")\nsys.exit(3)\n',
      );
      const id = await create(t.get(), run, version.data.versionId);
      const scenario = await finished(t.get(), run.owner.key, id);
      assert.equal(scenario.state, 'FAILED');
      assert.equal(scenario.errorType, 'strategy');
      assert.match(scenario.errorMessage, /exited with code 3/);
      assert.match(scenario.errorMessage, /FAST must be below SLOW/);
      assert.match((await strategyLogs(t.get(), run, id, 'stderr')).text, /ValueError/);
      assert.equal((await strategyLogs(t.get(), run, id, 'stdout')).text, 'starting\n');
      const files = await t
        .get()
        .api.get(`${scenariosOf(run.strategyId)}/${id}/trades`, { key: run.owner.key });
      assert.equal(files.status, 400, 'a FAILED scenario has no results');
    });

    it('fails a strategy that never connects, and one that stops acknowledging, as strategy errors', async () => {
      const run = await newStrategy(t.get(), 'silent');
      const sleeper = await pushPythonScript(
        t.get().api,
        run.owner.key,
        run.strategyId,
        'import time\ntime.sleep(600)\n',
      );
      const staller = await pushPythonScript(t.get().api, run.owner.key, run.strategyId, NEVER_ACKS);
      const [silent, stalled] = [
        await create(t.get(), run, sleeper.data.versionId),
        await create(t.get(), run, staller.data.versionId),
      ];
      const never = await finished(t.get(), run.owner.key, silent);
      assert.equal(never.state, 'FAILED');
      assert.equal(never.errorType, 'strategy');
      assert.match(never.errorMessage, /did not connect/);
      const stall = await finished(t.get(), run.owner.key, stalled);
      assert.equal(stall.state, 'FAILED');
      assert.equal(stall.errorType, 'strategy');
      assert.ok(stall.runningAt, 'it had connected (RUNNING) before it stalled');
      assert.match(stall.errorMessage, /acknowledg|stall/i);
    });

    it('cancels a RUNNING scenario: the strategy and the simulation stop and the worker is free again', async () => {
      const run = await newStrategy(t.get(), 'cancel-running');
      const version = await pushPythonScript(t.get().api, run.owner.key, run.strategyId, SLOW_ACKS);
      const id = await create(t.get(), run, version.data.versionId, {
        startTime: '2024-01-01T00:00:00Z',
        endTime: '2024-02-01T00:00:00Z',
      });
      await waitFor(t.get(), run.owner.key, id, (s) => s.state === 'RUNNING' || TERMINAL.has(s.state));
      const worker = t.get().platform.worker;
      assert.ok(worker);
      assert.equal(worker.active, 1);
      const cancelled = await t
        .get()
        .api.post(`${scenariosOf(run.strategyId)}/${id}/cancel`, { key: run.owner.key });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.data.state, 'CANCELLED');
      const deadline = Date.now() + 60_000;
      while (worker.active > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(worker.active, 0, 'the run was stopped');
      const after = (await t.get().api.get(`/v1/scenarios/${id}`, { key: run.owner.key })).body.data;
      assert.equal(after.state, 'CANCELLED', 'the cancel is final: the stopped run recorded nothing over it');
      assert.equal(
        (await t.get().api.post(`${scenariosOf(run.strategyId)}/${id}/cancel`, { key: run.owner.key }))
          .status,
        400,
      );
    });

    it('reaches the result download statuses', () => {
      const { api } = t.get();
      const scoped = '/v1/strategies/{strategy_id}/scenarios/{scenario_id}';
      for (const file of ['metadata', 'timeseries', 'trades', 'metrics']) {
        api.assertStatusesReached(`GET ${scoped}/${file}`, [200]);
      }
      api.assertStatusesReached(`GET ${scoped}/trades`, [400]);
      api.assertStatusesReached('POST /v1/scenarios/compare', [200]);
    });
  });
}
