import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, STORED_JSON_BYTES, type StoredJsonField } from '../src/http/json-limits.ts';
import type { ApiResponse } from './support/api-client.ts';
import { EDITED_IN_PLACE, editAtPaths, type Json, type PathSegment } from './support/json-edits.ts';
import { pushPythonScript } from './support/scenario-images.ts';
import { storageBackends } from './support/storage-backends.ts';
import { type Account, type TestPlatform, withTestPlatform } from './support/test-platform.ts';

/**
 * Hostile input against every stored JSON field and every query parameter, over real HTTP on the
 * embedded store: bodies of every write endpoint with a field replaced by something deep (up to
 * 200,000 levels), huge, of the wrong type, holding NUL or a lone surrogate, or with unknown and
 * prototype keys; every query parameter of every documented GET (found in the served OpenAPI document)
 * with such text. Never a 500; every refusal is the spec's envelope (the client checks each response
 * against openapi.json); the limits answer 400 naming the field; a refusal changes nothing (updated
 * records are re-read, and every collection is counted at the end against what was accepted).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const BODY_LIMIT = 1024 * 1024;

// --- Big values are spliced into the JSON text, so that neither this file nor fast-check recurses
// --- through them or prints them: a mutation leaves a marker string that `toText` replaces.

type Big = 'object' | 'array' | 'string' | 'wideString' | 'longArray' | 'manyKeys';
const BIG_KINDS: Big[] = ['object', 'array', 'string', 'wideString', 'longArray', 'manyKeys'];
// A private-use character: JSON.stringify leaves it as it is, and no generated text holds it.
const marker = (kind: Big, size: number) => `\uE000${kind}:${size}\uE000`;
const MARKER_TEXT = /"\uE000(\w+):(\d+)\uE000"/g;
const MARKER_VALUE = /^\uE000(\w+):(\d+)\uE000$/;

function bigText(kind: Big, n: number): string {
  switch (kind) {
    case 'object':
      return `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    case 'array':
      return `${'['.repeat(n)}${']'.repeat(n)}`;
    case 'string':
      return `"${'x'.repeat(n)}"`;
    case 'wideString':
      return `"${'é'.repeat(n)}"`;
    case 'longArray':
      return `[${Array.from({ length: n }, () => '"candle_1m"').join(',')}]`;
    case 'manyKeys':
      return `{${Array.from({ length: n }, (_, i) => `"K${i}":"v"`).join(',')}}`;
  }
}

const toText = (body: Json): string =>
  JSON.stringify(body).replace(MARKER_TEXT, (_, kind: string, size: string) =>
    bigText(kind as Big, Number(size)),
  );

/** Markers left in a body, with their paths. */
function markersOf(
  value: Json,
  path: PathSegment[] = [],
): { kind: Big; size: number; path: PathSegment[] }[] {
  if (typeof value === 'string') {
    const match = MARKER_VALUE.exec(value);
    return match ? [{ kind: match[1] as Big, size: Number(match[2]), path }] : [];
  }
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) =>
    markersOf(item, [...path, Array.isArray(value) ? Number(key) : key]),
  );
}

/** Whether a deep marker makes some top-level field nest deeper than the limit (see json-limits.ts). */
const tooDeep = (body: Json) =>
  markersOf(body).some(
    ({ kind, size, path }) =>
      (kind === 'object' || kind === 'array') && size + path.length - 1 > MAX_JSON_DEPTH,
  );

/** Keys the JSON parser refuses as prototype poisoning (secure-json-parse). */
const POISONED = /"(?:__proto__|constructor)"\s*:/;

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const unstorable = (text: string) => text.includes('\u0000') || UNPAIRED_SURROGATE.test(text);
function hasUnstorableText(value: Json): boolean {
  if (typeof value === 'string') return unstorable(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, item]) => unstorable(key) || hasUnstorableText(item));
}

// --- Mutations ---------------------------------------------------------------------------------

interface Mutation {
  kind: 'null' | 'delete' | 'wrongType' | 'random' | 'big' | 'badText' | 'unknownKey' | 'proto';
  pick: number;
  choice: number;
  value: Json;
}

