import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildServer, readSettings } from '@hindsight/platform';
import { connectedPython, pushPythonExample, pushPythonScript } from './support/scenario-images.ts';
import { storageBackends } from './support/storage-backends.ts';
import { type Account, startTestPlatform, type TestPlatform } from './support/test-platform.ts';

/**
 * The operations endpoints of a real platform with a worker: the probes, and /metrics scraped before
 * and after two short runs (one COMPLETE, one FAILED by its strategy after it connected), then the
 * probes again with the worker stopped and with the database closed.
 */
const window = { startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-02T12:00:00Z' };
const btc = [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }];
const TERMINAL = new Set(['COMPLETE', 'FAILED', 'CANCELLED']);
/**
 * Connects (so the run is RUNNING), then exits before the backtest ends: a strategy failure. At once,
 * without closing its socket (a clean close waits out the websockets library's close timeout).
 */
const EXITS_AFTER_CONNECTING = connectedPython(`    await asyncio.sleep(0.3)
    os._exit(3)`);

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition (the subset prom-client writes: no timestamps). */
function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key as string] = value as string;
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the one series named `name` with exactly `labels` (undefined when absent). */
function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted)
    ?.value;
}

for (const backend of storageBackends().slice(0, 1)) {
  describe(`operations endpoints (${backend.name})`, () => {
    let t: TestPlatform;
    let owner: Account;
    let strategyId: string;
    let closed = false;

    before(async () => {
      t = await startTestPlatform(backend, {
        settings: { workers: '1', leaseSeconds: '3', connectTimeoutSeconds: '15' },
        platform: { runLimits: { exitGraceMs: 3000 } },
      });
      owner = await t.account('operator');
      strategyId = (await t.api.post('/v1/strategies', { key: owner.key, body: { name: 'ops' } })).body.data
        .strategyId;
    });

    after(async () => {
      // The test closes the database itself; the rest of the platform is closed here.
      if (closed) await t.platform.app.close();
      else await t.platform.close();
      await t.store.dispose();
    });

    const get = (path: string) => fetch(`${t.platform.url}${path}`);
    const scrape = async () => {
      const response = await get('/metrics');
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      return parseMetrics(await response.text());
    };
    /** Scrapes until `done` holds: a run's counters move just after its row is written. */
    const scrapeUntil = async (done: (samples: Sample[]) => boolean) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const samples = await scrape();
        if (done(samples) || Date.now() > deadline) return samples;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const finished = async (id: string) => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const scenario = (await t.api.get(`/v1/scenarios/${id}`, { key: owner.key })).body.data;
        if (TERMINAL.has(scenario.state)) return scenario;
        assert.ok(Date.now() < deadline, `scenario ${id} still ${scenario.state}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };

    it('answers /livez and /readyz, outside /v1 and the OpenAPI document, without credentials', async () => {
      const live = await get('/livez');
      assert.equal(live.status, 200);
      assert.deepEqual(await live.json(), { status: 'ok' });
      const ready = await get('/readyz');
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { ready: true, checks: { database: 'ok', worker: 'ok' } });
      const document = (await (await get('/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
      for (const path of ['/livez', '/readyz', '/metrics']) assert.ok(!(path in document.paths), path);
    });

    it('serves no /metrics with HINDSIGHT_METRICS=off, and checks no worker where none runs', async () => {
      assert.equal(readSettings({}).metrics, true);
      assert.equal(readSettings({ HINDSIGHT_METRICS: 'off' }).metrics, false);
      // What startPlatform builds for that setting and HINDSIGHT_WORKERS=0: no operations beyond the probes.
      const bare = await buildServer(t.platform.ctx, { logLevel: 'silent' });
      try {
        assert.equal((await bare.inject({ url: '/metrics' })).statusCode, 404);
        const ready = await bare.inject({ url: '/readyz' });
        assert.equal(ready.statusCode, 200);
        assert.deepEqual(ready.json(), { ready: true, checks: { database: 'ok' } });
      } finally {
        await bare.close();
      }
    });

    it('counts runs by outcome and errorType, their durations, and the queue', async () => {
      const before = await scrape();
      assert.equal(sampleValue(before, 'hindsight_database_up'), 1);
      assert.equal(sampleValue(before, 'hindsight_workers_alive'), 1, "this process's worker");
      for (const state of ['QUEUED', 'PENDING', 'RUNNING'])
        assert.equal(sampleValue(before, 'hindsight_scenario_queue_depth', { state }), 0, state);
      assert.equal(sampleValue(before, 'hindsight_scenario_runs_started_total'), 0);
      assert.equal(
        sampleValue(before, 'hindsight_scenario_runs_failed_total', { error_type: 'strategy' }),
        0,
      );
      assert.equal(
        sampleValue(before, 'hindsight_scenario_runs_failed_total', { error_type: 'platform' }),
        0,
      );
      assert.ok(
        sampleValue(before, 'process_cpu_user_seconds_total') !== undefined,
        'default process metrics',
      );
      assert.ok(sampleValue(before, 'nodejs_eventloop_lag_seconds') !== undefined);
      assert.equal(before.find((s) => s.name === 'hindsight_platform_info')?.value, 1);

      const good = await pushPythonExample(t.api, owner.key, strategyId);
      const bad = await pushPythonScript(t.api, owner.key, strategyId, EXITS_AFTER_CONNECTING);
      const ids: string[] = [];
      for (const version of [good, bad]) {
        const created = await t.api.post(`/v1/strategies/${strategyId}/scenarios`, {
          key: owner.key,
          body: { strategyVersionId: version.data.versionId, subscriptions: btc, ...window },
        });
        assert.equal(created.status, 201, created.text);
        ids.push(created.body.data.scenarioId);
      }
      // One worker slot: while the first runs, the second waits; both are in the queue's states.
      const during = await scrape();
      const depth = (state: string) => sampleValue(during, 'hindsight_scenario_queue_depth', { state }) ?? 0;
      assert.equal(depth('QUEUED') + depth('PENDING') + depth('RUNNING'), 2);
      assert.ok(depth('QUEUED') >= 1, 'the second waits for the one slot');

      const [complete, failed] = [await finished(ids[0] as string), await finished(ids[1] as string)];
      assert.equal(complete.state, 'COMPLETE', JSON.stringify(complete));
      assert.equal(failed.state, 'FAILED', JSON.stringify(failed));
      assert.equal(failed.errorType, 'strategy');
      assert.ok(failed.runningAt, 'it connected before it failed');

      const afterRuns = await scrapeUntil(
        (s) =>
          sampleValue(s, 'hindsight_scenario_runs_completed_total') === 1 &&
          sampleValue(s, 'hindsight_scenario_runs_failed_total', { error_type: 'strategy' }) === 1,
      );
      assert.equal(sampleValue(afterRuns, 'hindsight_scenario_runs_started_total'), 2);
      assert.equal(sampleValue(afterRuns, 'hindsight_scenario_runs_completed_total'), 1);
      assert.equal(
        sampleValue(afterRuns, 'hindsight_scenario_runs_failed_total', { error_type: 'strategy' }),
        1,
      );
      assert.equal(
        sampleValue(afterRuns, 'hindsight_scenario_runs_failed_total', { error_type: 'platform' }),
        0,
      );
      assert.equal(sampleValue(afterRuns, 'hindsight_scenario_runs_stopped_total'), 0);
      assert.equal(sampleValue(afterRuns, 'hindsight_scenario_queue_wait_seconds_count'), 2);
      const runCount = (outcome: string) =>
        sampleValue(afterRuns, 'hindsight_scenario_run_duration_seconds_count', { outcome });
      assert.equal(runCount('complete'), 1);
      assert.equal(runCount('failed'), 1);
      const runSeconds = sampleValue(afterRuns, 'hindsight_scenario_run_duration_seconds_sum', {
        outcome: 'complete',
      });
      const wall = (Date.parse(complete.finishedAt) - Date.parse(complete.runningAt)) / 1000;
      assert.ok(runSeconds !== undefined && Math.abs(runSeconds - wall) < 1, `${runSeconds} s ~ ${wall} s`);
      // The second waited for the first run to end, so its wait is most of the total.
      const waited = sampleValue(afterRuns, 'hindsight_scenario_queue_wait_seconds_sum') ?? 0;
      assert.ok(waited >= wall * 0.5, `queue wait ${waited} s, the first run ${wall} s`);
      for (const state of ['QUEUED', 'PENDING', 'RUNNING'])
        assert.equal(sampleValue(afterRuns, 'hindsight_scenario_queue_depth', { state }), 0, state);
      assert.equal(sampleValue(afterRuns, 'hindsight_worker_active_runs'), 0);
    });

    it('is not ready once its worker stopped, or its database is gone, yet still live', async () => {
      await t.platform.worker?.stop();
      const noWorker = await get('/readyz');
      assert.equal(noWorker.status, 503);
      assert.deepEqual(await noWorker.json(), {
        ready: false,
        checks: { database: 'ok', worker: 'stopped' },
      });

      closed = true;
      await t.platform.database.close();
      const noDatabase = await get('/readyz');
      assert.equal(noDatabase.status, 503);
      const body = (await noDatabase.json()) as { checks: { database: string } };
      assert.notEqual(body.checks.database, 'ok');
      assert.equal((await get('/livez')).status, 200);
      const samples = await scrape();
      assert.equal(sampleValue(samples, 'hindsight_database_up'), 0);
      assert.equal(sampleValue(samples, 'hindsight_scenario_queue_depth', { state: 'QUEUED' }), undefined);
      assert.ok(Number.isNaN(sampleValue(samples, 'hindsight_workers_alive')));
      assert.equal(sampleValue(samples, 'hindsight_scenario_runs_completed_total'), 1, 'counters survive');
    });
  });
}
