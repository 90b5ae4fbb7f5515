import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import {
  type CatalogLookup,
  catalogIssues,
  type InstrumentView,
  type SavedConfiguration,
  validateConfiguration,
} from '@hindsight/core';
import fc from 'fast-check';
import { type Body, savedBase } from '../../core/test/fixtures/configuration-cases.ts';
import { STORED_JSON_BYTES } from '../src/http/json-limits.ts';
import type { ApiClient, ApiResponse } from './support/api-client.ts';
import { EDITED_IN_PLACE, editAtPaths, type Json } from './support/json-edits.ts';
import { storageBackends } from './support/storage-backends.ts';
import { type Account, withTestPlatform } from './support/test-platform.ts';

/**
 * Property tests of POST and PUT /v1/configurations over real HTTP, on the embedded store only (the
 * validation path is the same on both backends; PostgreSQL runs the table replay). Every response must
 * be a success or a 400 BAD_REQUEST envelope, never a 500, and it must agree with an oracle built from
 * the validator itself, the catalog the server publishes, and what the store can hold.
 */

const BODY_LIMIT = 1024 * 1024;
const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 200);

type Outcome = { accepted: true; fields: Body } | { accepted: false } | { accepted: 'either' };

/** What the store cannot hold: U+0000 and unpaired UTF-16 surrogates (see routes/configurations.ts). */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const unstorable = (text: string): boolean => text.includes('\u0000') || UNPAIRED_SURROGATE.test(text);

function hasUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return unstorable(value);
  if (Array.isArray(value)) return value.some(hasUnstorableText);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(([key, item]) => unstorable(key) || hasUnstorableText(item));
  }
  return false;
}

function hasNull(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.some(hasNull);
  if (typeof value === 'object') return Object.values(value).some(hasNull);
  return false;
}

/** The status the server must answer for this JSON text, and the record fields when it accepts. */
function oracle(text: string | undefined, lookup: CatalogLookup): Outcome {
  if (text === undefined || Buffer.byteLength(text) > BODY_LIMIT) return { accepted: false };
  // The JSON parser refuses prototype-poisoning keys; which of them it refuses is its own business.
  if (/"(?:__proto__|constructor)"\s*:/.test(text)) return { accepted: 'either' };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { accepted: false };
  }
  const result = validateConfiguration('saved', body);
  if (!result.ok) return { accepted: false };
  // The API's byte budgets of stored JSON fields (docs/management-api.md), on top of the validator.
  const fields = body as Record<string, unknown>;
  const overBudget = (['subscriptions', 'costs'] as const).some(
    (field) => Buffer.byteLength(JSON.stringify(fields[field]) ?? '') > STORED_JSON_BYTES[field],
  );
  if (overBudget) return { accepted: false };
  const config: SavedConfiguration = result.value;
  if (hasUnstorableText(config) || catalogIssues(config, lookup).length > 0) return { accepted: false };
  return { accepted: true, fields: JSON.parse(JSON.stringify(config)) as Body };
}

function fieldsOf(record: Record<string, unknown>): Body {
  const { configId: _id, ownerId: _owner, createdAt: _c, updatedAt: _u, ...fields } = record;
  return fields;
}

/** Checks a response against the oracle; answers whether it wrote a record. */
function check(
  response: ApiResponse,
  expected: Outcome,
  success: 200 | 201,
  sent: string | undefined,
): boolean {
  const context = `${response.status} ${response.text.slice(0, 300)}\nsent: ${String(sent).slice(0, 300)}`;
  assert.ok(response.status === success || response.status === 400, `never a ${response.status}: ${context}`);
  if (response.status === 400) {
    assert.equal(response.body.error.code, 'BAD_REQUEST', context);
    assert.equal(typeof response.body.error.message, 'string');
    assert.notEqual(expected.accepted, true, `the validator accepts this body: ${context}`);
    return false;
  }
  assert.notEqual(expected.accepted, false, `the validator refuses this body: ${context}`);
  assert.equal(hasNull(response.body), false, `no nulls in a record: ${context}`);
  if (expected.accepted === true) assert.deepEqual(fieldsOf(response.body.data), expected.fields, context);
  return true;
}

async function catalogLookup(api: ApiClient): Promise<CatalogLookup> {
  const response = await api.get('/v1/instruments');
  assert.equal(response.status, 200);
  const all = response.body.data as (InstrumentView & { dataSymbol: string })[];
  assert.ok(all.length > 0);
  return {
    bySymbol: (symbol) => all.find((i) => i.symbol === symbol),
    byDataSymbol: (dataSymbol) => all.find((i) => i.dataSymbol === dataSymbol),
  };
}