const WRONG_TYPES: Json[] = [0, -1, 1.5, 1e308, true, '', 'x', [], {}, [null], { '': '' }];
const BAD_TEXT = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\u0001',
  '\u009f',
  '\u2028',
  '<redacted>',
  '😀',
];

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom(
    'null',
    'delete',
    'wrongType',
    'random',
    'big',
    'big',
    'badText',
    'unknownKey',
    'proto',
  ),
  pick: fc.nat(),
  choice: fc.nat(),
  value: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
});

/** Sizes around each limit: nesting 30-36 and far beyond; lengths around the byte budgets and far beyond. */
function bigSize(kind: Big, choice: number): number {
  const deep = [MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 100, 5_000, 200_000];
  const long = [100, 4_000, 16_000, 70_000, 300_000];
  const many = [10, 1_000, 20_000];
  if (kind === 'object' || kind === 'array') return deep[choice % deep.length] as number;
  if (kind === 'longArray' || kind === 'manyKeys') return many[choice % many.length] as number;
  return long[choice % long.length] as number;
}

function mutate(body: Json, mutations: Mutation[]): Json {
  return editAtPaths(body, mutations, 6, (mutation, current) => {
    const { kind, choice } = mutation;
    if (kind === 'unknownKey' || kind === 'proto') {
      if (typeof current === 'object' && current !== null && !Array.isArray(current)) {
        // `__proto__` as an own key: JSON.stringify writes it, JSON.parse on the server reads it.
        Object.defineProperty(current, kind === 'proto' ? '__proto__' : `zz${choice % 5}`, {
          value: mutation.value,
          enumerable: true,
          configurable: true,
          writable: true,
        });
      }
      return EDITED_IN_PLACE;
    }
    if (kind === 'null') return null;
    if (kind === 'delete') return undefined;
    if (kind === 'wrongType') return WRONG_TYPES[choice % WRONG_TYPES.length] as Json;
    if (kind === 'random') return mutation.value;
    if (kind === 'badText') {
      const bad = BAD_TEXT[choice % BAD_TEXT.length] as string;
      return typeof current === 'string' ? `${current}${bad}` : bad;
    }
    const big = BIG_KINDS[choice % BIG_KINDS.length] as Big;
    return marker(big, bigSize(big, Math.floor(choice / BIG_KINDS.length)));
  });
}

// --- Operations --------------------------------------------------------------------------------

interface Fixture {
  owner: Account;
  strategyId: string;
  /** A second strategy for auto-run bindings, so that new versions never trigger runs. */
  autoRunStrategyId: string;
  readyVersionId: string;
  versionId: string;
  configId: string;
  scenarioId: string;
}

/** Bytes of JSON of a stored field, as the server measures it. */
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

const window = { startTime: '2024-01-01T00:00:00Z', endTime: '2024-01-15T00:00:00Z' };
const configuration = (): Json => ({
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
  ...window,
  positionMode: 'netting',
  initialCapital: 5000,
  env: { FAST: '5', SLOW: '20' },
  costs: {
    commission: { model: 'bps_of_notional', fee_rate_bps: '2.5' },
    slippage: { base_slippage_bps: '1', size_impact_bps_per_100k: '0.5', max_slippage_bps: '20' },
    funding: {
      model: 'daily',
      long_rate: '-0.05',
      short_rate: '0.01',
      day_multipliers: [1, 1, 3, 1, 1, 0, 0],
    },
  },
});

type Collection = 'strategies' | 'versions' | 'configurations' | 'scenarios' | 'apiKeys';

interface Operation {
  name: string;
  method: 'POST' | 'PUT' | 'PATCH';
  path: (f: Fixture) => string;
  session?: true;
  body: (f: Fixture) => Json;
  /** The stored JSON fields with byte budgets, by their path in the body (`*` is any array index). */
  limited?: { path: PathSegment[]; field: StoredJsonField }[];
  /** What an accepted request adds to each collection. */
  adds?: (response: ApiResponse) => Partial<Record<Collection, number>>;
  /** The state a refusal must leave unchanged (re-read after every refusal). */
  state?: (t: TestPlatform, f: Fixture) => Promise<unknown>;
}

const getData = async (t: TestPlatform, f: Fixture, path: string) =>
  (await t.api.get(path, { key: f.owner.key })).body.data;
const configurationLimits = (prefix: PathSegment[]) =>
  (['subscriptions', 'costs'] as const).map((field) => ({ path: [...prefix, field], field }));

