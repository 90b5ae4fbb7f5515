import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildStrategyImage, type CreatedVersion, pushToVersion } from './support/images.ts';
import { createVersion, pushPythonScript } from './support/scenario-images.ts';
import { storageBackends } from './support/storage-backends.ts';
import type { Account, TestPlatform } from './support/test-platform.ts';
import { withTestPlatform } from './support/test-platform.ts';

/**
 * The scenario endpoints over real HTTP on a platform without workers, so that scenarios stay where
 * the test puts them: creation and its order of checks, reads, filters, cancel and delete in every
 * non-terminal state, quota, batch, from-configs, compare's refusals, auto-run and owner scoping.
 * Runs that execute are in scenarios-run.test.ts.
 */
const QUOTA = 6;
const window = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-02T00:00:00Z' };
const btc = [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }];
const inline = (versionId: string, extra: Record<string, unknown> = {}) => ({
  strategyVersionId: versionId,
  subscriptions: btc,
  ...window,
  ...extra,
});
const scenariosOf = (strategyId: string) => `/v1/strategies/${strategyId}/scenarios`;
const unknownId = '7d3c1c5e-2f4b-4b8a-9a51-0c6f1f0e2a11';

interface Fixture {
  owner: Account;
  strategyId: string;
  version: CreatedVersion;
}

async function fixture(t: TestPlatform, label: string): Promise<Fixture> {
  const owner = await t.account(label);
  const strategyId = (await t.api.post('/v1/strategies', { key: owner.key, body: { name: label } })).body.data
    .strategyId;
  const version = await pushPythonScript(t.api, owner.key, strategyId, 'print("hello")\n');
  return { owner, strategyId, version };
}