async function countConfigurations(api: ApiClient, key: string): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await api.get('/v1/configurations', {
      key,
      query: { limit: '100', ...(cursor && { cursor }) },
    });
    assert.equal(page.status, 200);
    count += page.body.data.length;
    cursor = page.body.nextCursor;
  } while (cursor);
  return count;
}

// --- Generators ---------------------------------------------------------------------------------

/** Mostly a valid value, sometimes one of the ways it goes wrong. */
const mostly = <T>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.oneof({ weight: 19, arbitrary: valid }, { weight: 1, arbitrary: invalid });

/** Each available sample instrument with a day inside its data, so windows around it overlap it. */
const AVAILABLE = [
  { symbol: 'C:BTCUSD', day: '2024-02-01' },
  { symbol: 'F:EURUSD', day: '2014-05-05' },
  { symbol: 'F:USDJPY', day: '2013-02-10' },
  { symbol: 'S:SPY', day: '2011-03-10' },
];
const OTHER_INSTRUMENTS = ['C:ETHUSD', 'BTCUSDT', 'c:btcusd', 'X:NONE', ''];
const CANDLES = [
  'candle_1m',
  'candle_*',
  'candle_*m',
  'candle_*h',
  'candle_{1,5}m',
  'candle_{5}m',
  'candle_1d',
];
const UPDATES = ['order_update', 'trade_update', 'position_update', 'account_update'];
const BAD_EVENTS = ['tick', 'candle_3m', 'candle_*d', 'candle_{1, 5}m', 'CANDLE_1m', ''];
const OFFSETS = ['Z', '+00:00', '+02:00', '-05:30', '.5Z', '.123456789Z', '+23:59'];

const timestamp = (day: string, shiftMinutes: number, offset: string): string => {
  const at = new Date(Date.parse(`${day}T00:00:00Z`) + shiftMinutes * 60_000).toISOString();
  return `${at.slice(0, 19)}${offset}`;
};

const eventsArb = mostly(
  fc
    .tuple(fc.constantFrom(...CANDLES), fc.array(fc.constantFrom(...CANDLES, ...UPDATES), { maxLength: 3 }))
    .map(([candle, rest]) => [candle, ...rest]),
  fc.array(fc.constantFrom(...CANDLES, ...UPDATES, ...BAD_EVENTS), { maxLength: 4 }),
);

const textArb = mostly(
  fc.string({ minLength: 1, maxLength: 24 }),
  fc.oneof(
    fc.string({ maxLength: 12, unit: 'binary' }),
    fc.constantFrom('', ' ', 'a\u0000b', 'x\ud800', '\udc00', '😀', 'n'.repeat(201)),
  ),
);

const bpsArb = mostly(
  fc.stringMatching(/^[0-9]{1,4}(\.[0-9]{1,4})?$/),
  fc.constantFrom('10000', '-0.01', '1e3', '.5', '1.', '+1', ' 1', '9'.repeat(40)),
);
const rateArb = mostly(
  fc.constantFrom('0', '0.05', '-0.05', '1', '-1.000', '-0.000001'),
  fc.constantFrom('1.0001', '-1.5', '-5e-2', 'x'),
);

const costsArb = fc.record(
  {
    commission: mostly(
      fc.oneof(
        fc.constant<Json>({ model: 'zero' }),
        bpsArb.map((fee): Json => ({ model: 'bps_of_notional', fee_rate_bps: fee })),
      ),
      fc.constantFrom<Json>(
        { model: 'percent' },
        { fee_rate_bps: '1' },
        { model: 'zero', fee_rate_bps: '0' },
      ),
    ),
    slippage: fc.record({
      base_slippage_bps: bpsArb,
      size_impact_bps_per_100k: bpsArb,
      max_slippage_bps: bpsArb,
    }),
    funding: fc.oneof(
      fc.constant<Json>({ model: 'disabled' }),
      fc.record(
        {
          model: fc.constant('daily'),
          long_rate: rateArb,
          short_rate: rateArb,
          day_multipliers: mostly(
            fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 7, maxLength: 7 }),
            fc.array(fc.integer({ min: -1, max: 5 }), { minLength: 6, maxLength: 8 }),
          ),
          day_count_basis: mostly(fc.constantFrom(360, 365), fc.constantFrom(366, 0)),
        },
        { requiredKeys: ['model', 'long_rate', 'short_rate'] },
      ),
    ),
  },
  { requiredKeys: [] },
);

