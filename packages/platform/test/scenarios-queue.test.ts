import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CursorCodec, openDatabase, ScenarioRepository } from '@hindsight/platform';
import { pushPythonScript, SLOW_ACKS } from './support/scenario-images.ts';
import { postgresServer } from './support/storage-backends.ts';
import { withTestPlatform } from './support/test-platform.ts';

/**
 * The queue across processes, on a real PostgreSQL server: concurrent claims from separate connection
 * pools never take one scenario twice (FOR UPDATE SKIP LOCKED), and a worker process killed mid-run
 * leaves no scenario behind: its lease lapses and the scenario ends FAILED `platform`.
 */
const window = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-20T00:00:00Z' };
const btc = [{ instrument: 'C:BTCUSD', events: ['candle_1m'] }];
const workerScript = fileURLToPath(new URL('./support/worker-process.ts', import.meta.url));

describe('scenario queue across processes (postgres)', () => {
  const t = withTestPlatform(postgresServer(), {
    settings: { scenarioQuota: '100', leaseSeconds: '2' },
  });

  async function queued(count: number) {
    const { api } = t.get();
    const owner = await t.get().account('queue');
    const strategyId = (await api.post('/v1/strategies', { key: owner.key, body: { name: 'q' } })).body.data
      .strategyId;
    const version = await pushPythonScript(api, owner.key, strategyId, SLOW_ACKS);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await api.post(`/v1/strategies/${strategyId}/scenarios`, {
        key: owner.key,
        body: { strategyVersionId: version.data.versionId, subscriptions: btc, ...window },
      });
      assert.equal(created.status, 201, created.text);
      ids.push(created.body.data.scenarioId);
    }
    return { owner, strategyId, ids };
  }

  it('never gives one scenario to two claimers, however many claim at once', async () => {
    const { platform, store } = t.get();
    const { ids } = await queued(12);
    const second = await openDatabase({ kind: 'postgres', url: store.databaseUrl as string });
    try {
      const other = new ScenarioRepository(second.db, new CursorCodec(new Uint8Array(32)));
      const claims = await Promise.all(
        Array.from({ length: 14 }, (_, i) =>
          (i % 2 === 0 ? platform.ctx.scenarios : other).claim(`claimer-${i % 2}`, 60_000),
        ),
      );
      const claimed = claims.filter((c) => c !== undefined).map((c) => c.scenarioId);
      assert.equal(claimed.length, 12, 'every queued scenario was claimed, and two claims found none');
      assert.deepEqual([...claimed].sort(), [...ids].sort(), 'each exactly once');
      for (const [i, claim] of claims.entries()) {
        if (!claim) continue;
        assert.equal(claim.state, 'PENDING');
        // Only the claimer holds it: the other's lease renewal and failure do not touch it.
        assert.deepEqual(await other.renewLeases(`claimer-${(i + 1) % 2}`, [claim.scenarioId], 60_000), [
          claim.scenarioId,
        ]);
        assert.ok(
          await platform.ctx.scenarios.fail(claim.scenarioId, `claimer-${i % 2}`, 'platform', 'cleanup'),
        );
      }
    } finally {
      await second.close();
    }
  });

  it('fails the scenario of a worker process killed mid-run as a platform error', async () => {
    const { platform, store, api } = t.get();
    const { owner, ids } = await queued(1);
    const id = ids[0] as string;
    let child: ChildProcess | undefined;
    try {
      child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', workerScript], {
        env: {
          ...process.env,
          DATABASE_URL: store.databaseUrl,
          HINDSIGHT_DATA_DIR: store.dataDir,
          HINDSIGHT_REGISTRY_URL: platform.url,
          HINDSIGHT_WORKER_LEASE_SECONDS: '2',
          HINDSIGHT_WORKERS: '1',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const deadline = Date.now() + 300_000; // a bound for a loaded machine, not an expectation
      let scenario = (await api.get(`/v1/scenarios/${id}`, { key: owner.key })).body.data;
      while (scenario.state !== 'RUNNING' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        scenario = (await api.get(`/v1/scenarios/${id}`, { key: owner.key })).body.data;
      }
      assert.equal(scenario.state, 'RUNNING', 'the worker process took the scenario');
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
      while (scenario.state === 'RUNNING' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        scenario = (await api.get(`/v1/scenarios/${id}`, { key: owner.key })).body.data;
      }
      assert.equal(scenario.state, 'FAILED');
      assert.equal(scenario.errorType, 'platform');
      assert.match(scenario.errorMessage, /worker/);
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
