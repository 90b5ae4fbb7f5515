import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { z } from 'zod';
import {
  type CatalogLookup,
  candlePatternGrammar,
  catalogIssues,
  ENV_MAX_KEYS,
  EventPatternError,
  envIssues,
  eventDefinitions,
  eventPatternRegex,
  expandEventPattern,
  expandEvents,
  formatIssues,
  formatPath,
  type InstrumentView,
  inlineConfigurationSchema,
  mergeEnv,
  parseEventPattern,
  parseIsoInstant,
  parseIsoTimestamp,
  savedConfigurationSchema,
  UPDATE_EVENTS,
  validateConfiguration,
} from '../src/configuration/index.ts';
import { TIMEFRAMES } from '../src/timeframes.ts';
import {
  type Body,
  type ConfigurationCase,
  configurationCases,
  FIXTURE_CATALOG,
  inlineBase,
  savedBase,
} from './fixtures/configuration-cases.ts';

const catalog: CatalogLookup = {
  bySymbol: (symbol) => view(FIXTURE_CATALOG.find((entry) => entry.symbol === symbol)),
  byDataSymbol: (dataSymbol) => view(FIXTURE_CATALOG.find((entry) => entry.dataSymbol === dataSymbol)),
};

function view(entry: (typeof FIXTURE_CATALOG)[number] | undefined): InstrumentView | undefined {
  if (!entry) return undefined;
  const { dataSymbol: _dataSymbol, ...rest } = entry;
  return rest;
}

type Detail = { path: string; message: string };
const parseDetails = (details: string): Detail[] => JSON.parse(details) as Detail[];
const prefixOf = (path: string): string => `${path === '' ? 'request body' : path}: `;

function assertNamesPath(testCase: ConfigurationCase, message: string, details: Detail[]): void {
  assert.deepEqual(
    details.map((detail) => detail.path),
    [testCase.expectPath],
    `exactly one issue, at ${testCase.expectPath}; got ${JSON.stringify(details)}`,
  );
  assert.ok(message.startsWith(prefixOf(testCase.expectPath)), `message names the path: ${message}`);
  assert.ok(message.includes(testCase.expectMessage), `message has "${testCase.expectMessage}": ${message}`);
}

describe('configuration rules table', () => {
  test('covers every rule with a distinct name and enough rows', () => {
    const names = configurationCases.map((testCase) => `${testCase.kind}:${testCase.rule}`);
    assert.equal(new Set(names).size, names.length);
    assert.ok(configurationCases.length >= 60, `only ${configurationCases.length} cases`);
    assert.ok(configurationCases.some((testCase) => testCase.kind === 'inline'));
    assert.ok(configurationCases.some((testCase) => testCase.needsCatalog));
  });

  for (const testCase of configurationCases) {
    describe(`${testCase.kind}: ${testCase.rule}`, () => {
      test('valid body is accepted (schema and catalog)', () => {
        const result = validateConfiguration(testCase.kind, testCase.valid);
        assert.ok(result.ok, result.ok ? '' : result.message);
        if (!testCase.validPassesSchemaOnly) assert.deepEqual(catalogIssues(result.value, catalog), []);
      });

      test('invalid body is refused naming the field', () => {
        const result = validateConfiguration(testCase.kind, testCase.invalid);
        if (testCase.needsCatalog) {
          assert.ok(result.ok, `catalog rows must pass the schema: ${result.ok ? '' : result.message}`);
          const issues = catalogIssues(result.value, catalog);
          const formatted = formatIssues(issues);
          assertNamesPath(testCase, formatted.message, parseDetails(formatted.details));
          return;
        }
        assert.equal(result.ok, false);
        if (!result.ok) assertNamesPath(testCase, result.message, parseDetails(result.details));
      });
    });
  }
});