for (const backend of storageBackends()) {
  describe(`scenario endpoints (${backend.name})`, () => {
    const t = withTestPlatform(backend, { settings: { scenarioQuota: String(QUOTA) } });

    it('creates a QUEUED scenario and reads it by the flat and the strategy-scoped path alike', async () => {
      const { api } = t.get();
      const { owner, strategyId, version } = await fixture(t.get(), 'create');
      const created = await api.post(scenariosOf(strategyId), {
        key: owner.key,
        body: inline(version.data.versionId, { env: { FAST: '5' }, initialCapital: 5000 }),
      });
      assert.equal(created.status, 201, created.text);
      const scenario = created.body.data;
      assert.equal(scenario.state, 'QUEUED');
      assert.equal(scenario.strategyId, strategyId);
      assert.equal(scenario.strategyVersionId, version.data.versionId);
      assert.equal(scenario.ownerId, owner.userId);
      assert.deepEqual(scenario.env, { FAST: '5' });
      assert.equal(scenario.initialCapital, 5000);
      assert.equal(scenario.positionMode, 'netting');
      for (const absent of ['errorType', 'manifest', 'configId', 'startedAt', 'finishedAt']) {
        assert.ok(!(absent in scenario), `${absent} is omitted, never null`);
      }
      const flat = await api.get(`/v1/scenarios/${scenario.scenarioId}`, { key: owner.key });
      const scoped = await api.get(`${scenariosOf(strategyId)}/${scenario.scenarioId}`, { key: owner.key });
      assert.equal(flat.status, 200);
      assert.deepEqual(flat.body, scoped.body);
      assert.deepEqual(flat.body.data, scenario);
    });

    it('checks a creation in the decided order: body, then version (404, 409, 410), then merged env, then quota', async () => {
      const { api } = t.get();
      const { owner, strategyId, version } = await fixture(t.get(), 'order');
      const post = (body: unknown) => api.post(scenariosOf(strategyId), { key: owner.key, body });
      const expect = async (body: unknown, status: number, code: string, hint?: RegExp) => {
        const response = await post(body);
        assert.equal(response.status, status, response.text);
        assert.equal(response.body.error.code, code);
        if (hint) assert.match(response.body.error.message, hint);
      };
      // A bad body is 400 even with an unknown version (body before version).
      await expect({ ...inline(unknownId), name: 'x' }, 400, 'BAD_REQUEST', /name/);
      await expect(inline(unknownId, { env: { PLATFORM_X: '1' } }), 400, 'BAD_REQUEST', /PLATFORM_/);
      await expect(
        inline(version.data.versionId, { subscriptions: [{ instrument: 'C:NOPE', events: ['candle_1m'] }] }),
        400,
        'BAD_REQUEST',
        /C:NOPE/,
      );
      await expect(inline(unknownId), 404, 'NOT_FOUND');
      const pending = await createVersion(api, owner.key, strategyId);
      await expect(inline(pending.data.versionId), 409, 'CONFLICT', /push/);
      const evicted = await pushPythonScript(api, owner.key, strategyId, 'print(1)\n');
      await api.delete(`/v1/strategies/${strategyId}/versions/${evicted.data.versionId}/image`, {
        key: owner.key,
      });
      await expect(inline(evicted.data.versionId), 410, 'IMAGE_EVICTED', /evicted/);
      // Another account's version is 403 (decision 28).
      const other = await fixture(t.get(), 'order-other');
      await expect(inline(other.version.data.versionId), 403, 'FORBIDDEN');
      // The env rules hold on the image env merged with the inline env: 60 + 60 keys pass alone, not merged.
      const heavy = await createVersion(api, owner.key, strategyId);
      const imageEnv = Array.from({ length: 60 }, (_, i) => `IMAGE_${i}=x`);
      await pushToVersion(
        api.baseUrl,
        heavy,
        await buildStrategyImage({ 'main.py': 'pass\n' }, ['python3', 'main.py'], imageEnv),
      );
      const inlineEnv = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`RUN_${i}`, 'y']));
      await expect(
        inline(heavy.data.versionId, { env: inlineEnv }),
        400,
        'BAD_REQUEST',
        /merged with the image env/,
      );
      // The image env counts, and the inline env overrides it: 60 image keys + 30 run keys are fine.
      const fine = await post(
        inline(heavy.data.versionId, { env: Object.fromEntries(Object.entries(inlineEnv).slice(0, 30)) }),
      );
      assert.equal(fine.status, 201, fine.text);
      const archived = await fixture(t.get(), 'archived');
      await api.delete(`/v1/strategies/${archived.strategyId}`, { key: archived.owner.key });
      const refused = await api.post(scenariosOf(archived.strategyId), {
        key: archived.owner.key,
        body: inline(archived.version.data.versionId),
      });
      assert.equal(refused.status, 409);
      assert.match(refused.body.error.message, /archived/);
    });

    it('answers 400 for malformed ids, 404 for unknown ones and for a scenario of another strategy', async () => {
      const { api } = t.get();
      const { owner, strategyId, version } = await fixture(t.get(), 'ids');
      const id = (
        await api.post(scenariosOf(strategyId), { key: owner.key, body: inline(version.data.versionId) })
      ).body.data.scenarioId;
      assert.equal((await api.get('/v1/scenarios/not-a-uuid', { key: owner.key })).status, 400);
      assert.equal((await api.get(`/v1/scenarios/${unknownId}`, { key: owner.key })).status, 404);
      assert.equal((await api.get(`${scenariosOf(strategyId)}/nope`, { key: owner.key })).status, 400);
      const otherStrategy = (await api.post('/v1/strategies', { key: owner.key, body: { name: 'other' } }))
        .body.data.strategyId;
      assert.equal((await api.get(`${scenariosOf(otherStrategy)}/${id}`, { key: owner.key })).status, 404);
      assert.equal((await api.get(`${scenariosOf(unknownId)}/${id}`, { key: owner.key })).status, 404);
      assert.equal((await api.get(`/v1/scenarios/${id}`)).status, 401);
    });

    it('cancels in QUEUED and PENDING, refuses a terminal scenario, and serves no results until COMPLETE', async () => {
      const { api, platform } = t.get();
      const { owner, strategyId, version } = await fixture(t.get(), 'cancel');
      const create = async () =>
        (await api.post(scenariosOf(strategyId), { key: owner.key, body: inline(version.data.versionId) }))
          .body.data.scenarioId as string;
      const queued = await create();
      for (const file of ['metadata', 'timeseries', 'trades', 'metrics']) {
        const response = await api.get(`${scenariosOf(strategyId)}/${queued}/${file}`, { key: owner.key });
        assert.equal(response.status, 400, `${file} of a QUEUED scenario`);
        assert.equal(response.headers.get('content-type')?.split(';')[0], 'application/json');
        assert.match(response.body.error.message, /QUEUED/);
      }
      const cancelled = await api.post(`${scenariosOf(strategyId)}/${queued}/cancel`, { key: owner.key });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.data.state, 'CANCELLED');
      assert.ok(cancelled.body.data.finishedAt);
      const again = await api.post(`${scenariosOf(strategyId)}/${queued}/cancel`, { key: owner.key });
      assert.equal(again.status, 400);
      assert.match(again.body.error.message, /already CANCELLED/);
      assert.equal(
        (await api.get(`${scenariosOf(strategyId)}/${queued}/trades`, { key: owner.key })).status,
        400,
      );
      // PENDING: a worker (here the queue itself, as a worker would) claims it; the cancel wins and the
      // worker learns at its next lease renewal that the scenario is no longer its own.
      const pending = await create();
      let claimed = await platform.ctx.scenarios.claim('test-worker', 60_000);
      while (claimed && claimed.scenarioId !== pending) {
        await platform.ctx.scenarios.fail(claimed.scenarioId, 'test-worker', 'platform', 'test cleanup');
        claimed = await platform.ctx.scenarios.claim('test-worker', 60_000);
      }
      assert.equal(claimed?.state, 'PENDING');
      assert.equal(
        (await api.get(`/v1/scenarios/${pending}`, { key: owner.key })).body.data.state,
        'PENDING',
      );
      const stop = await api.post(`${scenariosOf(strategyId)}/${pending}/cancel`, { key: owner.key });
      assert.equal(stop.body.data.state, 'CANCELLED');
      assert.deepEqual(await platform.ctx.scenarios.renewLeases('test-worker', [pending], 60_000), [pending]);
      assert.equal(await platform.ctx.scenarios.fail(pending, 'test-worker', 'platform', 'late'), false);
      const logs = await api.get(`${scenariosOf(strategyId)}/${pending}/logs`, { key: owner.key });
      assert.equal(logs.status, 200);
      assert.equal(logs.text, '');
      assert.equal(logs.headers.get('x-hindsight-output-bytes'), '0');
    });

    it('deletes a scenario in any state (204), after which it is gone', async () => {
      const { api } = t.get();
      const { owner, strategyId, version } = await fixture(t.get(), 'delete');
      const id = (
        await api.post(scenariosOf(strategyId), { key: owner.key, body: inline(version.data.versionId) })
      ).body.data.scenarioId;
      const deleted = await api.delete(`${scenariosOf(strategyId)}/${id}`, { key: owner.key });
      assert.equal(deleted.status, 204);
      assert.equal(deleted.text, '');
      assert.equal((await api.get(`/v1/scenarios/${id}`, { key: owner.key })).status, 404);
      assert.equal((await api.delete(`${scenariosOf(strategyId)}/${id}`, { key: owner.key })).status, 404);
    });

    it('lists newest first with every filter and signed cursors', async () => {
      const { api } = t.get();
      const { owner, strategyId, version } = await fixture(t.get(), 'list');
      const second = await pushPythonScript(api, owner.key, strategyId, 'print(2)\n');
      const ids: string[] = [];
      const before = new Date().toISOString();
      const eurusd = { startTime: '2014-05-02T00:00:00Z', endTime: '2014-05-03T00:00:00Z' };
      const usdjpy = { startTime: '2013-02-04T00:00:00Z', endTime: '2013-02-05T00:00:00Z' };
      for (const [v, subscriptions, span] of [
        [version, btc, window],
        [second, [{ instrument: 'F:EURUSD', events: ['candle_5m'] }], eurusd],
        [version, [{ instrument: 'F:USDJPY', events: ['candle_1h'] }], usdjpy],
      ] as const) {
        const created = await api.post(scenariosOf(strategyId), {
          key: owner.key,
          body: inline(v.data.versionId, { subscriptions, ...span }),
        });
        assert.equal(created.status, 201, created.text);
        ids.push(created.body.data.scenarioId);
      }
      await api.post(`${scenariosOf(strategyId)}/${ids[0]}/cancel`, { key: owner.key });
      const list = async (query: Record<string, string>) => {
        const response = await api.get(scenariosOf(strategyId), { key: owner.key, query });
        assert.equal(response.status, 200, response.text);
        return (response.body.data as { scenarioId: string }[]).map((s) => s.scenarioId);
      };
      assert.deepEqual(await list({}), [...ids].reverse());
      assert.deepEqual(await list({ state: 'CANCELLED' }), [ids[0]]);
      assert.deepEqual(await list({ state: 'QUEUED' }), [ids[2], ids[1]]);
      assert.deepEqual(await list({ strategyVersionId: second.data.versionId }), [ids[1]]);
      assert.deepEqual(await list({ isCompleted: 'true' }), []);
      assert.deepEqual(await list({ isCompleted: 'false' }), [...ids].reverse());
      assert.deepEqual(await list({ instruments: 'F:USDJPY' }), [ids[2]]);
      assert.deepEqual(await list({ instruments: 'F:EURUSD,F:USDJPY' }), [ids[2], ids[1]]);
      assert.deepEqual(await list({ createdAfter: before }), [...ids].reverse());
      assert.deepEqual(await list({ createdBefore: before }), []);
      const first = await api.get(scenariosOf(strategyId), { key: owner.key, query: { limit: '2' } });
      assert.equal(first.body.data.length, 2);
      const rest = await api.get(scenariosOf(strategyId), {
        key: owner.key,
        query: { limit: '2', cursor: first.body.nextCursor },
      });
      assert.deepEqual(
        rest.body.data.map((s: { scenarioId: string }) => s.scenarioId),
        [ids[0]],
      );
      assert.ok(!('nextCursor' in rest.body));
      const refused: Record<string, string>[] = [
        { state: 'DONE' },
        { isCompleted: 'yes' },
        { createdAfter: 'yesterday' },
        { limit: '0' },
        { instruments: ' , ' },
        { instruments: '\u2028' },
      ];
      for (const bad of refused) {
        const response = await api.get(scenariosOf(strategyId), { key: owner.key, query: bad });
        assert.equal(response.status, 400, JSON.stringify(bad));
      }
    });

    it('refuses scenarios beyond the account quota with 403 QUOTA_EXCEEDED; cancelling frees slots', async () => {
      const { api } = t.get();
      const { owner, strategyId, version } = await fixture(t.get(), 'quota');
      const ids: string[] = [];
      for (let i = 0; i < QUOTA; i++) {
        const created = await api.post(scenariosOf(strategyId), {
          key: owner.key,
          body: inline(version.data.versionId),
        });
        assert.equal(created.status, 201);
        ids.push(created.body.data.scenarioId);
      }
      const refused = await api.post(scenariosOf(strategyId), {
        key: owner.key,
        body: inline(version.data.versionId),
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'QUOTA_EXCEEDED');
      assert.match(refused.body.error.message, new RegExp(`${QUOTA}`));
      // Other accounts have their own quota.
      const other = await fixture(t.get(), 'quota-other');
      const theirs = await api.post(scenariosOf(other.strategyId), {
        key: other.owner.key,
        body: inline(other.version.data.versionId),
      });
      assert.equal(theirs.status, 201);
      // A batch takes what is left and reports the rest as dropped.
      for (const id of ids.slice(0, 2))
        await api.post(`${scenariosOf(strategyId)}/${id}/cancel`, { key: owner.key });
      const batch = await api.post(`${scenariosOf(strategyId)}/batch`, {
        key: owner.key,
        body: {
          strategyVersionId: version.data.versionId,
          base: { subscriptions: btc, ...window },
          envGrid: { FAST: ['5', '10'], SLOW: ['20', '30'] },
        },
      });
      assert.equal(batch.status, 201, batch.text);
      assert.equal(batch.body.requested, 4);
      assert.equal(batch.body.dropped, 2);
      assert.deepEqual(
        batch.body.data.map((s: { label: string }) => s.label),
        ['FAST=5,SLOW=20', 'FAST=5,SLOW=30'],
      );
      const none = await api.post(`${scenariosOf(strategyId)}/batch`, {
        key: owner.key,
        body: { strategyVersionId: version.data.versionId, base: { subscriptions: btc, ...window } },
      });
      assert.equal(none.status, 403);
      assert.equal(none.body.error.code, 'QUOTA_EXCEEDED');
      // Concurrent creations never exceed the quota together.
      for (const id of ids.slice(2))
        await api.post(`${scenariosOf(strategyId)}/${id}/cancel`, { key: owner.key });
      const racing = await Promise.all(
        Array.from({ length: QUOTA + 4 }, () =>
          api.post(scenariosOf(strategyId), { key: owner.key, body: inline(version.data.versionId) }),
        ),
      );
      const created = racing.filter((r) => r.status === 201).length;
      assert.equal(created, QUOTA - 2, 'exactly the free slots were taken');
      assert.ok(racing.every((r) => r.status === 201 || r.body.error.code === 'QUOTA_EXCEEDED'));
    });

    it('creates a batch from a list and an env grid, validating every item before creating any', async () => {
      const { api } = t.get();
      const { owner, strategyId, version } = await fixture(t.get(), 'batch');
      const batchPath = `${scenariosOf(strategyId)}/batch`;
      const post = (body: unknown) => api.post(batchPath, { key: owner.key, body });
      const count = async () => (await api.get(scenariosOf(strategyId), { key: owner.key })).body.data.length;
      const bad: [unknown, RegExp][] = [
        [{ strategyVersionId: version.data.versionId }, /configurations.*base/],
        [
          {
            strategyVersionId: version.data.versionId,
            envGrid: { A: ['1'] },
            configurations: [{ subscriptions: btc, ...window }],
          },
          /needs `base`/,
        ],
        [
          {
            strategyVersionId: version.data.versionId,
            configurations: [
              { subscriptions: btc, ...window },
              { subscriptions: btc, startTime: window.endTime, endTime: window.startTime },
            ],
          },
          /configurations\[1\]\.endTime/,
        ],
        [
          {
            strategyVersionId: version.data.versionId,
            base: { subscriptions: btc, ...window },
            envGrid: {
              A: Array.from({ length: 11 }, (_, i) => `${i}`),
              B: Array.from({ length: 10 }, (_, i) => `${i}`),
            },
          },
          /more than 100/,
        ],
        [
          {
            strategyVersionId: version.data.versionId,
            base: { subscriptions: btc, ...window },
            envGrid: { PLATFORM_X: ['1'] },
          },
          /PLATFORM_X|\[A-Za-z_\]/,
        ],
      ];
      for (const [body, hint] of bad) {
        const response = await post(body);
        assert.equal(response.status, 400, response.text);
        assert.match(`${response.body.error.message} ${response.body.error.details ?? ''}`, hint);
      }
      assert.equal(await count(), 0, 'nothing created by refused batches');
      const pending = await createVersion(api, owner.key, strategyId);
      assert.equal(
        (await post({ strategyVersionId: pending.data.versionId, base: { subscriptions: btc, ...window } }))
          .status,
        409,
      );
      assert.equal(
        (await post({ strategyVersionId: unknownId, base: { subscriptions: btc, ...window } })).status,
        404,
      );
      const created = await post({
        strategyVersionId: version.data.versionId,
        configurations: [
          { subscriptions: btc, ...window },
          { subscriptions: btc, ...window, positionMode: 'hedging' },
        ],
        base: { subscriptions: btc, ...window, env: { MODE: 'sweep', FAST: '1' } },
        envGrid: { FAST: ['5', '10'] },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.requested, 4);
      assert.equal(created.body.dropped, 0);
      const data = created.body.data as {
        label: string;
        env?: Record<string, string>;
        positionMode: string;
      }[];
      assert.deepEqual(
        data.map((s) => s.label),
        ['configurations[0]', 'configurations[1]', 'FAST=5', 'FAST=10'],
      );
      assert.equal(data[1]?.positionMode, 'hedging');
      assert.deepEqual(data[2]?.env, { MODE: 'sweep', FAST: '5' });
      assert.deepEqual(data[3]?.env, { MODE: 'sweep', FAST: '10' });
      assert.equal(await count(), 4);
    });

    it('creates from saved configurations by the numbered rules: atomic checks, best-effort launch, results in order', async () => {
      const { api } = t.get();
      const { owner, strategyId, version } = await fixture(t.get(), 'from-configs');
      const saveConfig = async (name: string, extra: Record<string, unknown> = {}) =>
        (
          await api.post('/v1/configurations', {
            key: owner.key,
            body: { name, subscriptions: btc, ...window, ...extra },
          })
        ).body.data;
      const a = await saveConfig('A', { env: { FAST: '5' }, initialCapital: 2000 });
      const b = await saveConfig('B', { positionMode: 'hedging' });
      const path = `${scenariosOf(strategyId)}/from-configs`;
      const post = (body: unknown) => api.post(path, { key: owner.key, body });
      const count = async () => (await api.get(scenariosOf(strategyId), { key: owner.key })).body.data.length;
      const missing = await post({
        strategyVersionId: version.data.versionId,
        configIds: [a.configId, unknownId],
      });
      assert.equal(missing.status, 404);
      const foreign = await fixture(t.get(), 'from-configs-other');
      const theirConfig = (
        await api.post('/v1/configurations', {
          key: foreign.owner.key,
          body: { name: 'theirs', subscriptions: btc, ...window },
        })
      ).body.data.configId;
      assert.equal(
        (await post({ strategyVersionId: version.data.versionId, configIds: [theirConfig] })).status,
        403,
      );
      const badEnv = await post({
        strategyVersionId: version.data.versionId,
        configIds: [a.configId],
        env: { PLATFORM_Y: '1' },
      });
      assert.equal(badEnv.status, 400);
      assert.equal(await count(), 0, 'refused calls create nothing');
      const created = await post({
        strategyVersionId: version.data.versionId,
        configIds: [b.configId, a.configId],
        env: { SLOW: '30' },
      });
      assert.equal(created.status, 201, created.text);
      const results = created.body.data as {
        configId: string;
        status: string;
        scenario: Record<string, unknown>;
      }[];
      assert.deepEqual(
        results.map((r) => [r.configId, r.status]),
        [
          [b.configId, 'created'],
          [a.configId, 'created'],
        ],
      );
      assert.equal(results[0]?.scenario.positionMode, 'hedging');
      assert.equal(results[0]?.scenario.configId, b.configId);
      assert.deepEqual(results[1]?.scenario.env, { FAST: '5', SLOW: '30' });
      assert.equal(results[1]?.scenario.initialCapital, 2000);
      // Configurations are never changed by a run.
      assert.deepEqual((await api.get(`/v1/configurations/${a.configId}`, { key: owner.key })).body.data, a);
      // Best effort: with one quota slot left, the first is created and the rest carry their error.
      for (let i = await count(); i < QUOTA - 1; i++) {
        await api.post(scenariosOf(strategyId), { key: owner.key, body: inline(version.data.versionId) });
      }
      const partial = await post({
        strategyVersionId: version.data.versionId,
        configIds: [a.configId, b.configId, a.configId],
      });
      assert.equal(partial.status, 201);
      assert.deepEqual(
        partial.body.data.map((r: { status: string; error?: { code: string } }) => r.error?.code ?? r.status),
        ['created', 'QUOTA_EXCEEDED', 'QUOTA_EXCEEDED'],
      );
      const none = await post({ strategyVersionId: version.data.versionId, configIds: [a.configId] });
      assert.equal(none.status, 403);
      assert.equal(none.body.error.code, 'QUOTA_EXCEEDED');
    });

    it('refuses comparisons that are empty, too long, duplicated, missing, foreign or not completed', async () => {
      const { api } = t.get();
      const { owner, strategyId, version } = await fixture(t.get(), 'compare');
      const queued = (
        await api.post(scenariosOf(strategyId), { key: owner.key, body: inline(version.data.versionId) })
      ).body.data.scenarioId;
      const compare = (scenarioIds: string[], key = owner.key) =>
        api.post('/v1/scenarios/compare', { key, body: { scenarioIds } });
      assert.equal((await compare([])).status, 400);
      assert.equal((await compare(Array.from({ length: 21 }, () => unknownId))).status, 400);
      assert.equal((await compare([queued, queued])).status, 400);
      assert.equal((await compare([queued, unknownId])).status, 404);
      const notDone = await compare([queued]);
      assert.equal(notDone.status, 400);
      assert.match(notDone.body.error.message, /QUEUED/);
      const other = await fixture(t.get(), 'compare-other');
      assert.equal((await compare([queued], other.owner.key)).status, 403);
      assert.equal(
        (await api.post('/v1/scenarios/compare', { body: { scenarioIds: [queued] } })).status,
        401,
      );
    });

    it('keeps every scenario endpoint to its owner', async () => {
      const { api } = t.get();
      const { owner, strategyId, version } = await fixture(t.get(), 'scope');
      const id = (
        await api.post(scenariosOf(strategyId), { key: owner.key, body: inline(version.data.versionId) })
      ).body.data.scenarioId;
      const intruder = await t.get().account('intruder');
      const key = intruder.key;
      const base = `${scenariosOf(strategyId)}/${id}`;
      const attempts = [
        api.get(`/v1/scenarios/${id}`, { key }),
        api.get(base, { key }),
        api.get(scenariosOf(strategyId), { key }),
        api.post(scenariosOf(strategyId), { key, body: inline(version.data.versionId) }),
        api.post(`${scenariosOf(strategyId)}/batch`, {
          key,
          body: { strategyVersionId: version.data.versionId, base: { subscriptions: btc, ...window } },
        }),
        api.post(`${scenariosOf(strategyId)}/from-configs`, {
          key,
          body: { strategyVersionId: version.data.versionId, configIds: [unknownId] },
        }),
        api.post(`${base}/cancel`, { key }),
        api.delete(base, { key }),
        api.get(`${base}/metadata`, { key }),
        api.get(`${base}/timeseries`, { key }),
        api.get(`${base}/trades`, { key }),
        api.get(`${base}/metrics`, { key }),
        api.get(`${base}/logs`, { key }),
        api.post('/v1/scenarios/compare', { key, body: { scenarioIds: [id] } }),
      ];
      for (const response of await Promise.all(attempts)) {
        assert.equal(response.status, 403, response.text);
        assert.equal(response.body.error.code, 'FORBIDDEN');
      }
      const theirs = await fixture(t.get(), 'scope-own');
      assert.deepEqual(
        (await api.get(scenariosOf(theirs.strategyId), { key: theirs.owner.key })).body.data,
        [],
        'lists never show other accounts’ scenarios',
      );
      assert.equal((await api.get(`/v1/scenarios/${id}`, { key: owner.key })).body.data.state, 'QUEUED');
    });

    it('auto-runs the bound active configurations when a new version’s image is pushed', async () => {
      const { api } = t.get();
      const { owner, strategyId } = await fixture(t.get(), 'auto-run');
      const config = (
        await api.post('/v1/configurations', {
          key: owner.key,
          body: { name: 'nightly', subscriptions: btc, ...window },
        })
      ).body.data;
      const inactive = (
        await api.post('/v1/configurations', {
          key: owner.key,
          body: { name: 'paused', subscriptions: btc, ...window, isActive: false },
        })
      ).body.data;
      const bound = await api.put(`/v1/strategies/${strategyId}/auto-run-configs`, {
        key: owner.key,
        body: { configIds: [config.configId, inactive.configId] },
      });
      assert.equal(bound.status, 200);
      const before = (await api.get(scenariosOf(strategyId), { key: owner.key })).body.data.length;
      const version = await pushPythonScript(api, owner.key, strategyId, 'print("v2")\n');
      let auto: { configId?: string; strategyVersionId: string; state: string }[] = [];
      for (let i = 0; i < 50 && auto.length === 0; i++) {
        const list = (await api.get(scenariosOf(strategyId), { key: owner.key })).body.data;
        auto = list.filter(
          (s: { strategyVersionId: string }) => s.strategyVersionId === version.data.versionId,
        );
        if (auto.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(auto.length, 1, 'one scenario: the active configuration only');
      assert.equal(auto[0]?.configId, config.configId);
      assert.equal(auto[0]?.state, 'QUEUED');
      assert.equal(before + 1, (await api.get(scenariosOf(strategyId), { key: owner.key })).body.data.length);
    });

    it('answers 401 without credentials on every scenario endpoint', async () => {
      const { api } = t.get();
      const { strategyId } = await fixture(t.get(), 'anonymous');
      const base = `${scenariosOf(strategyId)}/${unknownId}`;
      const attempts = [
        api.get(`/v1/scenarios/${unknownId}`),
        api.get(base),
        api.get(scenariosOf(strategyId)),
        api.post(scenariosOf(strategyId), { body: {} }),
        api.post(`${scenariosOf(strategyId)}/batch`, { body: {} }),
        api.post(`${scenariosOf(strategyId)}/from-configs`, { body: {} }),
        api.post(`${base}/cancel`),
        api.delete(base),
        api.get(`${base}/metadata`),
        api.get(`${base}/timeseries`),
        api.get(`${base}/trades`),
        api.get(`${base}/metrics`),
        api.get(`${base}/logs`, { key: 'not-a-key' }),
        api.post('/v1/scenarios/compare', { body: { scenarioIds: [unknownId] } }),
      ];
      for (const response of await Promise.all(attempts)) {
        assert.equal(response.status, 401, response.text);
        assert.equal(response.body.error.code, 'UNAUTHORIZED');
      }
    });

    it('reaches every status the spec lists for the scenario endpoints', () => {
      const { api } = t.get();
      const scoped = '/v1/strategies/{strategy_id}/scenarios';
      api.assertStatusesReached('GET /v1/scenarios/{scenario_id}', [200, 400, 401, 404]);
      api.assertStatusesReached(`GET ${scoped}`, [200, 400, 401]);
      api.assertStatusesReached(`POST ${scoped}`, [201, 400, 401, 403, 404]);
      api.assertStatusesReached(`POST ${scoped}/batch`, [201, 400, 401, 403, 404]);
      api.assertStatusesReached(`POST ${scoped}/from-configs`, [201, 400, 401, 403, 404]);
      api.assertStatusesReached(`GET ${scoped}/{scenario_id}`, [200, 400, 401, 404]);
      api.assertStatusesReached(`DELETE ${scoped}/{scenario_id}`, [204, 401, 404]);
      api.assertStatusesReached(`POST ${scoped}/{scenario_id}/cancel`, [200, 400, 401]);
      for (const file of ['metadata', 'timeseries', 'trades', 'metrics', 'logs']) {
        api.assertStatusesReached(
          `GET ${scoped}/{scenario_id}/${file}`,
          file === 'logs' ? [200, 401] : [400, 401],
        );
      }
      api.assertStatusesReached('POST /v1/scenarios/compare', [400, 401, 403, 404]);
    });
  });
}
