import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { storageBackends } from './support/storage-backends.ts';
import { withTestPlatform } from './support/test-platform.ts';

for (const backend of storageBackends()) {
  describe(`sign-in and API keys (${backend.name})`, () => {
    const t = withTestPlatform(backend);

    it('signs in with email and password and refuses anything else with 401', async () => {
      const { api, account } = t.get();
      const user = await account('login');
      const ok = await api.post('/v1/auth/login', {
        body: { email: user.email.toUpperCase(), password: user.password },
      });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.data.token.split('.').length, 3, 'a JWT');
      assert.ok(Date.parse(ok.body.data.expiresAt) > Date.now());

      const wrong = await api.post('/v1/auth/login', {
        body: { email: user.email, password: 'not-the-password' },
      });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.error.code, 'UNAUTHORIZED');
      const unknown = await api.post('/v1/auth/login', {
        body: { email: 'nobody@example.com', password: 'whatever1' },
      });
      assert.equal(unknown.status, 401);
      const malformed = await api.post('/v1/auth/login', { body: { email: user.email } });
      assert.equal(malformed.status, 400);
      assert.match(malformed.body.error.message, /password/);
    });

    it('mints a key shown once, stores only its hash, lists it by prefix and records its use', async () => {
      const { api, account, platform } = t.get();
      const user = await account('keys');
      const created = await api.post('/v1/api-keys', { session: user.session, body: { name: 'ci' } });
      assert.equal(created.status, 201);
      const { key, prefix, name, createdAt } = created.body.data;
      assert.equal(name, 'ci');
      assert.equal(prefix, key.slice(0, 8));
      assert.match(key, /^[A-Za-z0-9]{40}$/);
      assert.ok(createdAt);

      const rows = await platform.ctx.db.execute(sql`select * from api_keys where prefix = ${prefix}`);
      const stored = JSON.stringify((rows as unknown as { rows: unknown[] }).rows);
      assert.equal(stored.includes(key), false, 'the key value is not stored');

      let listed = await api.get('/v1/api-keys', { session: user.session });
      assert.equal(listed.status, 200);
      let entry = listed.body.data.find((k: { prefix: string }) => k.prefix === prefix);
      assert.deepEqual(
        Object.keys(entry).sort(),
        ['createdAt', 'name', 'prefix'],
        'never the key; no lastUsedAt yet',
      );

      assert.equal((await api.get('/v1/strategies', { key })).status, 200);
      listed = await api.get('/v1/api-keys', { session: user.session });
      entry = listed.body.data.find((k: { prefix: string }) => k.prefix === prefix);
      assert.ok(entry.lastUsedAt, 'lastUsedAt appears once the key is used');
    });

    it('revokes a key with effect on the very next request', async () => {
      const { api, account } = t.get();
      const user = await account('revoke');
      const { key, prefix } = (
        await api.post('/v1/api-keys', { session: user.session, body: { name: 'temp' } })
      ).body.data;
      assert.equal((await api.get('/v1/strategies', { key })).status, 200);
      const revoked = await api.delete(`/v1/api-keys/${prefix}`, { session: user.session });
      assert.equal(revoked.status, 204);
      assert.equal(revoked.text, '');
      const after = await api.get('/v1/strategies', { key });
      assert.equal(after.status, 401);
      assert.equal((await api.delete(`/v1/api-keys/${prefix}`, { session: user.session })).status, 404);
      const listed = await api.get('/v1/api-keys', { session: user.session });
      assert.equal(
        listed.body.data.some((k: { prefix: string }) => k.prefix === prefix),
        false,
      );
    });

    it('manages keys only with a session, never with an API key', async () => {
      const { api, account } = t.get();
      const user = await account('session-only');
      assert.equal((await api.get('/v1/api-keys', { key: user.key })).status, 401);
      assert.equal((await api.post('/v1/api-keys', { key: user.key, body: { name: 'x' } })).status, 401);
      assert.equal((await api.delete(`/v1/api-keys/${user.key.slice(0, 8)}`, { key: user.key })).status, 401);
      assert.equal(
        (await api.get('/v1/api-keys', { headers: { authorization: `Bearer ${user.key}` } })).status,
        401,
      );
      assert.equal((await api.get('/v1/api-keys')).status, 401);
      assert.equal((await api.post('/v1/api-keys', { body: { name: 'x' } })).status, 401);
      assert.equal((await api.delete('/v1/api-keys/abcdefgh')).status, 401);
      const forged = `${user.session.slice(0, -4)}AAAA`;
      assert.equal((await api.get('/v1/api-keys', { session: forged })).status, 401);
      assert.equal((await api.get('/v1/strategies', { session: forged })).status, 401);
      assert.equal(
        (await api.get('/v1/strategies', { session: user.session })).status,
        200,
        'the web app uses its session',
      );
      assert.equal((await api.get('/v1/strategies', { key: user.key })).status, 200);
    });

    it('validates key bodies and prefixes, and scopes keys to their owner', async () => {
      const { api, account } = t.get();
      const alice = await account('alice');
      const bob = await account('bob');
      for (const body of [{}, { name: '' }, { name: null }, { name: 'x', scope: 'all' }]) {
        const response = await api.post('/v1/api-keys', { session: alice.session, body });
        assert.equal(response.status, 400, JSON.stringify(body));
      }
      for (const prefix of ['short', 'abcdefghi', 'abc-efgh']) {
        const response = await api.delete(`/v1/api-keys/${prefix}`, { session: alice.session });
        assert.equal(response.status, 400, prefix);
        assert.match(response.body.error.message, /prefix/);
      }
      const bobsPrefix = bob.key.slice(0, 8);
      assert.equal((await api.delete(`/v1/api-keys/${bobsPrefix}`, { session: alice.session })).status, 404);
      assert.equal((await api.get('/v1/strategies', { key: bob.key })).status, 200, "bob's key still works");
      const alices = await api.get('/v1/api-keys', { session: alice.session });
      assert.equal(
        alices.body.data.some((k: { prefix: string }) => k.prefix === bobsPrefix),
        false,
      );
    });

    it('reaches every status the spec lists for the key endpoints', () => {
      const { api } = t.get();
      api.assertStatusesReached('GET /v1/api-keys', [200, 401]);
      api.assertStatusesReached('POST /v1/api-keys', [201, 400, 401]);
      api.assertStatusesReached('DELETE /v1/api-keys/{prefix}', [204, 400, 401, 404]);
    });
  });
}