describe('expandEvents', () => {
  test('candle_* expands to all twelve timeframes, smallest first', () => {
    assert.deepEqual(
      expandEventPattern('candle_*'),
      TIMEFRAMES.map((tf) => `candle_${tf}`),
    );
  });

  test('star shapes expand to minute and hour timeframes', () => {
    assert.deepEqual(expandEventPattern('candle_*m'), [
      'candle_1m',
      'candle_2m',
      'candle_5m',
      'candle_10m',
      'candle_15m',
      'candle_30m',
    ]);
    assert.deepEqual(expandEventPattern('candle_*h'), ['candle_1h', 'candle_2h', 'candle_4h', 'candle_12h']);
  });

  test('a brace list expands to exactly its elements', () => {
    assert.deepEqual(expandEventPattern('candle_{15,1,5}m'), ['candle_15m', 'candle_1m', 'candle_5m']);
    assert.deepEqual(expandEventPattern('candle_{5}m'), ['candle_5m']);
  });

  test('deduplicates and orders candles by timeframe, then update events canonically', () => {
    const result = expandEvents([
      'trade_update',
      'candle_{15,1}m',
      'order_update',
      'candle_1m',
      'candle_*h',
      'trade_update',
    ]);
    assert.deepEqual(result.events, [
      'candle_1m',
      'candle_15m',
      'candle_1h',
      'candle_2h',
      'candle_4h',
      'candle_12h',
      'order_update',
      'trade_update',
    ]);
    assert.deepEqual(result.timeframes, ['1m', '15m', '1h', '2h', '4h', '12h']);
  });

  test('throws EventPatternError with the reason for an invalid pattern', () => {
    assert.throws(
      () => expandEvents(['candle_1m', 'candle_*d']),
      (error: unknown) => {
        assert.ok(error instanceof EventPatternError);
        assert.match(error.message, /"candle_\*d" is not a valid event pattern/);
        return true;
      },
    );
    for (const pattern of ['tick', 'candle_', 'CANDLE_1m', 'candle_{1, 5}m', 'candle_{}m', 'candle_1M', '']) {
      assert.equal(parseEventPattern(pattern).ok, false, pattern);
    }
  });

  test('the published regex accepts exactly what the parser accepts', () => {
    const alphabet = fc.constantFrom(
      'candle_',
      '*',
      'm',
      'h',
      'd',
      'w',
      '{',
      '}',
      ',',
      ' ',
      '1',
      '2',
      '5',
      '0',
      '3',
      'order_update',
      'tick',
      'C',
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 8 }), (parts) => {
        const pattern = parts.join('');
        assert.equal(eventPatternRegex.test(pattern), parseEventPattern(pattern).ok, pattern);
      }),
      { numRuns: 3000 },
    );
  });

  test('the grammar table matches the expansion', () => {
    assert.deepEqual(
      candlePatternGrammar.map((rule) => rule.pattern),
      ['candle_<tf>', 'candle_*', 'candle_*m', 'candle_*h', 'candle_{a,b,c}m'],
    );
    const braces = candlePatternGrammar.find((rule) => rule.pattern === 'candle_{a,b,c}m');
    assert.deepEqual(braces?.expandsTo, ['candle_1m', 'candle_5m', 'candle_15m']);
  });

  test('event definitions describe every subscribable kind with its payload', () => {
    assert.deepEqual(
      eventDefinitions.map((definition) => definition.kind),
      ['candle_<timeframe>', ...UPDATE_EVENTS],
    );
    const candle = eventDefinitions[0];
    const bar = candle?.payload.find((field) => field.name === 'bar');
    assert.deepEqual(
      bar?.fields?.map((field) => field.name),
      ['symbol', 'provider', 'timeframe', 'timestamp', 'open', 'high', 'low', 'close', 'volume'],
    );
    const order = eventDefinitions.find((definition) => definition.kind === 'order_update');
    assert.deepEqual(
      order?.payload.map((field) => field.name),
      ['type', 'seq', 'timestamp', 'event', 'order', 'parent_order_id'],
    );
    assert.ok(order?.eventTypes.includes('BRACKET_ORDER_MODIFIED'));
    const trade = eventDefinitions.find((definition) => definition.kind === 'trade_update');
    assert.deepEqual(trade?.eventTypes, ['TRADE_FILLED']);
    // GET /v1/events serves this as JSON: it must survive serialization unchanged.
    assert.deepEqual(JSON.parse(JSON.stringify(eventDefinitions)), eventDefinitions);
  });
});