const envArb = fc.dictionary(
  mostly(
    fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/),
    fc.constantFrom('PLATFORM_X', 'PROXY_WS_URL', '1A', 'MY-KEY', ''),
  ),
  mostly(fc.string({ maxLength: 16 }), fc.constantFrom('a\nb', '\u007f', 'x\ud800', '<redacted>')),
  { maxKeys: 5 },
);

/**
 * Bodies built from the grammar's own pieces, every field mostly valid: a good share is accepted and
 * the rest fail in one or a few ways. The window is placed around the first instrument's data.
 */
const validishArb: fc.Arbitrary<Json> = fc
  .record(
    {
      name: mostly(fc.constant('fuzzed'), textArb),
      description: textArb,
      isActive: fc.boolean(),
      primary: fc.constantFrom(...AVAILABLE),
      events: eventsArb,
      extra: mostly(
        fc.constant<{ instrument: string; events: string[] }[]>([]),
        fc.uniqueArray(
          fc.record({
            instrument: fc.constantFrom(...AVAILABLE.map((a) => a.symbol), ...OTHER_INSTRUMENTS),
            events: eventsArb,
          }),
          { maxLength: 2, selector: (s) => s.instrument },
        ),
      ),
      before: mostly(
        fc.integer({ min: 0, max: 60 * 24 * 3 }),
        fc.integer({ min: -60 * 24 * 400, max: 60 * 24 * 400 }),
      ),
      length: mostly(fc.integer({ min: 1, max: 60 * 24 * 5 }), fc.integer({ min: -60, max: 60 })),
      startOffset: mostly(fc.constant('Z'), fc.constantFrom(...OFFSETS)),
      endOffset: mostly(fc.constant('Z'), fc.constantFrom(...OFFSETS)),
      positionMode: mostly(fc.constantFrom('netting', 'hedging'), fc.constantFrom('NETTING', '')),
      initialCapital: mostly(
        fc.oneof(
          fc.integer({ min: 1, max: 100_000_000 }),
          fc.double({ min: 1, max: 100_000_000, noNaN: true }),
        ),
        fc.constantFrom(0, 0.5, 100_000_001, -1),
      ),
      env: envArb,
      costs: costsArb,
    },
    {
      requiredKeys: ['name', 'primary', 'events', 'extra', 'before', 'length', 'startOffset', 'endOffset'],
    },
  )
  .map(
    ({ primary, events, extra, before, length, startOffset, endOffset, ...rest }): Json => ({
      ...rest,
      subscriptions: [{ instrument: primary.symbol, events }, ...extra],
      startTime: timestamp(primary.day, -before, startOffset),
      endTime: timestamp(primary.day, -before + length, endOffset),
    }),
  );

/**
 * Deep nesting is spliced into the JSON text, so that neither this file nor fast-check recurses
 * through it: a mutation leaves a marker string that `toText` replaces.
 */
const deepMarker = (depth: number, asObject: boolean): string =>
  `\u0001deep:${depth}:${asObject ? 'o' : 'a'}\u0001`;
const DEEP_MARKER_JSON = /"\\u0001deep:(\d+):([oa])\\u0001"/g;

const toText = (body: Json): string =>
  JSON.stringify(body).replace(DEEP_MARKER_JSON, (_, depth: string, kind: string) => {
    const n = Number(depth);
    return kind === 'o' ? `${'{"a":'.repeat(n)}1${'}'.repeat(n)}` : `${'['.repeat(n)}1${']'.repeat(n)}`;
  });

const WRONG_TYPES: Json[] = [
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  true,
  false,
  '',
  'x',
  [],
  {},
  [null],
  { '': '' },
];

interface Mutation {
  kind: 'null' | 'delete' | 'wrongType' | 'random' | 'huge' | 'deep' | 'unknownKey' | 'badText' | 'duplicate';
  pick: number;
  choice: number;
  value: Json;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom(
    'null',
    'delete',
    'wrongType',
    'random',
    'huge',
    'deep',
    'unknownKey',
    'badText',
    'duplicate',
  ),
  pick: fc.nat(),
  choice: fc.nat(),
  value: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
});

/** The replacement a mutation puts at its path (undefined deletes). */
function replacement(mutation: Mutation, current: Json): Json | undefined {
  const { kind, choice, value } = mutation;
  switch (kind) {
    case 'null':
      return null;
    case 'delete':
      return undefined;
    case 'wrongType':
      return WRONG_TYPES[choice % WRONG_TYPES.length] as Json;
    case 'random':
      return value;
    case 'huge':
      return ['x', 'é', '9', 'candle_1m,'][choice % 4]?.repeat(50_000 + (choice % 250_000)) ?? '';
    case 'deep':
      return deepMarker(100 + (choice % 20_000), choice % 2 === 0);
    case 'badText': {
      const bad = ['\u0000', '\ud800', '\udfff', '\n', '\u009f', '\u2028'][choice % 6] as string;
      return typeof current === 'string' ? `${current}${bad}` : bad;
    }
    default:
      return current;
  }
}

