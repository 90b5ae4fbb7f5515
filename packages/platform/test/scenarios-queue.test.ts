import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CursorCodec, openDatabase, ScenarioRepository } from '@hindsight/platform';
import { pushPythonScript, SLOW_ACKS } from './support/scenario-images.ts';
import { postgresServer } from './support/storage-backends.ts';
import { withTestPlatform } from './support/test-platform.ts';

/**
 * The queue across processes, on a real PostgreSQL server: concurrent claims from separate connection
 * pools never take one scenario twice (FOR UPDATE SKIP LOCKED). What becomes of a killed or stopped
 * worker's scenario is in scenarios-attempts.test.ts.
 */
const window = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-20T00:00:00Z' };
const btc = [{ instrument: 'C:BTCUSD', events: ['candle_1m'] }];

describe('scenario queue across processes (postgres)', () => {
  const t = withTestPlatform(postgresServer(), {
    settings: { scenarioQuota: '100' },
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
});