const OPERATIONS: Operation[] = [
  {
    name: 'create strategy',
    method: 'POST',
    path: () => '/v1/strategies',
    body: () => ({ name: 'fuzzed', description: 'a strategy' }),
    adds: () => ({ strategies: 1 }),
  },
  {
    name: 'update strategy',
    method: 'PUT',
    path: (f) => `/v1/strategies/${f.strategyId}`,
    body: () => ({ name: 'renamed', description: 'changed' }),
    state: (t, f) => getData(t, f, `/v1/strategies/${f.strategyId}`),
  },
  {
    name: 'create version',
    method: 'POST',
    path: (f) => `/v1/strategies/${f.strategyId}/versions`,
    body: () => ({
      label: 'v1',
      description: 'a version',
      metadata: { commit: 'abc', params: { fast: [5, 8] } },
    }),
    limited: [{ path: ['metadata'], field: 'metadata' }],
    adds: () => ({ versions: 1 }),
  },
  {
    name: 'update version',
    method: 'PATCH',
    path: (f) => `/v1/strategies/${f.strategyId}/versions/${f.versionId}`,
    body: () => ({
      label: 'v2',
      metadata: {
        tuned: true,
        grid: [
          [1, 2],
          [3, 4],
        ],
      },
    }),
    limited: [{ path: ['metadata'], field: 'metadata' }],
    state: (t, f) => getData(t, f, `/v1/strategies/${f.strategyId}/versions/${f.versionId}`),
  },
  {
    name: 'create configuration',
    method: 'POST',
    path: () => '/v1/configurations',
    body: () => ({
      name: 'fuzzed',
      description: 'a configuration',
      isActive: true,
      ...(configuration() as object),
    }),
    limited: configurationLimits([]),
    adds: () => ({ configurations: 1 }),
  },
  {
    name: 'replace configuration',
    method: 'PUT',
    path: (f) => `/v1/configurations/${f.configId}`,
    body: () => ({ name: 'replaced', ...(configuration() as object) }),
    limited: configurationLimits([]),
    state: (t, f) => getData(t, f, `/v1/configurations/${f.configId}`),
  },
  {
    name: 'create scenario',
    method: 'POST',
    path: (f) => `/v1/strategies/${f.strategyId}/scenarios`,
    body: (f) => ({ strategyVersionId: f.readyVersionId, ...(configuration() as object) }),
    limited: configurationLimits([]),
    adds: () => ({ scenarios: 1 }),
  },
  {
    name: 'create scenario batch',
    method: 'POST',
    path: (f) => `/v1/strategies/${f.strategyId}/scenarios/batch`,
    body: (f) => ({
      strategyVersionId: f.readyVersionId,
      configurations: [configuration()],
      base: configuration(),
      envGrid: { FAST: ['3', '5'], SLOW: ['20'] },
    }),
    limited: [
      ...configurationLimits(['configurations', '*']),
      ...configurationLimits(['base']),
      { path: ['envGrid'], field: 'envGrid' },
    ],
    adds: (response) => ({ scenarios: response.body.data.length }),
  },
  {
    name: 'create scenarios from configurations',
    method: 'POST',
    path: (f) => `/v1/strategies/${f.strategyId}/scenarios/from-configs`,
    body: (f) => ({ strategyVersionId: f.readyVersionId, configIds: [f.configId], env: { RUN: '1' } }),
    adds: (response) => ({
      scenarios: response.body.data.filter((r: { status: string }) => r.status === 'created').length,
    }),
  },
  {
    name: 'set auto-run configurations',
    method: 'PUT',
    path: (f) => `/v1/strategies/${f.autoRunStrategyId}/auto-run-configs`,
    body: (f) => ({ configIds: [f.configId] }),
    state: (t, f) => t.platform.ctx.strategies.autoRunConfigs(f.autoRunStrategyId),
  },
  {
    name: 'compare scenarios',
    method: 'POST',
    path: () => '/v1/scenarios/compare',
    body: (f) => ({ scenarioIds: [f.scenarioId] }),
  },
  {
    name: 'create API key',
    method: 'POST',
    path: () => '/v1/api-keys',
    session: true,
    body: () => ({ name: 'fuzzed key' }),
    adds: () => ({ apiKeys: 1 }),
  },
];

