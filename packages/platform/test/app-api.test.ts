import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ensureZstd, zstdDecompress } from '@hindsight/marketdata';
import { pushPythonExample, pushPythonScript, SLOW_ACKS } from './support/scenario-images.ts';
import { storageBackends } from './support/storage-backends.ts';
import { tamperedCursor } from './support/tampered-cursor.ts';
import { type Account, withTestPlatform } from './support/test-platform.ts';

/**
 * The web app's internal API (`/app-api/`, decision 39) on a real platform: runs across strategies
 * with progress, decoded result files, candles from the bundled sample, day coverage with a gap,
 * sweeps made by a batch call, owner scoping, and that none of it leaks into openapi.json.
 */
const window = { startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-03T00:00:00Z' };
const btc = [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }];
const TERMINAL = new Set(['COMPLETE', 'FAILED', 'CANCELLED']);
const DECIMAL = /^-?\d+(\.\d+)?$/;

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 300_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

for (const backend of storageBackends()) {
  describe(`web app internal API (${backend.name})`, () => {
    const t = withTestPlatform(backend, {
      settings: { workers: '2', leaseSeconds: '3', connectTimeoutSeconds: '15', stallTimeoutSeconds: '10' },
      platform: { runLimits: { exitGraceMs: 3000 } },
    });
    const s: {
      owner?: Account;
      other?: Account;
      strategyId?: string;
      single?: string;
      batchId?: string;
      batch?: string[];
    } = {};
    const run = (id: string, key = s.owner?.key) => t.get().api.get(`/app-api/runs/${id}`, { key });
    const finished = (id: string) =>
      waitFor(`run ${id}`, async () => {
        const body = (await run(id)).body.data;
        return TERMINAL.has(body.state) ? body : undefined;
      });

    it('creates runs: one scenario and a 2x2 sweep (the batch answer keeps its spec shape)', async () => {
      const api = t.get().api;
      s.owner = await t.get().account('app-owner');
      s.other = await t.get().account('app-other');
      s.strategyId = (
        await api.post('/v1/strategies', { key: s.owner.key, body: { name: 'sma' } })
      ).body.data.strategyId;
      const version = await pushPythonExample(api, s.owner.key, s.strategyId as string);
      const scenarios = `/v1/strategies/${s.strategyId}/scenarios`;
      const body = { strategyVersionId: version.data.versionId, subscriptions: btc, ...window };
      const created = await api.post(scenarios, { key: s.owner.key, body });
      assert.equal(created.status, 201, created.text);
      s.single = created.body.data.scenarioId;
      const { strategyVersionId, ...base } = body;
      const batch = await api.post(`${scenarios}/batch`, {
        key: s.owner.key,
        body: { strategyVersionId, base, envGrid: { FAST: ['5', '10'], SLOW: ['20', '30'] } },
      });
      assert.equal(batch.status, 201, batch.text);
      assert.deepEqual(Object.keys(batch.body).sort(), ['data', 'dropped', 'requested']);
      assert.ok(
        batch.body.data.every((sc: object) => !('batchId' in sc)),
        'the spec shape has no batchId',
      );
      s.batch = batch.body.data.map((sc: { scenarioId: string }) => sc.scenarioId);
    });

    it('lists the account’s runs newest first with strategy, version and progress; pages with signed cursors', async () => {
      const api = t.get().api;
      const key = s.owner?.key;
      const all = await api.get('/app-api/runs', { key });
      assert.equal(all.status, 200, all.text);
      const runs = all.body.data.runs;
      assert.equal(runs.length, 5);
      assert.equal(all.body.data.nextCursor, null);
      assert.deepEqual(
        runs.map((r: { scenarioId: string }) => r.scenarioId),
        [...(s.batch ?? [])].reverse().concat([s.single as string]),
      );
      const first = runs.at(-1);
      assert.equal(first.strategyName, 'sma');
      assert.equal(first.strategyId, s.strategyId);
      assert.equal(first.batchId, null);
      assert.deepEqual(first.instruments, ['C:BTCUSD']);
      assert.equal(first.progress.windowStart, '2024-01-02T00:00:00.000Z');
      assert.equal(first.progress.windowEnd, '2024-01-03T00:00:00.000Z');
      const batchIds = new Set(runs.slice(0, 4).map((r: { batchId: string }) => r.batchId));
      assert.equal(batchIds.size, 1);
      s.batchId = [...batchIds][0] as string;
      assert.match(s.batchId, /^[0-9a-f-]{36}$/);

      const page1 = await api.get('/app-api/runs', { key, query: { limit: '2' } });
      assert.equal(page1.body.data.runs.length, 2);
      const cursor = page1.body.data.nextCursor;
      assert.ok(cursor);
      const page2 = await api.get('/app-api/runs', { key, query: { limit: '2', cursor } });
      assert.deepEqual(
        page2.body.data.runs.map((r: { scenarioId: string }) => r.scenarioId),
        runs.slice(2, 4).map((r: { scenarioId: string }) => r.scenarioId),
      );
      const forged = await api.get('/app-api/runs', { key, query: { cursor: tamperedCursor(cursor) } });
      assert.equal(forged.status, 400);
      assert.equal(forged.body.error.code, 'BAD_REQUEST');
      const foreign = await api.get('/app-api/runs', { key: s.other?.key, query: { cursor } });
      assert.equal(foreign.status, 400, 'a cursor is bound to its account');

      const sweep = await api.get('/app-api/runs', { key, query: { batchId: s.batchId } });
      assert.equal(sweep.body.data.runs.length, 4);
      const ofStrategy = await api.get('/app-api/runs', {
        key,
        query: { strategyId: s.strategyId as string },
      });
      assert.equal(ofStrategy.body.data.runs.length, 5);
      const bad = await api.get('/app-api/runs', { key, query: { state: 'DONE', limit: '0' } });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error.message, /state|limit/);
      // The web app's session token works as it does on /v1.
      const bySession = await api.get('/app-api/runs', { session: s.owner?.session });
      assert.equal(bySession.body.data.runs.length, 5);
    });

    it('scopes runs to their owner: 403 for another account’s, 404 missing, 400 malformed', async () => {
      const api = t.get().api;
      const id = s.single as string;
      assert.equal((await run(id, s.other?.key)).status, 403);
      assert.equal((await api.get(`/app-api/runs/${id}/timeseries`, { key: s.other?.key })).status, 403);
      assert.equal((await run('7f1c1a4e-8c1b-4d59-9d3e-3c0f6f3e9a11')).status, 404);
      const malformed = await run('not-a-uuid');
      assert.equal(malformed.status, 400);
      assert.match(malformed.body.error.message, /scenario_id/);
      const theirs = await api.get('/app-api/runs', { key: s.other?.key });
      assert.deepEqual(theirs.body.data.runs, []);
      assert.deepEqual((await api.get('/app-api/sweeps', { key: s.other?.key })).body.data, []);
      assert.equal((await api.get(`/app-api/sweeps/${s.batchId}`, { key: s.other?.key })).status, 403);
      assert.equal((await api.get('/app-api/runs')).status, 401);
    });

    it('serves a COMPLETE run’s files decoded, equal to the /v1 downloads; 100 % with simulatedAt in the window', async () => {
      const api = t.get().api;
      const id = s.single as string;
      const done = await finished(id);
      assert.equal(done.state, 'COMPLETE', JSON.stringify(done));
      assert.equal(done.progress.percent, 100);
      const at = Date.parse(done.progress.simulatedAt);
      assert.ok(
        at >= Date.parse(window.startTime) && at <= Date.parse(window.endTime),
        done.progress.simulatedAt,
      );
      assert.ok(done.finishedAt && done.startedAt);
      await ensureZstd();
      for (const file of ['timeseries', 'trades', 'metadata']) {
        const response = await fetch(`${api.baseUrl}/v1/strategies/${s.strategyId}/scenarios/${id}/${file}`, {
          headers: { 'x-api-key': s.owner?.key as string },
        });
        const expected = JSON.parse(
          Buffer.from(zstdDecompress(new Uint8Array(await response.arrayBuffer()))).toString('utf8'),
        );
        const decoded = await api.get(`/app-api/runs/${id}/${file}`, { key: s.owner?.key });
        assert.equal(decoded.status, 200, decoded.text);
        assert.deepEqual(decoded.body.data, file === 'trades' ? { trades: expected.trades } : expected);
      }
      const series = (await api.get(`/app-api/runs/${id}/timeseries`, { key: s.owner?.key })).body.data;
      assert.ok(series.timestamps.length > 0 && series.nav.every((v: string) => DECIMAL.test(v)));
    });

    it('groups a batch call as a sweep: one batchId, its grid keys, each run’s params and metrics', async () => {
      const api = t.get().api;
      for (const id of s.batch ?? []) assert.equal((await finished(id)).state, 'COMPLETE');
      const list = await api.get('/app-api/sweeps', { key: s.owner?.key });
      assert.equal(list.status, 200);
      assert.equal(list.body.data.length, 1);
      const [summary] = list.body.data;
      assert.equal(summary.batchId, s.batchId);
      assert.equal(summary.strategyName, 'sma');
      assert.equal(summary.runs, 4);
      assert.deepEqual(summary.states, { COMPLETE: 4 });
      assert.deepEqual(summary.gridKeys, ['FAST', 'SLOW']);
      const detail = await api.get(`/app-api/sweeps/${s.batchId}`, { key: s.owner?.key });
      assert.equal(detail.status, 200, detail.text);
      assert.deepEqual(
        detail.body.data.items.map((item: { params: object }) => item.params),
        [
          { FAST: '5', SLOW: '20' },
          { FAST: '5', SLOW: '30' },
          { FAST: '10', SLOW: '20' },
          { FAST: '10', SLOW: '30' },
        ],
      );
      for (const item of detail.body.data.items) {
        assert.equal(item.state, 'COMPLETE');
        assert.equal(typeof item.metrics, 'object');
        assert.ok(item.metrics && 'totalReturn' in item.metrics, JSON.stringify(item.metrics));
      }
      assert.equal(
        (await api.get('/app-api/sweeps/3b0e1c1e-1111-4c59-9d3e-3c0f6f3e9a11', { key: s.owner?.key })).status,
        404,
      );
      assert.equal((await api.get('/app-api/sweeps/nope', { key: s.owner?.key })).status, 400);
    });

    it('shows a RUNNING run’s progress between 0 and 100, and refuses its files (400)', async () => {
      const api = t.get().api;
      const key = s.owner?.key as string;
      // Acknowledging each minute 50 ms late, a day takes over a minute however fast the machine is.
      const version = await pushPythonScript(api, key, s.strategyId as string, SLOW_ACKS);
      const created = await api.post(`/v1/strategies/${s.strategyId}/scenarios`, {
        key,
        body: { strategyVersionId: version.data.versionId, subscriptions: btc, ...window },
      });
      const id = created.body.data.scenarioId;
      const running = await waitFor(`progress of ${id}`, async () => {
        const body = (await run(id)).body.data;
        if (TERMINAL.has(body.state)) throw new Error(`run ended: ${JSON.stringify(body)}`);
        return body.state === 'RUNNING' && body.progress.percent > 0 ? body : undefined;
      });
      assert.ok(running.progress.percent < 100, JSON.stringify(running.progress));
      const at = Date.parse(running.progress.simulatedAt);
      assert.ok(at > Date.parse(window.startTime) && at < Date.parse(window.endTime));
      const refused = await api.get(`/app-api/runs/${id}/trades`, { key });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error.message, /COMPLETE/);
      await api.post(`/v1/strategies/${s.strategyId}/scenarios/${id}/cancel`, { key });
      const cancelled = (await run(id)).body.data;
      assert.equal(cancelled.state, 'CANCELLED');
      assert.ok(cancelled.progress.percent === null || cancelled.progress.percent < 100);
    });

    it('serves candles: the smallest timeframe within maxPoints, decimal strings, 404 and 400', async () => {
      const api = t.get().api;
      const key = s.owner?.key;
      const from = Date.parse(window.startTime);
      const to = Date.parse(window.endTime);
      const auto = await api.get('/app-api/candles', {
        key,
        query: { symbol: 'C:BTCUSD', from: String(from), to: String(to), maxPoints: '1000' },
      });
      assert.equal(auto.status, 200, auto.text);
      // 1440 minutes do not fit in 1000 points; 720 two-minute bars do.
      assert.equal(auto.body.data.timeframe, '2m');
      assert.equal(auto.body.data.candles.length, 720);
      const minutes = await api.get('/app-api/candles', {
        key,
        query: { symbol: 'C:BTCUSD', from: String(from), to: String(from + 3_600_000), timeframe: '1m' },
      });
      const hour = await api.get('/app-api/candles', {
        key,
        query: { symbol: 'C:BTCUSD', from: String(from), to: String(to), timeframe: '1h' },
      });
      assert.equal(hour.body.data.timeframe, '1h');
      assert.equal(hour.body.data.candles.length, 24);
      const bars = minutes.body.data.candles;
      assert.equal(bars.length, 60);
      for (const bar of [...bars, ...hour.body.data.candles]) {
        for (const field of ['open', 'high', 'low', 'close', 'volume']) assert.match(bar[field], DECIMAL);
      }
      const [first] = hour.body.data.candles;
      assert.equal(first.time, from);
      assert.equal(first.open, bars[0].open);
      assert.equal(first.close, bars[59].close);
      assert.equal(Math.max(...bars.map((b: { high: string }) => Number(b.high))), Number(first.high));
      assert.equal(Math.min(...bars.map((b: { low: string }) => Number(b.low))), Number(first.low));

      const unknown = await api.get('/app-api/candles', {
        key,
        query: { symbol: 'C:NOPE', from: String(from), to: String(to) },
      });
      assert.equal(unknown.status, 404);
      const backwards = await api.get('/app-api/candles', {
        key,
        query: { symbol: 'C:BTCUSD', from: String(to), to: String(from) },
      });
      assert.equal(backwards.status, 400);
      assert.match(backwards.body.error.message, /must be after from/);
      const tooMany = await api.get('/app-api/candles', {
        key,
        query: { symbol: 'C:BTCUSD', from: String(from), to: String(to), timeframe: '1m', maxPoints: '100' },
      });
      assert.equal(tooMany.status, 400);
      assert.match(tooMany.body.error.message, /maxPoints/);
      const notNumber = await api.get('/app-api/candles', {
        key,
        query: { symbol: 'C:BTCUSD', from: 'yesterday', to: String(to) },
      });
      assert.equal(notNumber.status, 400);
      assert.match(notNumber.body.error.message, /from/);
    });

    it('reports day coverage with the gaps inside it', async () => {
      const { ctx } = t.get().platform;
      const day = (text: string) => Date.parse(`${text}T00:00:00Z`);
      // ETH: two days, a 40-day hole, three days with a missing day among them.
      const times = [
        ...['2024-01-01', '2024-01-02', '2024-02-12', '2024-02-14', '2024-02-15'].map(day),
        day('2024-01-02') + 60_000,
      ];
      const n = times.length;
      const column = (value: number) => Float64Array.from({ length: n }, () => value);
      await ctx.market.writeBars('C:ETHUSD', {
        symbol: 'C:ETHUSD',
        priceDecimals: 2,
        volumeDecimals: 3,
        length: n,
        time: Float64Array.from(times),
        open: column(200000),
        high: column(200100),
        low: column(199900),
        close: column(200050),
        volume: column(1500),
      });
      const response = await t.get().api.get('/app-api/catalog/coverage', { key: s.owner?.key });
      assert.equal(response.status, 200, response.text);
      const bySymbol = new Map(response.body.data.map((c: { symbol: string }) => [c.symbol, c]));
      const eth = bySymbol.get('C:ETHUSD') as Record<string, unknown>;
      assert.equal(eth.market, 'CRYPTO');
      assert.ok((eth.timeframes as string[]).includes('1d'));
      assert.equal(eth.firstDay, '2024-01-01');
      assert.equal(eth.lastDay, '2024-02-15');
      assert.deepEqual(eth.ranges, [
        { from: '2024-01-01', to: '2024-01-02' },
        { from: '2024-02-12', to: '2024-02-12' },
        { from: '2024-02-14', to: '2024-02-15' },
      ]);
      assert.deepEqual(eth.gaps, [
        { from: '2024-01-03', to: '2024-02-11' },
        { from: '2024-02-13', to: '2024-02-13' },
      ]);
      const btcCoverage = bySymbol.get('C:BTCUSD') as Record<string, unknown>;
      assert.deepEqual(btcCoverage.ranges, [{ from: '2024-01-01', to: '2024-03-31' }]);
      assert.deepEqual(btcCoverage.gaps, []);
      // Forex is shut on Saturdays: a weekend is no gap.
      const eur = bySymbol.get('F:EURUSD') as { gaps: { from: string; to: string }[] };
      for (const gap of eur.gaps) {
        assert.ok(
          !(gap.from === gap.to && new Date(`${gap.from}T00:00:00Z`).getUTCDay() === 6),
          JSON.stringify(gap),
        );
      }
      const empty = bySymbol.get('C:SOLUSD') as Record<string, unknown>;
      assert.deepEqual([empty.ranges, empty.gaps, empty.firstDay, empty.lastDay], [[], [], null, null]);
    });

    it('answers unknown /app-api paths with a JSON 404 and keeps /app-api out of openapi.json', async () => {
      const api = t.get().api;
      for (const path of ['/app-api/nope', '/app-api/runs/x/y/z', '/app-api']) {
        const response = await api.get(path, { key: s.owner?.key });
        assert.equal(response.status, 404, path);
        assert.match(response.headers.get('content-type') ?? '', /application\/json/);
        assert.equal(response.body.error.code, 'NOT_FOUND');
      }
      const document = (await api.get('/v1/openapi.json')).body;
      const paths = Object.keys(document.paths);
      assert.ok(paths.length > 10);
      assert.deepEqual(
        paths.filter((p) => !p.startsWith('/v1/')),
        [],
      );
    });
  });
}
