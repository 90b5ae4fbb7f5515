import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type Body, configurationCases, savedBase } from '../../core/test/fixtures/configuration-cases.ts';
import type { ApiClient, ApiResponse } from './support/api-client.ts';
import { storageBackends } from './support/storage-backends.ts';
import { tamperedCursor } from './support/tampered-cursor.ts';
import { type Account, withTestPlatform } from './support/test-platform.ts';

/**
 * Saved configurations over real HTTP (spec: Scenario configuration, Configurations endpoints;
 * decisions 20-29, 35), plus the strategy auto-run bindings that pin them. The validation table of
 * packages/core is replayed against the server, so the HTTP layer must say exactly what the
 * validator says.
 */

type Issue = { path: string; message: string };
type Config = Record<string, unknown> & { configId: string; name: string };

const MISSING = '00000000-0000-4000-8000-000000000000';
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every optional field set, so that a replace or a clone has something to drop or copy. */
const fullBody: Body = {
  name: 'Full',
  description: 'every field set',
  isActive: false,
  subscriptions: [
    { instrument: 'C:BTCUSD', events: ['candle_{1,5}m', 'order_update'] },
    { instrument: 'F:EURUSD', events: ['candle_1h'] },
  ],
  startTime: '2014-05-10T00:00:00Z',
  endTime: '2024-01-10T00:00:00+01:00',
  positionMode: 'hedging',
  initialCapital: 2500.5,
  env: { MODE: 'fast', platform_x: 'ok', EMPTY: '' },
  costs: {
    commission: { model: 'bps_of_notional', fee_rate_bps: '2.5' },
    slippage: { base_slippage_bps: '1', size_impact_bps_per_100k: '0.5', max_slippage_bps: '50' },
    funding: {
      model: 'daily',
      long_rate: '-0.05',
      short_rate: '0.02',
      day_multipliers: [1, 1, 3, 1, 1, 0, 0],
      day_count_basis: 360,
    },
  },
};

/** Decision 37's spelling of a decision-23 decimal: no leading zeros, no trailing fraction zeros, never -0. */
function canonicalDecimal(text: string): string {
  const [, sign = '', whole = '', fraction = ''] = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text) ?? [];
  const digits = [whole.replace(/^0+(?=\d)/, ''), fraction.replace(/0+$/, '')].filter(Boolean).join('.');
  return /^[0.]+$/.test(digits) ? '0' : `${sign}${digits}`;
}

/** The costs a record shows for `costs` sent: every decimal (any field but `model`) canonical. */
const canonicalCosts = (costs: Record<string, Record<string, unknown>>) =>
  Object.fromEntries(
    Object.entries(costs).map(([part, fields]) => [
      part,
      Object.fromEntries(
        Object.entries(fields).map(([key, value]) => [
          key,
          key !== 'model' && typeof value === 'string' ? canonicalDecimal(value) : value,
        ]),
      ),
    ]),
  );

/** The record a valid body should produce: decision 26's defaults shown explicitly, decimals canonical. */
const expectedFields = (body: Body): Body => ({
  isActive: true,
  positionMode: 'netting',
  initialCapital: 100000,
  ...body,
  ...(body.costs !== undefined && {
    costs: canonicalCosts(body.costs as Record<string, Record<string, unknown>>),
  }),
});

function fieldsOf(record: Config): Body {
  const { configId: _id, ownerId: _owner, createdAt: _c, updatedAt: _u, ...fields } = record;
  return fields;
}

function assertRecord(response: ApiResponse, status: number, body: Body, owner: Account): Config {
  assert.equal(response.status, status, response.text.slice(0, 500));
  const record = response.body.data as Config;
  assert.match(record.configId, UUID);
  assert.equal(record.ownerId, owner.userId);
  assert.match(String(record.createdAt), ISO_UTC);
  assert.match(String(record.updatedAt), ISO_UTC);
  assert.deepEqual(fieldsOf(record), expectedFields(body));
  assert.equal(response.text.includes('null'), false, 'optional fields are omitted, never null');
  return record;
}

/** A 400 BAD_REQUEST whose `details` is the JSON array of issues. */
function issuesOf(response: ApiResponse, context = ''): Issue[] {
  assert.equal(response.status, 400, `${context}: ${response.text.slice(0, 500)}`);
  const error = response.body.error;
  assert.equal(error.code, 'BAD_REQUEST');
  assert.equal(typeof error.message, 'string');
  assert.equal(typeof error.details, 'string', `${context}: details is a JSON string`);
  const issues = JSON.parse(error.details) as unknown;
  assert.ok(Array.isArray(issues) && issues.length > 0, `${context}: details is a non-empty array`);
  for (const issue of issues as Issue[]) {
    assert.equal(typeof issue.path, 'string', JSON.stringify(issue));
    assert.equal(typeof issue.message, 'string', JSON.stringify(issue));
  }
  return issues as Issue[];
}

const prefixOf = (path: string): string => `${path === '' ? 'request body' : path}: `;

/** The fixture's replay convention: exactly one issue, at the path, named first in the message. */
function assertRefused(response: ApiResponse, path: string, fragment?: string, context = path): void {
  const issues = issuesOf(response, context);
  assert.deepEqual(
    issues.map((issue) => issue.path),
    [path],
    `${context}: exactly one issue, at ${JSON.stringify(path)}; got ${response.body.error.details}`,
  );
  const message: string = response.body.error.message;
  assert.ok(message.startsWith(prefixOf(path)), `${context}: message names ${path}: ${message}`);
  if (fragment !== undefined)
    assert.ok(message.includes(fragment), `${context}: "${fragment}" in ${message}`);
}