function mutate(body: Json, mutations: Mutation[]): Json {
  return editAtPaths(body, mutations, 8, (mutation, current) => {
    if (mutation.kind === 'unknownKey' || mutation.kind === 'duplicate') {
      if (Array.isArray(current) && mutation.kind === 'duplicate' && current.length > 0) {
        current.push(structuredClone(current[0] as Json));
      } else if (typeof current === 'object' && current !== null && !Array.isArray(current)) {
        current[`zz${mutation.choice % 7}`] = mutation.value;
      }
      return EDITED_IN_PLACE;
    }
    return replacement(mutation, current);
  });
}

const mutatedArb = fc
  .tuple(
    fc.oneof(validishArb, fc.constant(savedBase as Json)),
    fc.array(mutationArb, { minLength: 1, maxLength: 3 }),
  )
  // As JSON text, so that fast-check never has to print a deeply nested value.
  .map(([body, mutations]) => toText(mutate(body, mutations)));
const validishTextArb = validishArb.map((body) => JSON.stringify(body));

// --- Properties ---------------------------------------------------------------------------------

const backend = storageBackends().find((b) => b.name === 'pglite');
if (!backend) throw new Error('the pglite backend is always available');

describe(`configuration fuzzing (${backend.name})`, () => {
  const t = withTestPlatform(backend);
  let owner: Account;
  let lookup: CatalogLookup;
  let created = 0;
  const seen = { accepted: 0, refused: 0 };

  before(async () => {
    owner = await t.get().account('fuzz');
    lookup = await catalogLookup(t.get().api);
  });

  const post = async (raw: string | undefined, headers: Record<string, string> = {}) => {
    const { api } = t.get();
    // What goes over the wire: UTF-8, in which a lone surrogate becomes U+FFFD.
    const text = raw === undefined ? undefined : Buffer.from(raw, 'utf8').toString('utf8');
    const response = await api.post('/v1/configurations', {
      key: owner.key,
      ...(text !== undefined && {
        rawBody: text,
        headers: { 'content-type': 'application/json', ...headers },
      }),
    });
    const wrote = check(response, oracle(text, lookup), 201, text);
    if (wrote) created += 1;
    seen[wrote ? 'accepted' : 'refused'] += 1;
    return response;
  };

  it('POST: any JSON value is a 201 or a 400, as the validator decides', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (body) => {
        await post(JSON.stringify(body));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('POST: bodies built from the grammar, and mutations of them, agree with the validator', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(validishTextArb, mutatedArb), async (text) => {
        await post(text);
      }),
      { numRuns: NUM_RUNS },
    );
    assert.ok(seen.accepted >= NUM_RUNS / 10, `too few accepted bodies to mean anything: ${seen.accepted}`);
  });

  it('POST: arbitrary text sent as JSON is never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 64 }),
          fc.json({ maxDepth: 3 }).map((text) => text.slice(0, Math.max(1, text.length - 1))),
        ),
        async (text) => {
          await post(text);
        },
      ),
      { numRuns: Math.ceil(NUM_RUNS / 2) },
    );
  });

  it('PUT: mutations are a 200 or a 400, and a 400 leaves the record as it was', async () => {
    const { api } = t.get();
    const target = await api.post('/v1/configurations', { key: owner.key, body: savedBase });
    assert.equal(target.status, 201);
    created += 1;
    const path = `/v1/configurations/${target.body.data.configId}`;
    let current = target.body.data;
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutatedArb, validishTextArb), async (text) => {
        const response = await api.put(path, {
          key: owner.key,
          rawBody: text,
          headers: { 'content-type': 'application/json' },
        });
        if (check(response, oracle(text, lookup), 200, text)) {
          assert.equal(response.body.data.configId, current.configId);
          assert.equal(response.body.data.createdAt, current.createdAt);
          current = response.body.data;
        } else {
          const after = await api.get(path, { key: owner.key });
          assert.deepEqual(after.body.data, current, 'a refused PUT changes nothing');
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('wrote exactly one record per 201, and nothing for any refusal', async (context) => {
    const { api } = t.get();
    context.diagnostic(`POST bodies accepted: ${seen.accepted}, refused: ${seen.refused}`);
    assert.equal(await countConfigurations(api, owner.key), created);
    assert.ok(seen.refused > 0 && seen.accepted > 0, JSON.stringify(seen));
  });
});
