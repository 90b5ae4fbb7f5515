import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storageBackends } from './support/storage-backends.ts';
import { tamperedCursor } from './support/tampered-cursor.ts';
import { withTestPlatform } from './support/test-platform.ts';

for (const backend of storageBackends()) {
  describe(`strategies (${backend.name})`, () => {
    const t = withTestPlatform(backend);

    it('creates, reads, updates and archives a strategy with the documented record', async () => {
      const { api, account } = t.get();
      const owner = await account('strategist');
      const created = await api.post('/v1/strategies', {
        key: owner.key,
        body: { name: 'Momentum', description: 'v1' },
      });
      assert.equal(created.status, 201);
      const strategy = created.body.data;
      assert.equal(strategy.name, 'Momentum');
      assert.equal(strategy.description, 'v1');
      assert.equal(strategy.ownerId, owner.userId);
      assert.equal(strategy.createdBy, owner.userId);
      assert.equal(strategy.status, 'active');
      assert.match(strategy.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const read = await api.get(`/v1/strategies/${strategy.strategyId}`, { key: owner.key });
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.data, strategy);

      const renamed = await api.put(`/v1/strategies/${strategy.strategyId}`, {
        key: owner.key,
        body: { name: 'Mean reversion' },
      });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.data.name, 'Mean reversion');
      assert.equal(renamed.body.data.description, 'v1', 'fields not named keep their value');

      const archived = await api.delete(`/v1/strategies/${strategy.strategyId}`, { key: owner.key });
      assert.equal(archived.status, 204);
      assert.equal(archived.text, '');
      const again = await api.delete(`/v1/strategies/${strategy.strategyId}`, { key: owner.key });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'CONFLICT');

      const stillReadable = await api.get(`/v1/strategies/${strategy.strategyId}`, { key: owner.key });
      assert.equal(stillReadable.body.data.status, 'archived');
      const refusedUpdate = await api.put(`/v1/strategies/${strategy.strategyId}`, {
        key: owner.key,
        body: { name: 'x' },
      });
      assert.equal(refusedUpdate.status, 409);

      const listed = await api.get('/v1/strategies', { key: owner.key });
      assert.equal(listed.body.data.length, 0, 'archived strategies are left out of lists');
      const withArchived = await api.get('/v1/strategies', {
        key: owner.key,
        query: { includeArchived: 'true' },
      });
      assert.equal(withArchived.body.data.length, 1);
    });

    it('omits unset optional fields instead of sending null', async () => {
      const { api, account } = t.get();
      const owner = await account();
      const created = await api.post('/v1/strategies', { key: owner.key, body: { name: 'Bare' } });
      assert.equal(created.status, 201);
      assert.equal('description' in created.body.data, false);
      assert.equal(created.text.includes('null'), false);
    });

    it('rejects bad bodies with the offending field named', async () => {
      const { api, account } = t.get();
      const owner = await account();
      const cases: [unknown, string][] = [
        [{}, 'name'],
        [{ name: '   ' }, 'name'],
        [{ name: null }, 'name'],
        [{ name: 'ok', description: null }, 'description'],
        [{ name: 'ok', colour: 'red' }, 'colour'],
        [{ name: 7 }, 'name'],
        [[], 'body'],
      ];
      for (const [body, field] of cases) {
        const response = await api.post('/v1/strategies', { key: owner.key, body });
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.equal(response.body.error.code, 'BAD_REQUEST');
        assert.ok(
          response.body.error.message.includes(field),
          `${response.body.error.message} names ${field}`,
        );
      }
      const strategy = (await api.post('/v1/strategies', { key: owner.key, body: { name: 'S' } })).body.data;
      const empty = await api.put(`/v1/strategies/${strategy.strategyId}`, { key: owner.key, body: {} });
      assert.equal(empty.status, 400);
    });

    it('pages newest first with opaque cursors that are stable under concurrent inserts', async () => {
      const { api, account } = t.get();
      const owner = await account('pager');
      const names: string[] = [];
      for (let i = 0; i < 7; i++) {
        names.push(`s${i}`);
        await api.post('/v1/strategies', { key: owner.key, body: { name: `s${i}` } });
      }
      const first = await api.get('/v1/strategies', { key: owner.key, query: { limit: '3' } });
      assert.deepEqual(
        first.body.data.map((s: { name: string }) => s.name),
        ['s6', 's5', 's4'],
      );
      assert.equal(typeof first.body.nextCursor, 'string');
      // A strategy created between pages must neither shift nor repeat the following page.
      await api.post('/v1/strategies', { key: owner.key, body: { name: 'late' } });
      const second = await api.get('/v1/strategies', {
        key: owner.key,
        query: { limit: '3', cursor: first.body.nextCursor },
      });
      assert.deepEqual(
        second.body.data.map((s: { name: string }) => s.name),
        ['s3', 's2', 's1'],
      );
      const third = await api.get('/v1/strategies', {
        key: owner.key,
        query: { limit: '3', cursor: second.body.nextCursor },
      });
      assert.deepEqual(
        third.body.data.map((s: { name: string }) => s.name),
        ['s0'],
      );
      assert.equal('nextCursor' in third.body, false, 'the last page has no nextCursor');

      for (const limit of ['0', '101', 'ten', '1.5']) {
        const bad = await api.get('/v1/strategies', { key: owner.key, query: { limit } });
        assert.equal(bad.status, 400, `limit=${limit}`);
        assert.match(bad.body.error.message, /limit/);
      }
      const forged = await api.get('/v1/strategies', {
        key: owner.key,
        query: { cursor: 'eyJmb28iOjF9.abc' },
      });
      assert.equal(forged.status, 400);
      assert.match(forged.body.error.message, /cursor/);
      const tampered = tamperedCursor(first.body.nextCursor);
      assert.equal(
        (await api.get('/v1/strategies', { key: owner.key, query: { cursor: tampered } })).status,
        400,
      );
      const defaultPage = await api.get('/v1/strategies', { key: owner.key });
      assert.equal(defaultPage.body.data.length, 8);
    });

    it('checks auth, then the id, then ownership, then the body (decision 35)', async () => {
      const { api, account } = t.get();
      const alice = await account('alice');
      const bob = await account('bob');
      const mine = (await api.post('/v1/strategies', { key: alice.key, body: { name: 'Alice' } })).body.data;

      assert.equal((await api.get('/v1/strategies')).status, 401);
      assert.equal((await api.post('/v1/strategies', { body: { name: 'x' } })).status, 401);
      assert.equal((await api.put(`/v1/strategies/${mine.strategyId}`, { body: { name: 'x' } })).status, 401);
      assert.equal((await api.delete(`/v1/strategies/${mine.strategyId}`)).status, 401);
      assert.equal(
        (await api.get(`/v1/strategies/${mine.strategyId}`, { key: 'wrong-key-value' })).status,
        401,
      );
      assert.equal((await api.get('/v1/strategies/not-a-uuid', { key: alice.key })).status, 400);
      const missing = '00000000-0000-4000-8000-000000000000';
      assert.equal((await api.get(`/v1/strategies/${missing}`, { key: alice.key })).status, 404);
      assert.equal(
        (await api.put(`/v1/strategies/${missing}`, { key: alice.key, body: { bad: 1 } })).status,
        404,
      );
      assert.equal((await api.delete(`/v1/strategies/${missing}`, { key: alice.key })).status, 404);
      assert.equal(
        (await api.put(`/v1/strategies/not-a-uuid`, { key: alice.key, body: { name: 'n' } })).status,
        400,
      );
      assert.equal((await api.delete(`/v1/strategies/not-a-uuid`, { key: alice.key })).status, 400);

      const foreign = await api.get(`/v1/strategies/${mine.strategyId}`, { key: bob.key });
      assert.equal(foreign.status, 403);
      assert.equal(foreign.body.error.code, 'FORBIDDEN');
      assert.equal(
        (await api.put(`/v1/strategies/${mine.strategyId}`, { key: bob.key, body: { name: 'Bob' } })).status,
        403,
      );
      assert.equal((await api.delete(`/v1/strategies/${mine.strategyId}`, { key: bob.key })).status, 403);
      const bobs = await api.get('/v1/strategies', { key: bob.key, query: { includeArchived: 'true' } });
      assert.equal(bobs.body.data.length, 0, "another account's strategies are never listed");
      const unchanged = await api.get(`/v1/strategies/${mine.strategyId}`, { key: alice.key });
      assert.equal(unchanged.body.data.name, 'Alice');
      assert.equal(unchanged.body.data.status, 'active');
      const badBody = await api.put(`/v1/strategies/${mine.strategyId}`, {
        key: alice.key,
        body: { name: 5 },
      });
      assert.equal(badBody.status, 400);
    });

    it('accepts the API key as a bearer token too', async () => {
      const { api, account } = t.get();
      const owner = await account();
      const response = await api.get('/v1/strategies', { headers: { authorization: `Bearer ${owner.key}` } });
      assert.equal(response.status, 200);
    });

    it('reaches every status the spec lists for the strategy endpoints', () => {
      const { api } = t.get();
      api.assertStatusesReached('GET /v1/strategies', [200, 400, 401]);
      api.assertStatusesReached('POST /v1/strategies', [201, 400, 401]);
      api.assertStatusesReached('GET /v1/strategies/{strategy_id}', [200, 400, 401, 404]);
      api.assertStatusesReached('PUT /v1/strategies/{strategy_id}', [200, 400, 401, 404]);
      api.assertStatusesReached('DELETE /v1/strategies/{strategy_id}', [204, 400, 401, 404, 409]);
    });
  });
}

describe('text PostgreSQL cannot store', () => {
  const [backend] = storageBackends();
  if (!backend) throw new Error('no storage backend');
  const t = withTestPlatform(backend);

  it('is refused in any body, naming the field, and nothing is written', async () => {
    const { api, account } = t.get();
    const owner = await account('text');
    for (const name of ['nul\u0000byte', 'lone \ud800 surrogate']) {
      const response = await api.post('/v1/strategies', { key: owner.key, body: { name } });
      assert.equal(response.status, 400);
      assert.match(response.body.error.message, /^name: /);
    }
    const keyName = await api.post('/v1/api-keys', { session: owner.session, body: { name: 'x\u0000' } });
    assert.equal(keyName.status, 400);
    assert.equal((await api.get('/v1/strategies', { key: owner.key })).body.data.length, 0);
  });
});