function assertError(response: ApiResponse, status: number, code: string, context = ''): void {
  assert.equal(response.status, status, `${context}: ${response.text.slice(0, 500)}`);
  assert.equal(response.body.error.code, code, context);
  assert.equal(typeof response.body.error.message, 'string');
}

/** Every configuration the caller can list, following nextCursor. */
async function listAll(api: ApiClient, key: string, query: Record<string, string> = {}): Promise<Config[]> {
  const all: Config[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.get('/v1/configurations', {
      key,
      query: { limit: '100', ...query, ...(cursor && { cursor }) },
    });
    assert.equal(page.status, 200, page.text);
    all.push(...(page.body.data as Config[]));
    cursor = page.body.nextCursor;
  } while (cursor);
  return all;
}

/** Catalog-only refusals of a `validPassesSchemaOnly` body: every issue is an instrument. */
function assertCatalogOnly(response: ApiResponse, context: string): void {
  for (const issue of issuesOf(response, context)) {
    assert.match(issue.path, /^subscriptions\[\d+\]\.instrument$/, `${context}: ${JSON.stringify(issue)}`);
  }
}

const savedCases = configurationCases.filter((testCase) => testCase.kind === 'saved');

for (const backend of storageBackends()) {
  describe(`configurations (${backend.name})`, () => {
    const t = withTestPlatform(backend);

    describe('CRUD', () => {
      it('creates a configuration showing its defaults explicitly and nothing unset', async () => {
        const { api, account } = t.get();
        const owner = await account('creator');
        const created = await api.post('/v1/configurations', { key: owner.key, body: savedBase });
        const record = assertRecord(created, 201, savedBase, owner);
        assert.equal(record.isActive, true);
        assert.equal(record.positionMode, 'netting');
        assert.equal(record.initialCapital, 100000);
        for (const unset of ['description', 'env', 'costs']) assert.equal(unset in record, false, unset);
        assert.equal(record.createdAt, record.updatedAt);

        const full = await api.post('/v1/configurations', { key: owner.key, body: fullBody });
        const fullRecord = assertRecord(full, 201, fullBody, owner);
        assert.notEqual(fullRecord.configId, record.configId);

        const read = await api.get(`/v1/configurations/${fullRecord.configId}`, { key: owner.key });
        assert.equal(read.status, 200);
        assert.deepEqual(read.body.data, fullRecord);
        // UUIDs are case-insensitive: the upper-case spelling names the same record.
        const upper = await api.get(`/v1/configurations/${fullRecord.configId.toUpperCase()}`, {
          key: owner.key,
        });
        assert.equal(upper.status, 200);
        assert.deepEqual(upper.body.data, fullRecord);
      });

      it('stores and echoes cost decimals canonically (decision 37): "007.50" as "7.5", "-0" as "0", "050.0" as "50"', async () => {
        const { api, account } = t.get();
        const owner = await account('decimals');
        const sent = {
          ...savedBase,
          costs: {
            commission: { model: 'bps_of_notional', fee_rate_bps: '007.50' },
            slippage: {
              base_slippage_bps: '-0',
              size_impact_bps_per_100k: '050.0',
              max_slippage_bps: '10.000',
            },
            funding: { model: 'daily', long_rate: '-0.0500', short_rate: '-000' },
          },
        };
        const canonical = {
          ...savedBase,
          costs: {
            commission: { model: 'bps_of_notional', fee_rate_bps: '7.5' },
            slippage: { base_slippage_bps: '0', size_impact_bps_per_100k: '50', max_slippage_bps: '10' },
            funding: { model: 'daily', long_rate: '-0.05', short_rate: '0' },
          },
        };
        const created = assertRecord(
          await api.post('/v1/configurations', { key: owner.key, body: sent }),
          201,
          canonical,
          owner,
        );
        const path = `/v1/configurations/${created.configId}`;
        const read = await api.get(path, { key: owner.key });
        assert.deepEqual(read.body.data, created, 'stored canonically, not only echoed so');
        assertRecord(await api.put(path, { key: owner.key, body: sent }), 200, canonical, owner);
        const cloned = await api.post(`${path}/clone`, { key: owner.key });
        assert.deepEqual(cloned.body.data.costs, canonical.costs);
      });

      it('lists newest first, filters with activeOnly and pages with limit and cursor', async () => {
        const { api, account } = t.get();
        const owner = await account('lister');
        const empty = await api.get('/v1/configurations', { key: owner.key });
        assert.equal(empty.status, 200);
        assert.deepEqual(empty.body.data, []);
        assert.equal('nextCursor' in empty.body, false);

        const made: Config[] = [];
        for (let i = 0; i < 7; i++) {
          const body = { ...savedBase, name: `c${i}`, isActive: i % 3 !== 0 };
          made.push(
            assertRecord(await api.post('/v1/configurations', { key: owner.key, body }), 201, body, owner),
          );
        }
        const names = (page: ApiResponse) => (page.body.data as Config[]).map((c) => c.name);
        const all = await api.get('/v1/configurations', { key: owner.key });
        assert.deepEqual(names(all), ['c6', 'c5', 'c4', 'c3', 'c2', 'c1', 'c0']);
        assert.deepEqual(all.body.data[0], made[6], 'listed records equal the created ones');
        const explicitAll = await api.get('/v1/configurations', {
          key: owner.key,
          query: { activeOnly: 'false' },
        });
        assert.deepEqual(names(explicitAll), names(all));
        const active = await api.get('/v1/configurations', { key: owner.key, query: { activeOnly: 'true' } });
        assert.deepEqual(names(active), ['c5', 'c4', 'c2', 'c1']);

        const first = await api.get('/v1/configurations', { key: owner.key, query: { limit: '3' } });
        assert.deepEqual(names(first), ['c6', 'c5', 'c4']);
        assert.equal(typeof first.body.nextCursor, 'string');
        // A configuration created between pages neither shifts nor repeats the next page.
        await api.post('/v1/configurations', {
          key: owner.key,
          body: { ...savedBase, name: 'late', isActive: false },
        });
        const second = await api.get('/v1/configurations', {
          key: owner.key,
          query: { limit: '3', cursor: first.body.nextCursor },
        });
        assert.deepEqual(names(second), ['c3', 'c2', 'c1']);
        const third = await api.get('/v1/configurations', {
          key: owner.key,
          query: { limit: '3', cursor: second.body.nextCursor },
        });
        assert.deepEqual(names(third), ['c0']);
        assert.equal('nextCursor' in third.body, false, 'the last page has no nextCursor');

        const activePage = await api.get('/v1/configurations', {
          key: owner.key,
          query: { activeOnly: 'true', limit: '2' },
        });
        assert.deepEqual(names(activePage), ['c5', 'c4']);
        const activeRest = await api.get('/v1/configurations', {
          key: owner.key,
          query: { activeOnly: 'true', limit: '2', cursor: activePage.body.nextCursor },
        });
        assert.deepEqual(names(activeRest), ['c2', 'c1']);
        assert.equal('nextCursor' in activeRest.body, false);

        const badQueries: Record<string, string>[] = [
          { limit: '0' },
          { limit: '101' },
          { limit: 'ten' },
          { limit: '1.5' },
          { activeOnly: 'yes' },
          { activeOnly: 'TRUE' },
          { activeOnly: '' },
          { cursor: 'eyJmb28iOjF9.abc' },
          { cursor: tamperedCursor(first.body.nextCursor) },
        ];
        for (const query of badQueries) {
          const bad = await api.get('/v1/configurations', { key: owner.key, query });
          assertError(bad, 400, 'BAD_REQUEST', JSON.stringify(query));
          const [name] = Object.keys(query);
          assert.ok(bad.body.error.message.includes(String(name)), bad.body.error.message);
        }
        // A cursor another list issued is refused too (decision 28).
        for (let i = 0; i < 2; i++) {
          await api.post('/v1/strategies', { key: owner.key, body: { name: `s${i}` } });
        }
        const strategies = await api.get('/v1/strategies', { key: owner.key, query: { limit: '1' } });
        const foreignCursor = await api.get('/v1/configurations', {
          key: owner.key,
          query: { cursor: strategies.body.nextCursor },
        });
        assertError(foreignCursor, 400, 'BAD_REQUEST', 'strategies cursor');
      });

      it('PUT replaces the whole configuration: omitted fields return to their defaults', async () => {
        const { api, account } = t.get();
        const owner = await account('replacer');
        const original = assertRecord(
          await api.post('/v1/configurations', { key: owner.key, body: fullBody }),
          201,
          fullBody,
          owner,
        );
        const path = `/v1/configurations/${original.configId}`;

        const envOnly = { ...savedBase, name: 'Renamed', env: { ONLY: '1' } };
        const withEnv = assertRecord(
          await api.put(path, { key: owner.key, body: envOnly }),
          200,
          envOnly,
          owner,
        );
        assert.equal(withEnv.configId, original.configId);
        assert.equal(withEnv.createdAt, original.createdAt);
        assert.ok(String(withEnv.updatedAt) >= String(original.updatedAt));
        assert.deepEqual(withEnv.env, { ONLY: '1' }, 'the env map is replaced, not merged');
        for (const dropped of ['description', 'costs']) assert.equal(dropped in withEnv, false, dropped);
        assert.equal(withEnv.isActive, true);
        assert.equal(withEnv.positionMode, 'netting');
        assert.equal(withEnv.initialCapital, 100000);

        const bare = { ...savedBase, name: 'Bare' };
        const replaced = assertRecord(await api.put(path, { key: owner.key, body: bare }), 200, bare, owner);
        assert.equal('env' in replaced, false, 'omitting env clears it');
        const read = await api.get(path, { key: owner.key });
        assert.deepEqual(read.body.data, replaced);

        const back = assertRecord(
          await api.put(path, { key: owner.key, body: fullBody }),
          200,
          fullBody,
          owner,
        );
        assert.deepEqual(fieldsOf(back), fieldsOf(original));
        assert.equal((await listAll(api, owner.key)).length, 1, 'PUT never creates');
      });

      it('deletes (204, then 404 everywhere) and clones as "<name> (copy)"', async () => {
        const { api, account } = t.get();
        const owner = await account('cloner');
        const source = assertRecord(
          await api.post('/v1/configurations', { key: owner.key, body: fullBody }),
          201,
          fullBody,
          owner,
        );

        const cloned = await api.post(`/v1/configurations/${source.configId}/clone`, { key: owner.key });
        const copy = assertRecord(cloned, 201, { ...fullBody, name: 'Full (copy)' }, owner);
        assert.notEqual(copy.configId, source.configId);
        assert.equal(copy.createdAt, copy.updatedAt);
        const copyOfCopy = await api.post(`/v1/configurations/${copy.configId}/clone`, { key: owner.key });
        assertRecord(copyOfCopy, 201, { ...fullBody, name: 'Full (copy) (copy)' }, owner);
        const sourceNow = await api.get(`/v1/configurations/${source.configId}`, { key: owner.key });
        assert.deepEqual(sourceNow.body.data, source, 'cloning leaves the source unchanged');

        const bare = assertRecord(
          await api.post('/v1/configurations', { key: owner.key, body: savedBase }),
          201,
          savedBase,
          owner,
        );
        const bareCopy = await api.post(`/v1/configurations/${bare.configId}/clone`, { key: owner.key });
        assertRecord(bareCopy, 201, { ...savedBase, name: 'base (copy)' }, owner);
        assert.equal((await listAll(api, owner.key)).length, 5);

        const path = `/v1/configurations/${copy.configId}`;
        const deleted = await api.delete(path, { key: owner.key });
        assert.equal(deleted.status, 204);
        assert.equal(deleted.text, '');
        assertError(await api.get(path, { key: owner.key }), 404, 'NOT_FOUND', 'get deleted');
        assertError(await api.delete(path, { key: owner.key }), 404, 'NOT_FOUND', 'delete deleted');
        assertError(
          await api.put(path, { key: owner.key, body: savedBase }),
          404,
          'NOT_FOUND',
          'put deleted',
        );
        assertError(await api.post(`${path}/clone`, { key: owner.key }), 404, 'NOT_FOUND', 'clone deleted');
        const remaining = await listAll(api, owner.key);
        assert.equal(remaining.length, 4);
        assert.equal(
          remaining.some((c) => c.configId === copy.configId),
          false,
        );
      });
    });

    describe('validation table (POST /v1/configurations)', () => {
      let owner: Account;
      let accepted = 0;
      before(async () => {
        owner = await t.get().account('table');
      });

      for (const testCase of savedCases) {
        it(`${testCase.rule}`, async () => {
          const { api } = t.get();
          const valid = await api.post('/v1/configurations', { key: owner.key, body: testCase.valid });
          if (testCase.validPassesSchemaOnly && valid.status === 400) {
            assertCatalogOnly(valid, `${testCase.rule} (valid)`);
          } else {
            assertRecord(valid, 201, testCase.valid, owner);
            accepted += 1;
          }
          const invalid = await api.post('/v1/configurations', { key: owner.key, body: testCase.invalid });
          assertRefused(invalid, testCase.expectPath, testCase.expectMessage, `${testCase.rule} (invalid)`);
        });
      }

      it('wrote exactly the accepted bodies and nothing for the refused ones', async () => {
        const { api } = t.get();
        assert.ok(accepted > 100, `only ${accepted} valid bodies were accepted`);
        assert.equal((await listAll(api, owner.key)).length, accepted);
      });
    });

    describe('validation table (PUT /v1/configurations/{config_id})', () => {
      let owner: Account;
      let target: Config;
      before(async () => {
        const { api, account } = t.get();
        owner = await account('table-put');
        target = (await api.post('/v1/configurations', { key: owner.key, body: fullBody })).body.data;
      });
      // Every third case: the replace path shares the validator, this proves it is wired the same way.
      const sample = savedCases.filter((_, index) => index % 3 === 0);

      for (const testCase of sample) {
        it(`${testCase.rule}`, async () => {
          const { api } = t.get();
          const path = `/v1/configurations/${target.configId}`;
          const valid = await api.put(path, { key: owner.key, body: testCase.valid });
          if (testCase.validPassesSchemaOnly && valid.status === 400) {
            assertCatalogOnly(valid, `${testCase.rule} (valid)`);
          } else {
            const record = assertRecord(valid, 200, testCase.valid, owner);
            assert.equal(record.configId, target.configId);
            assert.equal(record.createdAt, target.createdAt);
            target = record;
          }
          const invalid = await api.put(path, { key: owner.key, body: testCase.invalid });
          assertRefused(invalid, testCase.expectPath, testCase.expectMessage, `${testCase.rule} (invalid)`);
          const after = await api.get(path, { key: owner.key });
          assert.deepEqual(after.body.data, target, 'a refused PUT changes nothing');
        });
      }

      it('created nothing', async () => {
        assert.equal((await listAll(t.get().api, owner.key)).length, 1);
      });
    });

    describe('text the store cannot hold', () => {
      // PostgreSQL text and jsonb cannot hold U+0000 or unpaired UTF-16 surrogates; such a body must be
      // refused with a 400 naming the field, never a 500 and never silently altered.
      const cases: [string, Body, string][] = [
        ['NUL in name', { name: 'a\u0000b' }, 'name'],
        ['NUL in description', { description: 'a\u0000b' }, 'description'],
        ['lone high surrogate in name', { name: 'x\ud800' }, 'name'],
        ['lone low surrogate in description', { description: '\udc00x' }, 'description'],
        ['lone surrogate in an env value', { env: { A: 'ok', B: 'v\ud800' } }, 'env.B'],
      ];
      it('refuses NUL and unpaired surrogates with a 400 on POST and PUT', async () => {
        const { api, account } = t.get();
        const owner = await account('unicode');
        const target = (await api.post('/v1/configurations', { key: owner.key, body: savedBase })).body.data;
        for (const [what, fields, path] of cases) {
          const body = { ...savedBase, ...fields };
          assertRefused(
            await api.post('/v1/configurations', { key: owner.key, body }),
            path,
            undefined,
            what,
          );
          const put = await api.put(`/v1/configurations/${target.configId}`, { key: owner.key, body });
          assertRefused(put, path, undefined, `${what} (PUT)`);
        }
        const paired = { ...savedBase, name: 'emoji 😀 ü', description: '€ 𝄞', env: { E: '😀' } };
        assertRecord(
          await api.post('/v1/configurations', { key: owner.key, body: paired }),
          201,
          paired,
          owner,
        );
        const stored = await listAll(api, owner.key);
        assert.equal(stored.length, 2);
        assert.deepEqual(
          fieldsOf(stored[1] as Config),
          expectedFields(savedBase),
          'the PUT target is unchanged',
        );
      });
    });

    describe('bodies that are not a JSON configuration', () => {
      it('refuses malformed JSON, other content types, empty and oversized bodies, writing nothing', async () => {
        const { api, account } = t.get();
        const owner = await account('raw');
        const target = (await api.post('/v1/configurations', { key: owner.key, body: savedBase })).body.data;
        const json = { 'content-type': 'application/json' };
        const oversized = JSON.stringify({ ...savedBase, description: 'x'.repeat(1024 * 1024) });
        assert.ok(Buffer.byteLength(oversized) > 1024 * 1024);
        const raws: [string, string, Record<string, string>][] = [
          ['malformed JSON', '{"name": "x", ', json],
          ['trailing garbage', `${JSON.stringify(savedBase)} x`, json],
          ['single quotes', "{'name': 'x'}", json],
          ['prototype pollution', '{"__proto__": {"polluted": true}}', json],
          ['text/plain', JSON.stringify(savedBase), { 'content-type': 'text/plain' }],
          ['text/plain garbage', 'hello', { 'content-type': 'text/plain' }],
          ['form encoded', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' }],
          ['empty JSON body', '', json],
          ['no body, no content type', '', {}],
          ['JSON null', 'null', json],
          ['JSON array', '[]', json],
          ['JSON string', '"x"', json],
          ['JSON number', '42', json],
          ['oversized', oversized, json],
        ];
        for (const [what, rawBody, headers] of raws) {
          const post = await api.post('/v1/configurations', { key: owner.key, rawBody, headers });
          assertError(post, 400, 'BAD_REQUEST', `POST ${what}`);
          const put = await api.put(`/v1/configurations/${target.configId}`, {
            key: owner.key,
            rawBody,
            headers,
          });
          assertError(put, 400, 'BAD_REQUEST', `PUT ${what}`);
        }
        const stored = await listAll(api, owner.key);
        assert.equal(stored.length, 1, 'no partial write');
        assert.deepEqual(stored[0], target, 'the PUT target is unchanged');
      });
    });

    describe('auto-run bindings', () => {
      it('a bound configuration cannot be deleted until it is unbound', async () => {
        const { api, account } = t.get();
        const owner = await account('autorun');
        const strategy = (await api.post('/v1/strategies', { key: owner.key, body: { name: 'S' } })).body
          .data;
        const first = (await api.post('/v1/configurations', { key: owner.key, body: savedBase })).body.data;
        const second = (await api.post('/v1/configurations', { key: owner.key, body: fullBody })).body.data;
        const autoRun = `/v1/strategies/${strategy.strategyId}/auto-run-configs`;

        const bound = await api.put(autoRun, { key: owner.key, body: { configIds: [first.configId] } });
        assert.equal(bound.status, 200, bound.text);
        assert.deepEqual(bound.body, {
          data: { strategyId: strategy.strategyId, configIds: [first.configId] },
        });

        const refused = await api.delete(`/v1/configurations/${first.configId}`, { key: owner.key });
        assertError(refused, 409, 'CONFLICT', 'delete bound');
        const stillThere = await api.get(`/v1/configurations/${first.configId}`, { key: owner.key });
        assert.deepEqual(stillThere.body.data, first);
        // Binding is about deletion only: the bound configuration can still be replaced and cloned.
        assert.equal(
          (await api.put(`/v1/configurations/${first.configId}`, { key: owner.key, body: savedBase })).status,
          200,
        );
        const copy = await api.post(`/v1/configurations/${first.configId}/clone`, { key: owner.key });
        assert.equal(copy.status, 201);
        assert.equal(
          (await api.delete(`/v1/configurations/${copy.body.data.configId}`, { key: owner.key })).status,
          204,
          'a clone does not inherit the binding',
        );

        // The body replaces the whole set; duplicates (in any letter case) collapse to one binding.
        const both = await api.put(autoRun, {
          key: owner.key,
          body: { configIds: [second.configId, first.configId, second.configId.toUpperCase()] },
        });
        assert.equal(both.status, 200, both.text);
        assert.deepEqual(both.body.data.configIds, [second.configId, first.configId]);
        const onlySecond = await api.put(autoRun, { key: owner.key, body: { configIds: [second.configId] } });
        assert.deepEqual(onlySecond.body.data.configIds, [second.configId]);
        assert.equal(
          (await api.delete(`/v1/configurations/${first.configId}`, { key: owner.key })).status,
          204,
        );
        assertError(
          await api.delete(`/v1/configurations/${second.configId}`, { key: owner.key }),
          409,
          'CONFLICT',
          'second still bound',
        );

        const cleared = await api.put(autoRun, { key: owner.key, body: { configIds: [] } });
        assert.equal(cleared.status, 200);
        assert.deepEqual(cleared.body, { data: { strategyId: strategy.strategyId, configIds: [] } });
        const deleted = await api.delete(`/v1/configurations/${second.configId}`, { key: owner.key });
        assert.equal(deleted.status, 204);
        assert.equal(deleted.text, '');
        assert.equal((await listAll(api, owner.key)).length, 0);
      });

      it('refuses unknown, foreign and malformed config ids and bad bodies without changing the set', async () => {
        const { api, account } = t.get();
        const owner = await account('autorun-bad');
        const other = await account('autorun-other');
        const strategy = (await api.post('/v1/strategies', { key: owner.key, body: { name: 'S' } })).body
          .data;
        const mine = (await api.post('/v1/configurations', { key: owner.key, body: savedBase })).body.data;
        const theirs = (await api.post('/v1/configurations', { key: other.key, body: savedBase })).body.data;
        const autoRun = `/v1/strategies/${strategy.strategyId}/auto-run-configs`;
        assert.equal(
          (await api.put(autoRun, { key: owner.key, body: { configIds: [mine.configId] } })).status,
          200,
        );

        for (const [what, configIds] of [
          ['unknown', [mine.configId, MISSING]],
          ['foreign', [theirs.configId]],
          ['foreign among own', [mine.configId, theirs.configId]],
        ] as const) {
          const response = await api.put(autoRun, { key: owner.key, body: { configIds } });
          assertError(response, 400, 'BAD_REQUEST', what);
          assert.match(response.body.error.message, /configIds/);
          assert.equal(
            response.body.error.message.includes(theirs.name) && what !== 'unknown',
            false,
            'a foreign configuration is not described',
          );
        }
        const badBodies: unknown[] = [
          {},
          { configIds: null },
          { configIds: 'x' },
          { configIds: [42] },
          { configIds: ['not-a-uuid'] },
          { configIds: [mine.configId], extra: true },
          { configIds: Array.from({ length: 101 }, () => mine.configId) },
          [],
          null,
        ];
        for (const body of badBodies) {
          const response = await api.put(autoRun, { key: owner.key, body });
          assertError(response, 400, 'BAD_REQUEST', JSON.stringify(body).slice(0, 80));
        }
        const malformed = await api.put(autoRun, {
          key: owner.key,
          rawBody: '{"configIds": [',
          headers: { 'content-type': 'application/json' },
        });
        assertError(malformed, 400, 'BAD_REQUEST', 'malformed JSON');

        // Nothing above changed the set: the configuration is still bound, theirs is not.
        assertError(
          await api.delete(`/v1/configurations/${mine.configId}`, { key: owner.key }),
          409,
          'CONFLICT',
          'still bound',
        );
        assert.equal(
          (await api.delete(`/v1/configurations/${theirs.configId}`, { key: other.key })).status,
          204,
        );
      });

      it('checks auth, strategy id, existence and ownership before the body', async () => {
        const { api, account } = t.get();
        const owner = await account('autorun-order');
        const other = await account('autorun-intruder');
        const strategy = (await api.post('/v1/strategies', { key: owner.key, body: { name: 'S' } })).body
          .data;
        const config = (await api.post('/v1/configurations', { key: owner.key, body: savedBase })).body.data;
        const autoRun = `/v1/strategies/${strategy.strategyId}/auto-run-configs`;
        const body = { configIds: [config.configId] };

        assertError(await api.put(autoRun, { body }), 401, 'UNAUTHORIZED', 'no key');
        assertError(await api.put(autoRun, { key: 'not-a-key', body }), 401, 'UNAUTHORIZED', 'bad key');
        assertError(
          await api.put('/v1/strategies/not-a-uuid/auto-run-configs', { key: owner.key, body }),
          400,
          'BAD_REQUEST',
          'bad strategy id',
        );
        const unknown = `/v1/strategies/${MISSING}/auto-run-configs`;
        assertError(await api.put(unknown, { key: owner.key, body }), 404, 'NOT_FOUND', 'unknown strategy');
        assertError(
          await api.put(unknown, { key: owner.key, body: { configIds: 'bad' } }),
          404,
          'NOT_FOUND',
          'unknown strategy, bad body',
        );
        assertError(await api.put(autoRun, { key: other.key, body }), 403, 'FORBIDDEN', 'foreign strategy');
        assertError(
          await api.put(autoRun, { key: other.key, body: { configIds: [] } }),
          403,
          'FORBIDDEN',
          'foreign strategy, clearing',
        );
        assertError(
          await api.put(autoRun, { key: other.key, body: { nope: 1 } }),
          403,
          'FORBIDDEN',
          'foreign strategy, bad body',
        );
        assert.equal((await api.put(autoRun, { key: owner.key, body })).status, 200);
        assertError(
          await api.put(autoRun, { key: other.key, body: { configIds: [] } }),
          403,
          'FORBIDDEN',
          'foreign strategy cannot clear the set',
        );
        assertError(
          await api.delete(`/v1/configurations/${config.configId}`, { key: owner.key }),
          409,
          'CONFLICT',
          'binding survived the intruder',
        );

        // An archived strategy refuses changes to its set (decision 27).
        assert.equal(
          (await api.delete(`/v1/strategies/${strategy.strategyId}`, { key: owner.key })).status,
          204,
        );
        assertError(
          await api.put(autoRun, { key: owner.key, body: { configIds: [] } }),
          409,
          'CONFLICT',
          'archived strategy',
        );
      });
    });

    describe('auto-run bindings with a body that is not JSON', () => {
      it('answers 404 for an unknown strategy and 403 for a foreign one before parsing the body', async () => {
        const { api, account } = t.get();
        const owner = await account('autorun-raw');
        const other = await account('autorun-raw-other');
        const strategy = (await api.post('/v1/strategies', { key: other.key, body: { name: 'S' } })).body
          .data;
        const headers = { 'content-type': 'application/json' };
        const unknown = await api.put(`/v1/strategies/${MISSING}/auto-run-configs`, {
          key: owner.key,
          rawBody: '{"configIds": [',
          headers,
        });
        assertError(unknown, 404, 'NOT_FOUND', 'unknown strategy, malformed JSON');
        const foreign = await api.put(`/v1/strategies/${strategy.strategyId}/auto-run-configs`, {
          key: owner.key,
          rawBody: '{"configIds": [',
          headers,
        });
        assertError(foreign, 403, 'FORBIDDEN', 'foreign strategy, malformed JSON');
      });
    });

    describe('owner scoping', () => {
      it("never reads, lists or changes another account's configurations", async () => {
        const { api, account } = t.get();
        const alice = await account('alice');
        const bob = await account('bob');
        const aliceConfig = assertRecord(
          await api.post('/v1/configurations', { key: alice.key, body: fullBody }),
          201,
          fullBody,
          alice,
        );
        const aliceStrategy = (await api.post('/v1/strategies', { key: alice.key, body: { name: 'A' } })).body
          .data;
        const aliceAutoRun = `/v1/strategies/${aliceStrategy.strategyId}/auto-run-configs`;
        assert.equal(
          (await api.put(aliceAutoRun, { key: alice.key, body: { configIds: [aliceConfig.configId] } }))
            .status,
          200,
        );
        const path = `/v1/configurations/${aliceConfig.configId}`;

        for (const query of [{}, { activeOnly: 'true' }, { activeOnly: 'false' }] as Record<
          string,
          string
        >[]) {
          const listed = await api.get('/v1/configurations', { key: bob.key, query });
          assert.equal(listed.status, 200);
          assert.deepEqual(listed.body.data, [], `bob lists nothing of alice's (${JSON.stringify(query)})`);
        }
        assertError(await api.get(path, { key: bob.key }), 403, 'FORBIDDEN', 'get');
        const forbidden = await api.get(path, { key: bob.key });
        assert.equal(forbidden.text.includes(String(aliceConfig.name)), false, 'a 403 reveals nothing');
        assert.equal(forbidden.text.includes('MODE'), false, 'a 403 reveals nothing');
        assertError(await api.put(path, { key: bob.key, body: savedBase }), 403, 'FORBIDDEN', 'put');
        assertError(
          await api.put(path, { key: bob.key, body: { nope: 1 } }),
          403,
          'FORBIDDEN',
          'put bad body',
        );
        assertError(await api.delete(path, { key: bob.key }), 403, 'FORBIDDEN', 'delete');
        assertError(await api.post(`${path}/clone`, { key: bob.key }), 403, 'FORBIDDEN', 'clone');

        const bobConfig = (await api.post('/v1/configurations', { key: bob.key, body: savedBase })).body.data;
        const bobStrategy = (await api.post('/v1/strategies', { key: bob.key, body: { name: 'B' } })).body
          .data;
        const bobAutoRun = `/v1/strategies/${bobStrategy.strategyId}/auto-run-configs`;
        assertError(
          await api.put(bobAutoRun, { key: bob.key, body: { configIds: [aliceConfig.configId] } }),
          400,
          'BAD_REQUEST',
          "bob binds alice's configuration",
        );
        assertError(
          await api.put(aliceAutoRun, { key: bob.key, body: { configIds: [bobConfig.configId] } }),
          403,
          'FORBIDDEN',
          "bob binds to alice's strategy",
        );
        // Alice's list cursor does not open Bob's view onto her records.
        await api.post('/v1/configurations', { key: alice.key, body: { ...savedBase, name: 'second' } });
        const aliceFirst = await api.get('/v1/configurations', { key: alice.key, query: { limit: '1' } });
        const withAliceCursor = await api.get('/v1/configurations', {
          key: bob.key,
          query: { cursor: aliceFirst.body.nextCursor },
        });
        if (withAliceCursor.status === 200) {
          for (const c of withAliceCursor.body.data as Config[]) assert.equal(c.ownerId, bob.userId);
        } else {
          assertError(withAliceCursor, 400, 'BAD_REQUEST', "alice's cursor");
        }

        // Afterwards: alice's data is exactly as she left it, and bob sees only his own.
        const unchanged = await api.get(path, { key: alice.key });
        assert.deepEqual(unchanged.body.data, aliceConfig);
        const aliceList = await listAll(api, alice.key);
        assert.deepEqual(
          aliceList.map((c) => c.name).sort(),
          ['Full', 'second'],
          'no clone or write of bob reached alice',
        );
        assert.ok(aliceList.every((c) => c.ownerId === alice.userId));
        const bobList = await listAll(api, bob.key);
        assert.deepEqual(
          bobList.map((c) => c.configId),
          [bobConfig.configId],
        );
        assertError(await api.delete(path, { key: alice.key }), 409, 'CONFLICT', "alice's binding survived");
        assert.equal(
          (await api.get(`/v1/configurations/${bobConfig.configId}`, { key: alice.key })).status,
          403,
        );
      });
    });

    describe('order of checks (decision 35)', () => {
      it('answers 401, then a bad id 400, then 404/403, then the body 400', async () => {
        const { api, account } = t.get();
        const owner = await account('order');
        const config = (await api.post('/v1/configurations', { key: owner.key, body: savedBase })).body.data;
        const own = `/v1/configurations/${config.configId}`;
        const unknown = `/v1/configurations/${MISSING}`;
        const badId = '/v1/configurations/not-a-uuid';
        const invalid = { ...savedBase, positionMode: 'both' };

        assertError(await api.get('/v1/configurations'), 401, 'UNAUTHORIZED', 'list');
        assertError(await api.post('/v1/configurations', { body: savedBase }), 401, 'UNAUTHORIZED', 'create');
        assertError(
          await api.post('/v1/configurations', { body: { nope: 1 } }),
          401,
          'UNAUTHORIZED',
          'create, bad body',
        );
        assertError(
          await api.get('/v1/configurations', { key: 'hs_wrong-key-value' }),
          401,
          'UNAUTHORIZED',
          'bad key',
        );
        for (const path of [own, badId, unknown]) {
          assertError(await api.get(path), 401, 'UNAUTHORIZED', `get ${path}`);
          assertError(await api.put(path, { body: invalid }), 401, 'UNAUTHORIZED', `put ${path}`);
          assertError(await api.delete(path), 401, 'UNAUTHORIZED', `delete ${path}`);
          assertError(await api.post(`${path}/clone`), 401, 'UNAUTHORIZED', `clone ${path}`);
        }

        for (const id of [
          'not-a-uuid',
          '00000000-0000-4000-8000-00000000000',
          `${config.configId}x`,
          '%20',
        ]) {
          const path = `/v1/configurations/${id}`;
          for (const response of [
            await api.get(path, { key: owner.key }),
            await api.put(path, { key: owner.key, body: invalid }),
            await api.put(path, { key: owner.key, body: savedBase }),
            await api.delete(path, { key: owner.key }),
            await api.post(`${path}/clone`, { key: owner.key }),
          ]) {
            assertError(response, 400, 'BAD_REQUEST', `bad id ${id}`);
            assert.match(response.body.error.message, /config_id/);
          }
        }

        assertError(await api.get(unknown, { key: owner.key }), 404, 'NOT_FOUND', 'get unknown');
        assertError(
          await api.put(unknown, { key: owner.key, body: savedBase }),
          404,
          'NOT_FOUND',
          'put unknown',
        );
        assertError(
          await api.put(unknown, { key: owner.key, body: invalid }),
          404,
          'NOT_FOUND',
          'put unknown, invalid body',
        );
        assertError(
          await api.put(unknown, { key: owner.key, body: [] }),
          404,
          'NOT_FOUND',
          'put unknown, array body',
        );
        assertError(await api.delete(unknown, { key: owner.key }), 404, 'NOT_FOUND', 'delete unknown');
        assertError(
          await api.post(`${unknown}/clone`, { key: owner.key }),
          404,
          'NOT_FOUND',
          'clone unknown',
        );

        assertRefused(await api.put(own, { key: owner.key, body: invalid }), 'positionMode', '"both"');
        assert.deepEqual((await api.get(own, { key: owner.key })).body.data, config);
      });

      it('answers 404 for an unknown id even when the body is not JSON', async () => {
        const { api, account } = t.get();
        const owner = await account('order-raw');
        const unknown = `/v1/configurations/${MISSING}`;
        for (const [rawBody, type] of [
          ['{"name": ', 'application/json'],
          ['', 'application/json'],
          ['name', 'text/plain'],
        ] as const) {
          const response = await api.put(unknown, {
            key: owner.key,
            rawBody,
            headers: { 'content-type': type },
          });
          assertError(response, 404, 'NOT_FOUND', `${type} ${JSON.stringify(rawBody)}`);
        }
      });
    });

    it('reaches every status the spec lists for the configuration endpoints', () => {
      const { api } = t.get();
      api.assertStatusesReached('GET /v1/configurations', [200, 400, 401]);
      api.assertStatusesReached('POST /v1/configurations', [201, 400, 401]);
      api.assertStatusesReached('GET /v1/configurations/{config_id}', [200, 400, 401, 403, 404]);
      api.assertStatusesReached('PUT /v1/configurations/{config_id}', [200, 400, 401, 403, 404]);
      api.assertStatusesReached('DELETE /v1/configurations/{config_id}', [204, 400, 401, 403, 404, 409]);
      api.assertStatusesReached('POST /v1/configurations/{config_id}/clone', [201, 400, 401, 403, 404]);
      api.assertStatusesReached(
        'PUT /v1/strategies/{strategy_id}/auto-run-configs',
        [200, 400, 401, 403, 404],
      );
    });
  });
}