/** Values at a path pattern (`*` matches every array index). */
function valuesAt(body: unknown, pattern: PathSegment[]): unknown[] {
  let nodes: unknown[] = [body];
  for (const segment of pattern) {
    nodes = nodes.flatMap((node) => {
      if (typeof node !== 'object' || node === null) return [];
      if (segment === '*') return Array.isArray(node) ? node : [];
      return Object.hasOwn(node, segment) ? [(node as Record<PathSegment, unknown>)[segment]] : [];
    });
  }
  return nodes;
}

/** Asserts the common contract of any response: never a 5xx, a refusal is the envelope with a code. */
function assertEnvelope(response: ApiResponse, context: string): void {
  assert.ok(response.status < 500, `never a ${response.status}: ${context}`);
  if (response.status >= 400) {
    assert.deepEqual(Object.keys(response.body), ['error'], context);
    assert.equal(typeof response.body.error.code, 'string', context);
    assert.ok(response.body.error.code.length > 0, context);
    assert.ok(typeof response.body.error.message === 'string' && response.body.error.message.length > 0);
  }
}

const errorText = (response: ApiResponse) =>
  `${response.body.error?.message ?? ''} ${response.body.error?.details ?? ''}`;

// --- Properties --------------------------------------------------------------------------------

// The embedded store by default (the limits act before storage); FUZZ_BACKEND=postgres with
// TEST_DATABASE_URL runs it on a server.
const backendName = process.env.FUZZ_BACKEND ?? 'pglite';
const backend = storageBackends().find((b) => b.name === backendName);
if (!backend) throw new Error(`no ${backendName} backend (postgres needs TEST_DATABASE_URL)`);

