import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildStrategyImage, type CreatedVersion, pushToVersion } from './support/images.ts';
import { storageBackends } from './support/storage-backends.ts';
import { type Account, type TestPlatform, withTestPlatform } from './support/test-platform.ts';

const missing = '00000000-0000-4000-8000-000000000000';
const versionsPath = (strategyId: string) => `/v1/strategies/${strategyId}/versions`;

async function strategyOf(t: TestPlatform, owner: Account, name = 'Strategy'): Promise<string> {
  const created = await t.api.post('/v1/strategies', { key: owner.key, body: { name } });
  return created.body.data.strategyId;
}

async function createVersion(
  t: TestPlatform,
  owner: Account,
  strategyId: string,
  body: unknown = {},
): Promise<CreatedVersion> {
  const created = await t.api.post(versionsPath(strategyId), { key: owner.key, body });
  assert.equal(created.status, 201, created.text);
  return created.body;
}

const blobFile = (t: TestPlatform, digest: string) =>
  join(t.store.dataDir, 'registry', 'blobs', 'sha256', digest.slice(7, 9), digest.slice(7));

for (const backend of storageBackends()) {
  describe(`strategy versions (${backend.name})`, () => {
    const t = withTestPlatform(backend);

    it('creates a version from {} with repositoryUrl and accessToken beside data (decisions 19d, 34)', async () => {
      const { api, platform } = t.get();
      const owner = await t.get().account('versions');
      const strategyId = await strategyOf(t.get(), owner);
      const response = await api.post(versionsPath(strategyId), { key: owner.key, body: {} });
      assert.equal(response.status, 201);
      assert.deepEqual(Object.keys(response.body).sort(), [
        'accessToken',
        'accessTokenExpiresAt',
        'data',
        'repositoryUrl',
      ]);
      const version = response.body.data;
      assert.deepEqual(Object.keys(version).sort(), [
        'createdAt',
        'imageStatus',
        'strategyId',
        'updatedAt',
        'versionId',
      ]);
      assert.equal(version.strategyId, strategyId);
      assert.equal(version.imageStatus, 'awaiting_push');
      assert.equal(response.text.includes('null'), false, 'unset fields are omitted, never null');
      const { host } = new URL(platform.url);
      assert.equal(response.body.repositoryUrl, `${host}/v/${version.versionId}`);
      assert.equal(response.body.accessToken.split('.').length, 3);
      const expires = Date.parse(response.body.accessTokenExpiresAt) - Date.now();
      assert.ok(expires > 50 * 60 * 1000 && expires <= 60 * 60 * 1000, 'short-lived: one hour');

      const read = await api.get(`${versionsPath(strategyId)}/${version.versionId}`, { key: owner.key });
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, { data: version });

      const described = await api.post(versionsPath(strategyId), {
        key: owner.key,
        body: { label: 'v1.2', description: 'faster SMA', metadata: { git: 'abc123', params: { fast: 10 } } },
      });
      assert.equal(described.status, 201);
      assert.equal(described.body.data.label, 'v1.2');
      assert.equal(described.body.data.description, 'faster SMA');
      assert.deepEqual(described.body.data.metadata, { git: 'abc123', params: { fast: 10 } });
    });

    it('the accessToken is no API key and no session', async () => {
      const { api } = t.get();
      const owner = await t.get().account();
      const created = await createVersion(t.get(), owner, await strategyOf(t.get(), owner));
      const asKey = await api.get('/v1/strategies', { key: created.accessToken });
      assert.equal(asKey.status, 401);
      const asBearer = await api.get('/v1/strategies', {
        headers: { authorization: `Bearer ${created.accessToken}` },
      });
      assert.equal(asBearer.status, 401);
    });

    it('rejects bad bodies naming the field, and writes nothing', async () => {
      const { api } = t.get();
      const owner = await t.get().account();
      const strategyId = await strategyOf(t.get(), owner);
      const cases: [unknown, string][] = [
        [{ label: null }, 'label'],
        [{ label: '   ' }, 'label'],
        [{ label: 'x'.repeat(201) }, 'label'],
        [{ description: 5 }, 'description'],
        [{ metadata: null }, 'metadata'],
        [{ metadata: [1, 2] }, 'metadata'],
        [{ metadata: 'text' }, 'metadata'],
        [{ metadata: { a: { b: null } } }, 'metadata.a.b'],
        [{ metadata: { blob: 'x'.repeat(17 * 1024) } }, 'metadata'],
        [{ imageDigest: 'sha256:00' }, 'imageDigest'],
        [[], 'body'],
      ];
      for (const [body, field] of cases) {
        const response = await api.post(versionsPath(strategyId), { key: owner.key, body });
        assert.equal(response.status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(response.body.error.code, 'BAD_REQUEST');
        assert.ok(
          response.body.error.message.includes(field),
          `${response.body.error.message} names ${field}`,
        );
      }
      const malformed = await api.post(versionsPath(strategyId), {
        key: owner.key,
        rawBody: '{"label":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(malformed.status, 400);
      const listed = await api.get(versionsPath(strategyId), { key: owner.key });
      assert.deepEqual(listed.body.data, [], 'no version was created by a refused request');
    });

    it('updates label, description and metadata (replaced whole; {} clears it)', async () => {
      const { api } = t.get();
      const owner = await t.get().account();
      const strategyId = await strategyOf(t.get(), owner);
      const created = await createVersion(t.get(), owner, strategyId, {
        label: 'one',
        description: 'first',
        metadata: { a: 1, b: 2 },
      });
      const path = `${versionsPath(strategyId)}/${created.data.versionId}`;
      const relabelled = await api.patch(path, { key: owner.key, body: { label: 'two' } });
      assert.equal(relabelled.status, 200);
      assert.equal(relabelled.body.data.label, 'two');
      assert.equal(relabelled.body.data.description, 'first', 'fields not named keep their value');
      assert.deepEqual(relabelled.body.data.metadata, { a: 1, b: 2 });
      assert.ok(relabelled.body.data.updatedAt >= created.data.updatedAt);

      const replaced = await api.patch(path, { key: owner.key, body: { metadata: { c: [1, 'x'] } } });
      assert.deepEqual(replaced.body.data.metadata, { c: [1, 'x'] }, 'metadata is replaced whole');
      const cleared = await api.patch(path, { key: owner.key, body: { metadata: {}, description: '' } });
      assert.equal('metadata' in cleared.body.data, false, '{} clears metadata');
      assert.equal(cleared.body.data.description, '');
      assert.equal(cleared.body.data.imageStatus, 'awaiting_push');

      for (const body of [{}, { label: null }, { imageStatus: 'ready' }, { versionId: missing }]) {
        const refused = await api.patch(path, { key: owner.key, body });
        assert.equal(refused.status, 400, JSON.stringify(body));
      }
      const unchanged = await api.get(path, { key: owner.key });
      assert.deepEqual(unchanged.body.data, cleared.body.data, 'a refused PATCH changes nothing');
    });

    it('an archived strategy refuses new versions and changes with 409, stays readable and evictable', async () => {
      const { api } = t.get();
      const owner = await t.get().account();
      const strategyId = await strategyOf(t.get(), owner);
      const created = await createVersion(t.get(), owner, strategyId, { label: 'kept' });
      const path = `${versionsPath(strategyId)}/${created.data.versionId}`;
      assert.equal((await api.delete(`/v1/strategies/${strategyId}`, { key: owner.key })).status, 204);

      const refused = await api.post(versionsPath(strategyId), { key: owner.key, body: {} });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.error.code, 'CONFLICT');
      assert.match(refused.body.error.message, /archived/);
      const badBody = await api.post(versionsPath(strategyId), { key: owner.key, body: { label: 7 } });
      assert.equal(badBody.status, 400, 'decision 35: the body is checked before the state');
      const patched = await api.patch(path, { key: owner.key, body: { label: 'changed' } });
      assert.equal(patched.status, 409);

      assert.equal((await api.get(path, { key: owner.key })).body.data.label, 'kept');
      const listed = await api.get(versionsPath(strategyId), { key: owner.key });
      assert.equal(listed.body.data.length, 1);
      const evicted = await api.delete(`${path}/image`, { key: owner.key });
      assert.equal(evicted.status, 200);
      assert.equal(evicted.body.data.imageStatus, 'evicted');
    });

    it('lists newest first with cursors bound to the strategy and an imageStatus filter', async () => {
      const { api, platform } = t.get();
      const owner = await t.get().account();
      const strategyId = await strategyOf(t.get(), owner);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await createVersion(t.get(), owner, strategyId, { label: `v${i}` })).data.versionId);
      const first = await api.get(versionsPath(strategyId), { key: owner.key, query: { limit: '2' } });
      assert.equal(first.status, 200);
      assert.deepEqual(
        first.body.data.map((v: { label: string }) => v.label),
        ['v4', 'v3'],
      );
      const second = await api.get(versionsPath(strategyId), {
        key: owner.key,
        query: { limit: '2', cursor: first.body.nextCursor },
      });
      assert.deepEqual(
        second.body.data.map((v: { label: string }) => v.label),
        ['v2', 'v1'],
      );
      const last = await api.get(versionsPath(strategyId), {
        key: owner.key,
        query: { limit: '2', cursor: second.body.nextCursor },
      });
      assert.deepEqual(
        last.body.data.map((v: { label: string }) => v.label),
        ['v0'],
      );
      assert.equal('nextCursor' in last.body, false);

      const other = await strategyOf(t.get(), owner, 'Other');
      const foreignCursor = await api.get(versionsPath(other), {
        key: owner.key,
        query: { cursor: first.body.nextCursor },
      });
      assert.equal(foreignCursor.status, 400, "another strategy's cursor is refused");
      assert.equal(
        (await api.get(versionsPath(strategyId), { key: owner.key, query: { limit: '0' } })).status,
        400,
      );
      assert.equal(
        (await api.get(versionsPath(strategyId), { key: owner.key, query: { imageStatus: 'gone' } })).status,
        400,
      );

      // One version gets an image over the real registry, one is evicted.
      const readyId = ids[1] as string;
      const pushed = await createVersion(t.get(), owner, strategyId, { label: 'pushed' });
      const image = await buildStrategyImage({ 'main.py': 'print("listed")\n' });
      const digest = await pushToVersion(platform.url, pushed, image);
      assert.equal(digest, image.manifest.digest);
      await api.delete(`${versionsPath(strategyId)}/${readyId}/image`, { key: owner.key });
      const byStatus = async (imageStatus: string) =>
        (await api.get(versionsPath(strategyId), { key: owner.key, query: { imageStatus } })).body.data.map(
          (v: { label: string }) => v.label,
        );
      assert.deepEqual(await byStatus('ready'), ['pushed']);
      assert.deepEqual(await byStatus('evicted'), ['v1']);
      assert.deepEqual(await byStatus('awaiting_push'), ['v4', 'v3', 'v2', 'v0']);
      const ready = await api.get(`${versionsPath(strategyId)}/${pushed.data.versionId}`, { key: owner.key });
      assert.equal(ready.body.data.imageDigest, digest);
    });

    it('evicts for good: status evicted, digest kept, unshared blobs deleted, again is a no-op', async () => {
      const { api, platform } = t.get();
      const owner = await t.get().account();
      const strategyId = await strategyOf(t.get(), owner);
      const files = { 'main.py': 'print("evict me")\n' };
      const first = await createVersion(t.get(), owner, strategyId);
      const second = await createVersion(t.get(), owner, strategyId);
      const imageA = await buildStrategyImage(files, ['python3', 'main.py']);
      const imageB = await buildStrategyImage(files, ['python3', '-u', 'main.py']);
      assert.equal(imageA.layer.digest, imageB.layer.digest, 'same folder, same layer');
      await pushToVersion(platform.url, first, imageA);
      await pushToVersion(platform.url, second, imageB);

      const path = `${versionsPath(strategyId)}/${first.data.versionId}`;
      const evicted = await api.delete(`${path}/image`, { key: owner.key });
      assert.equal(evicted.status, 200);
      assert.equal(evicted.body.data.imageStatus, 'evicted');
      assert.equal(evicted.body.data.imageDigest, imageA.manifest.digest, 'the digest stays for provenance');
      assert.equal(existsSync(blobFile(t.get(), imageA.config.digest)), false, 'its own config is deleted');
      assert.equal(existsSync(blobFile(t.get(), imageA.layer.digest)), true, 'the shared layer stays');
      const again = await api.delete(`${path}/image`, { key: owner.key });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body.data, evicted.body.data, 'evicting again changes nothing');

      const unpushed = await createVersion(t.get(), owner, strategyId);
      const closed = await api.delete(`${versionsPath(strategyId)}/${unpushed.data.versionId}/image`, {
        key: owner.key,
      });
      assert.equal(closed.body.data.imageStatus, 'evicted', 'an awaiting version can be closed too');
      assert.equal('imageDigest' in closed.body.data, false);

      await api.delete(`${versionsPath(strategyId)}/${second.data.versionId}/image`, { key: owner.key });
      assert.equal(
        existsSync(blobFile(t.get(), imageA.layer.digest)),
        false,
        'the last user takes the layer',
      );
    });

    it('checks auth, both ids, existence and ownership, then the body (decisions 28, 35)', async () => {
      const { api } = t.get();
      const alice = await t.get().account('alice');
      const bob = await t.get().account('bob');
      const strategyId = await strategyOf(t.get(), alice);
      const otherStrategy = await strategyOf(t.get(), alice, 'Other');
      const version = (await createVersion(t.get(), alice, strategyId)).data.versionId;
      const bobStrategy = await strategyOf(t.get(), bob);
      const bobVersion = (await createVersion(t.get(), bob, bobStrategy)).data.versionId;
      const one = (s: string, v: string) => `${versionsPath(s)}/${v}`;

      for (const [method, path] of [
        ['GET', versionsPath(strategyId)],
        ['POST', versionsPath(strategyId)],
        ['GET', one(strategyId, version)],
        ['PATCH', one(strategyId, version)],
        ['DELETE', `${one(strategyId, version)}/image`],
      ] as const) {
        const body = method === 'POST' || method === 'PATCH' ? { label: 'x' } : undefined;
        assert.equal(
          (await api.request(method, path, { body })).status,
          401,
          `${method} ${path} without key`,
        );
        assert.equal(
          (await api.request(method, path, { body, key: 'not-a-key' })).status,
          401,
          `${method} ${path} bad key`,
        );
      }

      const status = async (method: string, path: string, body?: unknown, key = alice.key) =>
        (await api.request(method, path, { key, ...(body !== undefined && { body }) })).status;
      assert.equal(await status('GET', versionsPath('nope')), 400);
      assert.equal(await status('POST', versionsPath('nope'), {}), 400);
      assert.equal(await status('GET', one(strategyId, 'nope')), 400);
      assert.equal(await status('GET', one(missing, 'nope')), 400, 'both ids are checked before any lookup');
      assert.equal(await status('PATCH', one(strategyId, 'nope'), { label: 'x' }), 400);
      assert.equal(await status('DELETE', `${one(strategyId, 'nope')}/image`), 400);

      assert.equal(await status('GET', versionsPath(missing)), 404);
      assert.equal(await status('POST', versionsPath(missing), { label: 5 }), 404, '404 before the body');
      assert.equal(await status('GET', one(strategyId, missing)), 404);
      assert.equal(await status('GET', one(otherStrategy, version)), 404, 'a version of another strategy');
      assert.equal(await status('PATCH', one(strategyId, missing), { label: 5 }), 404);
      assert.equal(await status('DELETE', `${one(strategyId, missing)}/image`), 404);

      assert.equal(await status('GET', versionsPath(bobStrategy)), 403);
      assert.equal(await status('POST', versionsPath(bobStrategy), {}), 403);
      assert.equal(await status('GET', one(bobStrategy, bobVersion)), 403);
      assert.equal(await status('GET', one(strategyId, bobVersion)), 403, "another account's version id");
      assert.equal(await status('PATCH', one(strategyId, bobVersion), { label: 'mine' }), 403);
      assert.equal(await status('DELETE', `${one(bobStrategy, bobVersion)}/image`), 403);
      const forbidden = await api.get(one(strategyId, bobVersion), { key: alice.key });
      assert.equal(forbidden.body.error.code, 'FORBIDDEN');

      const bobs = await api.get(one(bobStrategy, bobVersion), { key: bob.key });
      assert.equal(bobs.body.data.imageStatus, 'awaiting_push', "bob's version is untouched");
      assert.equal('label' in bobs.body.data, false);
      const uppercase = await api.get(one(strategyId.toUpperCase(), version.toUpperCase()), {
        key: alice.key,
      });
      assert.equal(uppercase.status, 200, 'UUIDs are case-insensitive');
    });

    it('reaches every status of the version endpoints', () => {
      const { api } = t.get();
      const versions = '/v1/strategies/{strategy_id}/versions';
      api.assertStatusesReached(`GET ${versions}`, [200, 400, 401, 403, 404]);
      api.assertStatusesReached(`POST ${versions}`, [201, 400, 401, 403, 404, 409]);
      api.assertStatusesReached(`GET ${versions}/{version_id}`, [200, 400, 401, 403, 404]);
      api.assertStatusesReached(`PATCH ${versions}/{version_id}`, [200, 400, 401, 403, 404, 409]);
      api.assertStatusesReached(`DELETE ${versions}/{version_id}/image`, [200, 400, 401, 403, 404]);
    });
  });
}