describe('parseIsoTimestamp', () => {
  test('parses UTC, offsets and fractions to epoch milliseconds', () => {
    assert.equal(parseIsoTimestamp('2024-01-01T00:00:00Z'), Date.UTC(2024, 0, 1));
    assert.equal(parseIsoTimestamp('2024-01-01T01:30:00+01:30'), Date.UTC(2024, 0, 1));
    assert.equal(parseIsoTimestamp('2023-12-31T19:00:00-05:00'), Date.UTC(2024, 0, 1));
    assert.equal(parseIsoTimestamp('2024-01-01T00:00:00.5Z'), Date.UTC(2024, 0, 1) + 500);
    assert.equal(parseIsoTimestamp('2024-01-01T00:00:00.123999Z'), Date.UTC(2024, 0, 1) + 123);
    assert.deepEqual(parseIsoInstant('2024-01-01T00:00:00.1234500Z'), {
      ms: Date.UTC(2024, 0, 1) + 123,
      subMs: '45',
    });
  });

  test('knows the calendar', () => {
    assert.equal(parseIsoTimestamp('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
    assert.equal(parseIsoTimestamp('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29));
    assert.equal(parseIsoTimestamp('1900-02-29T00:00:00Z'), undefined);
    assert.equal(parseIsoTimestamp('2023-02-29T00:00:00Z'), undefined);
    assert.equal(parseIsoTimestamp('2024-04-31T00:00:00Z'), undefined);
    assert.equal(parseIsoTimestamp('2024-00-10T00:00:00Z'), undefined);
    assert.equal(parseIsoTimestamp('2024-01-00T00:00:00Z'), undefined);
  });

  test('refuses every shape outside decision 22', () => {
    for (const text of [
      '2024-01-01',
      '2024-01-01T00:00Z',
      '2024-01-01t00:00:00Z',
      '2024-01-01T00:00:00z',
      '2024-01-01 00:00:00Z',
      '2024-01-01T00:00:00',
      '2024-01-01T00:00:00+0100',
      '2024-01-01T00:00:00+01',
      '2024-01-01T24:00:00Z',
      '2024-01-01T00:60:00Z',
      '2024-01-01T00:00:60Z',
      '2024-01-01T00:00:00.Z',
      '2024-01-01T00:00:00,5Z',
      '+2024-01-01T00:00:00Z',
      ' 2024-01-01T00:00:00Z',
      '2024-01-01T00:00:00Z\n',
      '２０２４-01-01T00:00:00Z',
    ]) {
      assert.equal(parseIsoTimestamp(text), undefined, text);
    }
  });

  test('agrees with Date for every instant it can write, in UTC or with an offset', () => {
    const instants = fc.date({
      min: new Date('0001-01-01T00:00:00Z'),
      max: new Date('9998-12-31T00:00:00Z'),
      noInvalidDate: true,
    });
    const offsets = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
    fc.assert(
      fc.property(instants, offsets, (date, offset) => {
        assert.equal(parseIsoTimestamp(date.toISOString()), date.getTime());
        const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, -1);
        const sign = offset < 0 ? '-' : '+';
        const abs = Math.abs(offset);
        const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        assert.equal(parseIsoTimestamp(`${local}${zone}`), date.getTime());
      }),
      { numRuns: 500 },
    );
  });
});

describe('env rules', () => {
  test('a merged env is checked with the same rules as each layer', () => {
    const image = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`IMAGE_${i}`, 'v']));
    const config = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`CONFIG_${i}`, 'v']));
    assert.deepEqual(envIssues(image), []);
    assert.deepEqual(envIssues(config), []);
    const merged = mergeEnv(image, config);
    assert.deepEqual(envIssues(merged, ['env']), [
      { path: ['env'], message: `has 110 keys; at most ${ENV_MAX_KEYS} are allowed` },
    ]);
  });

  test('total size is judged on the merged map', () => {
    const image = { A: 'x'.repeat(4000), B: 'x'.repeat(4000) };
    const config = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`C${i}`, 'x'.repeat(4000)]));
    assert.deepEqual(envIssues(config), []);
    const issues = envIssues(mergeEnv(image, config));
    assert.equal(issues.length, 1);
    assert.deepEqual(issues[0]?.path, ['env']);
    // 17 values of 4000 bytes, plus keys A, B (1 byte), C0-C9 (2 bytes) and C10-C14 (3 bytes).
    assert.match(issues[0]?.message ?? '', /total 68037 bytes/);
  });

  test('mergeEnv layers lowest first, later layers override, absent layers are skipped', () => {
    const merged = mergeEnv(
      { A: 'image', B: 'image' },
      undefined,
      { B: 'config', C: 'config' },
      { C: 'run' },
    );
    assert.deepEqual(merged, { A: 'image', B: 'config', C: 'run' });
  });

  test('mergeEnv keeps a key named __proto__ as an ordinary key', () => {
    const layer = JSON.parse('{"__proto__": "x"}') as Record<string, string>;
    const merged = mergeEnv(layer);
    assert.deepEqual(Object.keys(merged), ['__proto__']);
    assert.equal(Object.getPrototypeOf(merged), Object.prototype);
  });

  test('a reserved key coming from the image is reported under the path given', () => {
    const issues = envIssues(mergeEnv({ TRADING_GATEWAY_URL: 'x' }, { OK: 'y' }), ['image', 'env']);
    assert.deepEqual(
      issues.map((issue) => issue.path),
      [['image', 'env', 'TRADING_GATEWAY_URL']],
    );
    assert.equal(formatIssues(issues).message.startsWith('image.env.TRADING_GATEWAY_URL: '), true);
  });
});