describe(`request limits fuzzing (${backend.name})`, () => {
  const t = withTestPlatform(backend, { settings: { scenarioQuota: '100000' } });
  let f: Fixture;
  const expected: Record<Collection, number> = {
    strategies: 0,
    versions: 0,
    configurations: 0,
    scenarios: 0,
    apiKeys: 0,
  };
  const seen = { accepted: 0, refused: 0, requests: 0 };

  before(async () => {
    const { api } = t.get();
    const owner = await t.get().account('limits');
    const strategy = async (name: string) =>
      (await api.post('/v1/strategies', { key: owner.key, body: { name } })).body.data.strategyId as string;
    const strategyId = await strategy('fuzz target');
    const autoRunStrategyId = await strategy('auto-run target');
    const ready = await pushPythonScript(api, owner.key, strategyId, 'print("hello")\n');
    const version = await api.post(`/v1/strategies/${strategyId}/versions`, { key: owner.key, body: {} });
    const config = await api.post('/v1/configurations', {
      key: owner.key,
      body: { name: 'fixture', ...(configuration() as object) },
    });
    assert.equal(config.status, 201, config.text);
    const scenario = await api.post(`/v1/strategies/${strategyId}/scenarios`, {
      key: owner.key,
      body: { strategyVersionId: ready.data.versionId, ...(configuration() as object) },
    });
    assert.equal(scenario.status, 201, scenario.text);
    f = {
      owner,
      strategyId,
      autoRunStrategyId,
      readyVersionId: ready.data.versionId,
      versionId: version.body.data.versionId,
      configId: config.body.data.configId,
      scenarioId: scenario.body.data.scenarioId,
    };
    Object.assign(expected, { strategies: 2, versions: 2, configurations: 1, scenarios: 1, apiKeys: 1 });
  });

  const send = async (operation: Operation, text: string) => {
    seen.requests += 1;
    return t.get().api.request(operation.method, operation.path(f), {
      ...(operation.session ? { session: f.owner.session } : { key: f.owner.key }),
      rawBody: text,
      headers: { 'content-type': 'application/json' },
    });
  };

  it('every stored JSON field: hostile values are a 2xx or a 4xx envelope, limits name the field, refusals change nothing', async () => {
    const states = new Map<string, unknown>();
    for (const operation of OPERATIONS) {
      if (operation.state) states.set(operation.name, await operation.state(t.get(), f));
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...OPERATIONS),
        fc.array(mutationArb, { minLength: 0, maxLength: 2 }),
        async (operation, mutations) => {
          const body = mutate(operation.body(f), mutations);
          const text = toText(body);
          const response = await send(operation, text);
          const context = `${operation.name}: ${response.status} ${response.text.slice(0, 300)}\nsent: ${text.slice(0, 300)}`;
          assertEnvelope(response, context);
          const refused = response.status >= 400;
          seen[refused ? 'refused' : 'accepted'] += 1;
          if (Buffer.byteLength(text) > BODY_LIMIT) {
            assert.equal(response.status, 400, context);
          } else if (POISONED.test(text)) {
            // Prototype-poisoning keys: the parser's business (refused or not), checked above for shape.
          } else if (tooDeep(body)) {
            assert.equal(response.status, 400, context);
            assert.match(
              response.body.error.message,
              new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`),
            );
          } else if (hasUnstorableText(body)) {
            assert.ok(refused, `text storage cannot hold is refused: ${context}`);
          } else if (markersOf(body).length > 0) {
            // Big but not too deep: a limited field over its budget is refused naming its limit (the
            // outermost one speaks: a batch's envGrid before the configurations inside it).
            const parsed = JSON.parse(text) as unknown;
            const over = (operation.limited ?? []).filter(({ path, field }) =>
              valuesAt(parsed, path).some((value) => jsonBytes(value) > STORED_JSON_BYTES[field]),
            );
            if (over.length > 0) {
              assert.equal(response.status, 400, context);
              assert.ok(
                over.some(({ field }) =>
                  errorText(response).includes(`at most ${STORED_JSON_BYTES[field]} bytes are allowed`),
                ),
                context,
              );
            }
          }
          if (!refused) {
            for (const [collection, count] of Object.entries(operation.adds?.(response) ?? {})) {
              expected[collection as Collection] += count as number;
            }
            if (operation.state) states.set(operation.name, await operation.state(t.get(), f));
          } else if (operation.state) {
            assert.deepEqual(
              await operation.state(t.get(), f),
              states.get(operation.name),
              `unchanged: ${context}`,
            );
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a body nested 200,000 levels on every write endpoint is a 400 naming the field, never a crash', async () => {
    for (const operation of OPERATIONS) {
      const field = Object.keys(operation.body(f) as object)[0] as string;
      for (const deep of [bigText('array', 200_000), bigText('object', 100_000)]) {
        for (const text of [`{"${field}":${deep}}`, deep]) {
          const response = await send(operation, text);
          assertEnvelope(response, operation.name);
          assert.equal(response.status, 400, `${operation.name}: ${response.text}`);
          const named = text === deep ? (deep.startsWith('[') ? '[0]' : 'a') : field;
          assert.equal(response.body.error.message, `${named}: nested deeper than ${MAX_JSON_DEPTH} levels`);
        }
      }
    }
  });

  it('metadata: 32 levels and 16 KiB are accepted, one more level or byte is refused naming the limit', async () => {
    const { api } = t.get();
    const path = `/v1/strategies/${f.strategyId}/versions`;
    const post = (metadata: string) =>
      api.post(path, {
        key: f.owner.key,
        rawBody: `{"metadata":${metadata}}`,
        headers: { 'content-type': 'application/json' },
      });
    const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    const accepted = await post(nested(MAX_JSON_DEPTH));
    assert.equal(accepted.status, 201, accepted.text);
    expected.versions += 1;
    const deeper = await post(nested(MAX_JSON_DEPTH + 1));
    assert.equal(deeper.status, 400);
    assert.equal(deeper.body.error.message, `metadata: nested deeper than ${MAX_JSON_DEPTH} levels`);
    const budget = STORED_JSON_BYTES.metadata;
    const sized = (bytes: number) => `{"s":"${'x'.repeat(bytes - '{"s":""}'.length)}"}`;
    const full = await post(sized(budget));
    assert.equal(full.status, 201, full.text);
    expected.versions += 1;
    const over = await post(sized(budget + 1));
    assert.equal(over.status, 400);
    assert.equal(
      over.body.error.message,
      `metadata: is ${budget + 1} bytes as JSON; at most ${budget} bytes are allowed`,
    );
  });

  it('every query parameter of every GET: hostile text is a 2xx or a 4xx envelope; NUL is refused naming it', async () => {
    const { api, platform } = t.get();
    const document = (await (await fetch(new URL('/v1/openapi.json', platform.url))).json()) as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; in: string }[]; security?: unknown[] }>
      >;
    };
    const ids: Record<string, string> = {
      strategy_id: f.strategyId,
      version_id: f.versionId,
      config_id: f.configId,
      scenario_id: f.scenarioId,
      prefix: f.owner.key.slice(0, 8),
      symbol: 'C:BTCUSD',
    };
    const routes = Object.entries(document.paths).flatMap(([template, operations]) => {
      const params = (operations.get?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? name);
      return params.length > 0
        ? [{ template, path, params, session: template.startsWith('/v1/api-keys') }]
        : [];
    });
    assert.ok(
      routes.length >= 8,
      `GET routes with query parameters: ${routes.map((r) => r.template).join(', ')}`,
    );
    const get = (route: (typeof routes)[number], query: string) => {
      seen.requests += 1;
      return api.get(
        `${route.path}?${query}`,
        route.session ? { session: f.owner.session } : { key: f.owner.key },
      );
    };
    // Deterministic: NUL in each parameter alone is a 400 naming that parameter.
    for (const route of routes) {
      for (const param of route.params) {
        const response = await get(route, `${param}=a%00b`);
        assertEnvelope(response, `${route.template} ${param}`);
        assert.equal(response.status, 400, `${route.template} ${param}=a%00b: ${response.text}`);
        assert.match(response.body.error.message, new RegExp(`^query parameter ${param}: `));
      }
    }
    // A query string over Node's header limit is refused by its HTTP parser: still the envelope.
    const long = await get(
      routes[0] as (typeof routes)[number],
      `${routes[0]?.params[0]}=${'x'.repeat(20_000)}`,
    );
    assertEnvelope(long, 'a 20,000-character query string');
    assert.equal(long.status, 400);
    assert.match(long.body.error.message, /larger than \d+ KiB; shorten the query string/);
    const rawValue = fc.oneof(
      fc.string({ maxLength: 30 }).map(encodeURIComponent),
      fc.string({ unit: 'binary', maxLength: 30 }).map(encodeURIComponent),
      fc.constantFrom(
        '%00',
        'x%00',
        '%ED%A0%80',
        '%C0%80',
        '%FF',
        '%',
        '%E2%80%A8',
        '1e3',
        '-1',
        '0',
        '101',
        'true',
        'TRUE',
        'QUEUED',
        'C%3ABTCUSD%2CF%3AEURUSD',
        '2024-01-01T00%3A00%3A00Z',
        'available',
        'crypto',
        'stdout',
        '',
      ),
      fc.constantFrom(300, 5_000, 20_000).map((n) => 'x'.repeat(n)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(fc.tuple(fc.nat(), rawValue), { minLength: 1, maxLength: 3 }),
        async (route, pairs) => {
          const query = pairs
            .map(([pick, value]) => `${route.params[pick % route.params.length]}=${value}`)
            .join('&');
          const response = await get(route, query);
          const context = `${route.template}?${query.slice(0, 200)}: ${response.status} ${response.text.slice(0, 300)}`;
          assertEnvelope(response, context);
          if (/%00/.test(query) && response.status < 400) {
            assert.fail(`a NUL in a query parameter is refused: ${context}`);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('refused requests wrote nothing: every collection holds exactly what was accepted', async (context) => {
    const { api } = t.get();
    const count = async (path: string, credentials: { key?: string; session?: string }, query = {}) => {
      let total = 0;
      let cursor: string | undefined;
      do {
        const page = await api.get(path, {
          ...credentials,
          query: { limit: '100', ...query, ...(cursor && { cursor }) },
        });
        assert.equal(page.status, 200, page.text);
        total += page.body.data.length;
        cursor = page.body.nextCursor;
      } while (cursor);
      return total;
    };
    const key = { key: f.owner.key };
    context.diagnostic(JSON.stringify({ ...seen, expected }));
    assert.deepEqual(
      {
        strategies: await count('/v1/strategies', key, { includeArchived: 'true' }),
        versions: await count(`/v1/strategies/${f.strategyId}/versions`, key),
        configurations: await count('/v1/configurations', key),
        scenarios: await count(`/v1/strategies/${f.strategyId}/scenarios`, key),
        apiKeys: await count('/v1/api-keys', { session: f.owner.session }),
      },
      expected,
    );
    assert.ok(seen.accepted > 0 && seen.refused > 0, JSON.stringify(seen));
  });
});