describe('validateConfiguration', () => {
  test('applies the documented defaults and keeps costs and env as supplied', () => {
    const result = validateConfiguration('saved', savedBase);
    assert.ok(result.ok);
    assert.equal(result.value.positionMode, 'netting');
    assert.equal(result.value.initialCapital, 100000);
    assert.equal(result.value.isActive, true);
    assert.equal('costs' in result.value, false);
    assert.equal('env' in result.value, false);
    const inline = validateConfiguration('inline', {
      ...inlineBase,
      costs: { funding: { model: 'daily', long_rate: '0', short_rate: '0' } },
    });
    assert.ok(inline.ok);
    assert.deepEqual(inline.value.costs, { funding: { model: 'daily', long_rate: '0', short_rate: '0' } });
  });

  test('writes every cost decimal canonically (decision 37): "007.50" as "7.5", "-0" as "0", "050.0" as "50"', () => {
    const costs = {
      commission: { model: 'bps_of_notional', fee_rate_bps: '007.50' },
      slippage: { base_slippage_bps: '-0', size_impact_bps_per_100k: '050.0', max_slippage_bps: '0.000' },
      funding: { model: 'daily', long_rate: '-0.0500', short_rate: '-000' },
    };
    const canonical = {
      commission: { model: 'bps_of_notional', fee_rate_bps: '7.5' },
      slippage: { base_slippage_bps: '0', size_impact_bps_per_100k: '50', max_slippage_bps: '0' },
      funding: { model: 'daily', long_rate: '-0.05', short_rate: '0' },
    };
    for (const [kind, base] of [
      ['saved', savedBase],
      ['inline', inlineBase],
    ] as const) {
      const result = validateConfiguration(kind, { ...base, costs });
      assert.ok(result.ok);
      assert.deepEqual(result.value.costs, canonical, kind);
      // Canonical input is kept as it is.
      const again = validateConfiguration(kind, { ...base, costs: canonical });
      assert.ok(again.ok);
      assert.deepEqual(again.value.costs, canonical, kind);
    }
  });

  test('the message lists the first issues and points at details for the rest', () => {
    const result = validateConfiguration('saved', {
      ...savedBase,
      name: '',
      positionMode: 'x',
      initialCapital: 0,
      isActive: 1,
      env: [],
    });
    assert.equal(result.ok, false);
    if (result.ok) return;
    const details = parseDetails(result.details);
    assert.deepEqual(
      details.map((detail) => detail.path),
      ['name', 'isActive', 'positionMode', 'initialCapital', 'env'],
    );
    assert.ok(result.message.startsWith('name: must not be empty'));
    assert.ok(result.message.endsWith('; and 2 more issues (see details)'), result.message);
  });

  test('a non-object body is refused at the root', () => {
    for (const body of [null, [], 'text', 3, undefined]) {
      const result = validateConfiguration('inline', body);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.message, /^request body: must be a JSON object/);
    }
  });

  test('never throws, whatever the body', () => {
    fc.assert(
      fc.property(fc.constantFrom('inline' as const, 'saved' as const), fc.anything(), (kind, body) => {
        const result = validateConfiguration(kind, body);
        if (!result.ok) assert.ok(parseDetails(result.details).length > 0);
      }),
      { numRuns: 500 },
    );
  });

  test('never throws on mutations of a valid body, and accepts its own output again', () => {
    const fields = [
      'name',
      'description',
      'isActive',
      'strategyVersionId',
      'subscriptions',
      'startTime',
      'endTime',
      'positionMode',
      'initialCapital',
      'env',
      'costs',
    ];
    const mutation = fc.record(
      {
        field: fc.constantFrom(...fields),
        value: fc.oneof(fc.jsonValue(), fc.anything()),
        nested: fc.constantFrom('none', 'subscription', 'events', 'commission', 'funding'),
      },
      { requiredKeys: ['field', 'value', 'nested'] },
    );
    fc.assert(
      fc.property(
        fc.constantFrom('inline' as const, 'saved' as const),
        fc.array(mutation, { maxLength: 4 }),
        (kind, edits) => {
          const body: Body = structuredClone(kind === 'saved' ? savedBase : inlineBase);
          for (const { field, value, nested } of edits) {
            if (nested === 'subscription') body.subscriptions = [value];
            else if (nested === 'events')
              body.subscriptions = [{ instrument: 'C:BTCUSD', events: ['candle_1m', value] }];
            else if (nested === 'commission')
              body.costs = { commission: { model: 'bps_of_notional', fee_rate_bps: value } };
            else if (nested === 'funding')
              body.costs = { funding: { model: 'daily', long_rate: value, short_rate: '0' } };
            else body[field] = value;
          }
          const result = validateConfiguration(kind, body);
          if (result.ok) {
            assert.ok(validateConfiguration(kind, result.value).ok, 'validated output validates again');
            return;
          }
          for (const detail of parseDetails(result.details)) {
            assert.equal(typeof detail.path, 'string');
            assert.ok(detail.message.length > 0);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('formatPath', () => {
  test('renders JS-style paths', () => {
    assert.equal(formatPath([]), '');
    assert.equal(formatPath(['subscriptions', 0, 'events', 2]), 'subscriptions[0].events[2]');
    assert.equal(formatPath(['env', 'MY-KEY']), 'env["MY-KEY"]');
    assert.equal(formatPath(['costs', 'funding', 'day_multipliers', 6]), 'costs.funding.day_multipliers[6]');
  });
});

describe('catalogIssues', () => {
  const base = {
    subscriptions: [{ instrument: 'C:OPEN' }],
    startTime: '2030-01-01T00:00:00Z',
    endTime: '2030-02-01T00:00:00Z',
  };
  const openEnded: CatalogLookup = {
    bySymbol: (symbol) =>
      symbol === 'C:OPEN' ? { symbol, status: 'available', dataStartDate: '2024-01-01' } : undefined,
    byDataSymbol: () => undefined,
  };

  test('an instrument without dataEndDate has no upper bound', () => {
    assert.deepEqual(catalogIssues(base, openEnded), []);
  });

  test('reports every offending subscription in order', () => {
    const issues = catalogIssues(
      { ...base, subscriptions: [{ instrument: 'X' }, { instrument: 'C:OPEN' }, { instrument: 'Y' }] },
      openEnded,
    );
    assert.deepEqual(
      issues.map((issue) => formatPath(issue.path)),
      ['subscriptions[0].instrument', 'subscriptions[2].instrument'],
    );
  });
});

describe('OpenAPI conversion', () => {
  for (const [name, schema] of [
    ['inline', inlineConfigurationSchema],
    ['saved', savedConfigurationSchema],
  ] as const) {
    test(`${name} schema converts to JSON Schema with strict objects and documented fields`, () => {
      const json = z.toJSONSchema(schema, { io: 'input' }) as {
        additionalProperties?: boolean;
        required?: string[];
        properties: Record<string, { description?: string; pattern?: string }>;
      };
      assert.equal(json.additionalProperties, false);
      assert.deepEqual(
        [...(json.required ?? [])].sort(),
        (name === 'inline' ? ['strategyVersionId'] : ['name'])
          .concat(['endTime', 'startTime', 'subscriptions'])
          .sort(),
      );
      for (const [key, property] of Object.entries(json.properties)) {
        assert.ok(property.description, `${key} has a description`);
      }
      const text = JSON.stringify(json);
      assert.ok(
        text.includes(eventPatternRegex.source.replaceAll('\\', '\\\\')),
        'event pattern is published',
      );
      assert.equal(
        (text.match(/"additionalProperties":false/g) ?? []).length >= 7,
        true,
        'nested objects are strict',
      );
    });
  }
});
