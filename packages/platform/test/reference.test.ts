import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { HTTPMethods } from 'fastify';
import { PLATFORM_VERSION } from '../src/platform.ts';
import type { ApiResponse } from './support/api-client.ts';
import { storageBackends, tempDir } from './support/storage-backends.ts';
import { withTestPlatform } from './support/test-platform.ts';

const examplesDir = fileURLToPath(new URL('../../../examples/', import.meta.url));

type Auth = 'key' | 'session' | 'public';
type Endpoint = [method: string, path: string, auth: Auth, statuses: number[]];

const strategy = '/v1/strategies/{strategy_id}';
const versions = `${strategy}/versions`;
const scenarios = `${strategy}/scenarios`;

/** Endpoints beyond the spec's list that the issues ask for (the strategy's output, issue 6). */
const EXTENSIONS = [`get ${scenarios}/{scenario_id}/logs`];

/**
 * Every endpoint of the management spec's Endpoints section, with its auth and the statuses the spec
 * lists for it (where the spec leaves them blank, the success status it names), `GET /v1/openapi.json`
 * (which documents itself) included.
 */
const ENDPOINTS: Endpoint[] = [
  ['get', '/v1/api-keys', 'session', [200, 401]],
  ['post', '/v1/api-keys', 'session', [201, 400, 401]],
  ['delete', '/v1/api-keys/{prefix}', 'session', [204, 400, 401, 404]],

  ['get', '/v1/strategies', 'key', [200, 400, 401]],
  ['post', '/v1/strategies', 'key', [201, 400, 401]],
  ['get', strategy, 'key', [200, 400, 401, 404]],
  ['put', strategy, 'key', [200, 400, 401, 404]],
  ['delete', strategy, 'key', [204, 400, 401, 404, 409]],
  ['put', `${strategy}/auto-run-configs`, 'key', [200, 400, 401, 404]],

  ['get', versions, 'key', [200, 400, 401, 404]],
  ['post', versions, 'key', [201]],
  ['get', `${versions}/{version_id}`, 'key', [200]],
  ['patch', `${versions}/{version_id}`, 'key', [200]],
  ['delete', `${versions}/{version_id}/image`, 'key', [200]],

  ['get', '/v1/scenarios/{scenario_id}', 'key', [200, 400, 401, 404]],
  ['get', scenarios, 'key', [200, 400, 401]],
  ['post', scenarios, 'key', [201, 400, 401, 403, 404]],
  ['post', `${scenarios}/batch`, 'key', [201, 400, 401, 403, 404]],
  ['post', `${scenarios}/from-configs`, 'key', [201, 400, 401, 403, 404]],
  ['get', `${scenarios}/{scenario_id}`, 'key', [200, 400, 401, 404]],
  ['delete', `${scenarios}/{scenario_id}`, 'key', [204, 400, 401, 404]],
  ['post', `${scenarios}/{scenario_id}/cancel`, 'key', [200, 400, 401, 404]],
  ['get', `${scenarios}/{scenario_id}/metadata`, 'key', [200, 400, 401, 404]],
  ['get', `${scenarios}/{scenario_id}/metrics`, 'key', [200, 400, 401, 404]],
  ['get', `${scenarios}/{scenario_id}/trades`, 'key', [200, 400, 401, 404]],
  ['get', `${scenarios}/{scenario_id}/timeseries`, 'key', [200, 400, 401, 404]],
  ['post', '/v1/scenarios/compare', 'key', [200, 400, 401, 404]],

  ['get', '/v1/configurations', 'key', [200, 400, 401]],
  ['post', '/v1/configurations', 'key', [201, 400, 401]],
  ['get', '/v1/configurations/{config_id}', 'key', [200, 400, 401, 404]],
  ['put', '/v1/configurations/{config_id}', 'key', [200, 400, 401, 404]],
  ['delete', '/v1/configurations/{config_id}', 'key', [204, 400, 401, 404, 409]],
  ['post', '/v1/configurations/{config_id}/clone', 'key', [201, 400, 401, 404]],

  ['get', '/v1/instruments', 'public', [200, 400, 500]],
  ['get', '/v1/instruments/markets', 'public', [200]],
  ['get', '/v1/instruments/search', 'public', [200, 400, 500]],
  ['get', '/v1/instruments/{symbol}', 'public', [200, 404, 500]],
  ['get', '/v1/templates', 'public', [200]],
  ['get', '/v1/events', 'public', [200]],
  ['get', '/v1/openapi.json', 'public', [200]],
];

/** Query parameters the spec's In column names. */
const QUERY_PARAMETERS: Record<string, string[]> = {
  'get /v1/strategies': ['limit', 'cursor'],
  'get /v1/configurations': ['limit', 'cursor', 'activeOnly'],
  [`get ${scenarios}`]: [
    'limit',
    'cursor',
    'state',
    'strategyVersionId',
    'isCompleted',
    'createdAfter',
    'createdBefore',
    'instruments',
  ],
  'get /v1/instruments': ['market', 'status'],
  'get /v1/instruments/search': ['q'],
};

const SPEC_EVENT_TYPES: Record<string, string[]> = {
  candle: [],
  order: [
    'ORDER_CREATED',
    'ORDER_MODIFIED',
    'ORDER_CANCELLED',
    'ORDER_REJECTED',
    'ORDER_FILLED',
    'ORDER_PARTIALLY_FILLED',
    'ORDER_EXPIRED',
    'BRACKET_ORDER_CREATED',
    'BRACKET_ORDER_MODIFIED',
  ],
  position: ['POSITION_OPENED', 'POSITION_MODIFIED', 'POSITION_CLOSED'],
  account: ['BALANCE_UPDATED', 'MARGIN_WARNING', 'MARGIN_CALL'],
  trade: ['TRADE_FILLED'],
};

/** Resource fields per the trading-gateway spec (Resources and their fields). */
const SPEC_RESOURCE_FIELDS: Record<string, string[]> = {
  bar: ['symbol', 'provider', 'timeframe', 'timestamp', 'open', 'high', 'low', 'close', 'volume'],
  account: ['balance', 'equity', 'margin_used', 'margin_available', 'unrealized_pnl', 'currency'],
  trade: [
    'id',
    'order_id',
    'symbol',
    'side',
    'quantity',
    'price',
    'commission',
    'commission_currency',
    'is_maker',
    'timestamp',
  ],
  position: [
    'id',
    'symbol',
    'side',
    'quantity',
    'average_entry_price',
    'current_price',
    'unrealized_pnl',
    'realized_pnl',
    'opened_at',
    'updated_at',
    'leverage',
    'liquidation_price',
    'margin_mode',
  ],
};

const TIMEFRAMES = ['1m', '2m', '5m', '10m', '15m', '30m', '1h', '2h', '4h', '12h', '1d', '1w'];
const candles = (tfs: string[]) => tfs.map((tf) => `candle_${tf}`);

interface EventField {
  name: string;
  type: string;
  optional?: boolean;
  fields?: EventField[];
}

interface EventDefinition {
  kind: string;
  wireType: string;
  description: string;
  eventTypes: string[];
  payload: EventField[];
  patterns?: { pattern: string; expandsTo: string[]; description: string }[];
}

interface TemplateRecord {
  templateId: string;
  name: string;
  language: string;
  description: string;
  entry: string;
  files: string[];
}

interface DocumentedResponse {
  content?: { 'application/json'?: { schema?: { $ref?: string } } };
}

function assertWebApp(response: { status: number; headers: Headers; text: string }, label: string) {
  assert.equal(response.status, 200, label);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/, label);
  assert.match(response.text, /^<!doctype html>/i, label);
}

function assertNotFoundJson(response: ApiResponse, label: string) {
  assert.equal(response.status, 404, label);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/, label);
  assert.deepEqual(Object.keys(response.body), ['error'], label);
  assert.equal(response.body.error.code, 'NOT_FOUND', label);
  assert.equal(typeof response.body.error.message, 'string', label);
}

for (const backend of storageBackends()) {
  describe(`reference endpoints (${backend.name})`, () => {
    const t = withTestPlatform(backend);

    it('lists the starter templates of examples/, publicly, as their manifests describe them', async () => {
      const { api } = t.get();
      const response = await api.get('/v1/templates');
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body), ['data']);
      const templates: TemplateRecord[] = response.body.data;

      const folders = readdirSync(examplesDir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .filter((name) => readdirSync(join(examplesDir, name)).includes('template.json'))
        .sort();
      assert.deepEqual(
        templates.map((tpl) => tpl.templateId),
        folders,
      );
      for (const id of ['sma-crossover-python', 'sma-crossover-typescript']) {
        assert.ok(folders.includes(id), `${id} is listed`);
      }

      for (const template of templates) {
        const manifest = JSON.parse(
          readFileSync(join(examplesDir, template.templateId, 'template.json'), 'utf8'),
        );
        const { templateId, files, ...described } = template;
        assert.deepEqual(described, manifest, `${templateId}: fields match template.json`);
        assert.deepEqual(files, [...files].sort(), `${templateId}: files are sorted`);
        for (const file of [manifest.entry, 'template.json', 'README.md']) {
          assert.ok(files.includes(file), `${templateId}: lists ${file}`);
        }
        for (const file of files) {
          assert.doesNotMatch(
            file,
            /(^|\/)(node_modules|__pycache__)\//,
            `${templateId}: ${file} is generated`,
          );
        }
      }
      const byId = Object.fromEntries(templates.map((tpl) => [tpl.templateId, tpl]));
      // The SMA templates are the SDK strategies; the protocol written by hand is beside each.
      assert.equal(byId['sma-crossover-python']?.language, 'python');
      assert.equal(byId['sma-crossover-python']?.entry, 'strategy.py');
      assert.ok(byId['sma-crossover-python']?.files.includes('main.py'));
      assert.equal(byId['sma-crossover-typescript']?.language, 'typescript');
      assert.equal(byId['sma-crossover-typescript']?.entry, 'strategy.ts');
      assert.ok(byId['sma-crossover-typescript']?.files.includes('main.ts'));
      assert.ok(byId['sma-crossover-typescript']?.files.includes('package.json'));
      for (const template of templates.filter((tpl) => tpl.entry.startsWith('strategy.'))) {
        const lines = readFileSync(join(examplesDir, template.templateId, template.entry), 'utf8').split(
          '\n',
        );
        assert.ok(lines.length <= 60, `${template.templateId}: ${template.entry} is ${lines.length} lines`);
      }
    });

    it('lists only well-formed template folders, without generated files', async () => {
      const { api, platform } = t.get();
      const scratch = tempDir('templates');
      const write = (path: string, content: string) => {
        mkdirSync(dirname(join(scratch, path)), { recursive: true });
        writeFileSync(join(scratch, path), content);
      };
      const manifest = (entry: string) =>
        JSON.stringify({ name: 'Starter', language: 'python', description: 'A starter.', entry });
      write('good/template.json', manifest('main.py'));
      write('good/main.py', 'print("hi")\n');
      write('good/lib/helpers.py', '\n');
      write('good/.dockerignore', '__pycache__\n');
      write('good/__pycache__/main.cpython-311.pyc', 'bytecode');
      write('good/lib/__pycache__/helpers.cpython-311.pyc', 'bytecode');
      write('good/node_modules/ws/index.js', 'module.exports = {};\n');
      write('good/.git/HEAD', 'ref: refs/heads/main\n');
      write('bad-json/template.json', '{"name": ');
      write('bad-json/main.py', '\n');
      write('unknown-key/template.json', JSON.stringify({ ...JSON.parse(manifest('main.py')), extra: 1 }));
      write('unknown-key/main.py', '\n');
      write('missing-entry/template.json', manifest('main.py'));
      write('no-manifest/main.py', '\n');
      write('loose-file.txt', 'not a folder');

      const original = platform.ctx.examplesDir;
      platform.ctx.examplesDir = scratch;
      try {
        const response = await api.get('/v1/templates');
        assert.equal(response.status, 200);
        assert.deepEqual(response.body.data, [
          {
            templateId: 'good',
            name: 'Starter',
            language: 'python',
            description: 'A starter.',
            entry: 'main.py',
            files: ['.dockerignore', 'lib/helpers.py', 'main.py', 'template.json'],
          },
        ]);
        platform.ctx.examplesDir = join(scratch, 'does-not-exist');
        assert.deepEqual(
          (await api.get('/v1/templates')).body,
          { data: [] },
          'no examples folder, no templates',
        );
      } finally {
        platform.ctx.examplesDir = original;
        rmSync(scratch, { recursive: true, force: true });
      }
    });

    it('describes the five event kinds and the whole candle grammar in an envelope', async () => {
      const { api } = t.get();
      const response = await api.get('/v1/events', { key: 'ignored-on-public-endpoints' });
      assert.equal(response.status, 200);
      assert.deepEqual(Object.keys(response.body), ['data'], 'decision 30: the {data: [...]} envelope');
      const definitions: EventDefinition[] = response.body.data;
      assert.deepEqual(
        definitions.map((d) => d.kind),
        ['candle_<timeframe>', 'order_update', 'position_update', 'account_update', 'trade_update'],
      );
      assert.deepEqual(
        definitions.map((d) => d.wireType),
        ['candle', 'order', 'position', 'account', 'trade'],
      );

      for (const definition of definitions) {
        const label = definition.kind;
        assert.ok(definition.description.length > 0, label);
        assert.deepEqual(definition.eventTypes, SPEC_EVENT_TYPES[definition.wireType], `${label} eventTypes`);
        const payload = definition.payload;
        const names = payload.map((f) => f.name);
        for (const name of ['type', 'seq', 'timestamp']) assert.ok(names.includes(name), `${label}: ${name}`);
        assert.equal(payload.find((f) => f.name === 'seq')?.type, 'integer', `${label}: seq (decision 19a)`);
        if (definition.wireType !== 'candle') {
          assert.ok(names.includes('event'), `${label}: event`);
          assert.equal('patterns' in definition, false, `${label}: only candle has patterns`);
        }
        const resource = payload.find((f) => f.fields);
        const key = definition.wireType === 'candle' ? 'bar' : definition.wireType;
        assert.equal(resource?.name, key, `${label}: carries ${key}`);
        const expected = SPEC_RESOURCE_FIELDS[key];
        if (expected) {
          assert.deepEqual(
            resource?.fields?.map((f) => f.name),
            expected,
            `${label}: ${key} fields`,
          );
        }
      }
      const order = definitions[1]?.payload.find((f) => f.name === 'order');
      for (const field of ['id', 'status', 'client_order_id', 'reject_reason', 'parent_order_id']) {
        assert.ok(
          order?.fields?.some((f) => f.name === field),
          `order carries ${field}`,
        );
      }
      const parent = definitions[1]?.payload.find((f) => f.name === 'parent_order_id');
      assert.equal(parent?.optional, true, 'parent_order_id is optional on order events');

      const patterns = definitions[0]?.patterns ?? [];
      assert.deepEqual(
        patterns.map((p) => p.pattern),
        ['candle_<tf>', 'candle_*', 'candle_*m', 'candle_*h', 'candle_{a,b,c}m'],
      );
      const expansion = Object.fromEntries(patterns.map((p) => [p.pattern, p.expandsTo]));
      assert.deepEqual(expansion['candle_<tf>'], candles(TIMEFRAMES));
      assert.deepEqual(expansion['candle_*'], candles(TIMEFRAMES));
      assert.deepEqual(expansion['candle_*m'], candles(['1m', '2m', '5m', '10m', '15m', '30m']));
      assert.deepEqual(expansion['candle_*h'], candles(['1h', '2h', '4h', '12h']));
      const listed = expansion['candle_{a,b,c}m'] ?? [];
      assert.ok(listed.length > 0);
      for (const event of listed) assert.match(event, /^candle_(1|2|5|10|15|30)m$/);
      for (const p of patterns) assert.ok(p.description.length > 0, p.pattern);
    });

    it('serves the web app for unknown /v1 GET paths (decision 32) and a JSON 404 elsewhere', async () => {
      const { api } = t.get();
      for (const path of [
        '/v1',
        '/v1/',
        '/v1/dashboard',
        '/v1/dashboard/x',
        '/v1/dashboard/x?tab=runs',
        '/v1/strategies/abc/unknown',
        '/v1/instruments/C:BTCUSD/history',
      ]) {
        assertWebApp(await api.get(path), `GET ${path}`);
      }
      const head = await api.request('HEAD', '/v1/dashboard/x');
      assert.equal(head.status, 200);
      assert.match(head.headers.get('content-type') ?? '', /^text\/html/);

      // (`/v2/` is the image registry, with its own error format: registry.test.ts.)
      for (const path of ['/nope', '/v3/instruments', '/v1x', '/api/v1/instruments']) {
        const response = await api.get(path);
        assertNotFoundJson(response, `GET ${path}`);
        assert.equal(response.body.error.message, `Endpoint GET ${path} was not found.`);
      }
      // Only a page load is the web app; another method on an unknown path is an API miss.
      assertNotFoundJson(await api.post('/v1/dashboard/x', { body: {} }), 'POST /v1/dashboard/x');
      assertNotFoundJson(await api.delete('/v1/dashboard/x'), 'DELETE /v1/dashboard/x');

      const root = await fetch(new URL('/', api.baseUrl), { redirect: 'manual' });
      assert.equal(root.status, 302);
      assert.equal(root.headers.get('location'), '/v1/');
    });

    it('publishes a bare, valid OpenAPI 3.1 document of the whole /v1', async () => {
      const { api } = t.get();
      const response = await api.get('/v1/openapi.json');
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      const doc = response.body;
      assert.equal(doc.openapi, '3.1.0');
      assert.equal('data' in doc, false, 'decision 30: no envelope around the document');
      assert.equal(doc.info.version, PLATFORM_VERSION);

      const validator = new Validator();
      const result = await validator.validate(structuredClone(doc));
      assert.ok(
        result.valid,
        `openapi.json is not a valid OpenAPI 3.1 document: ${JSON.stringify(result.errors)}`,
      );

      const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
        .flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`))
        .sort();
      assert.deepEqual(
        documented,
        [...ENDPOINTS.map(([method, path]) => `${method} ${path}`), ...EXTENSIONS].sort(),
        'exactly the endpoints of the spec, with their methods, and our documented extensions',
      );
      const operationIds = documented.map((name) => {
        const [method = '', path = ''] = name.split(' ');
        return doc.paths[path][method].operationId;
      });
      assert.equal(new Set(operationIds).size, operationIds.length, 'operationIds are unique');
    });

    it('declares the API key and bearer schemes and the auth of each endpoint', async () => {
      const { api } = t.get();
      const doc = (await api.get('/v1/openapi.json')).body;
      const schemes: Record<string, { type: string; scheme?: string }> = doc.components.securitySchemes;
      assert.deepEqual(schemes.ApiKeyAuth, { type: 'apiKey', in: 'header', name: 'X-API-Key' });
      const bearers = Object.keys(schemes).filter(
        (n) => schemes[n]?.type === 'http' && schemes[n]?.scheme === 'bearer',
      );
      assert.ok(bearers.length > 0, 'a bearer scheme is declared');
      assert.equal(doc.security, undefined, 'no global requirement: every operation states its own');

      for (const [method, path, auth] of ENDPOINTS) {
        const label = `${method.toUpperCase()} ${path}`;
        const op = doc.paths[path][method];
        const alternatives: Record<string, string[]>[] = op.security ?? doc.security ?? [];
        const names = alternatives.map((a) => Object.keys(a));
        for (const requirement of names)
          assert.equal(requirement.length, 1, `${label}: alternatives, not AND`);
        const accepted = names.flat();
        if (auth === 'public') {
          assert.deepEqual(alternatives, [], `${label}: public`);
          assert.equal(op.responses['401'], undefined, `${label}: public endpoints never answer 401`);
          continue;
        }
        assert.ok(op.responses['401'], `${label}: documents 401`);
        if (auth === 'key') {
          assert.ok(accepted.includes('ApiKeyAuth'), `${label}: X-API-Key`);
          assert.ok(
            accepted.some((n) => bearers.includes(n)),
            `${label}: bearer listed as the alternative`,
          );
        } else {
          assert.equal(accepted.includes('ApiKeyAuth'), false, `${label}: an API key cannot manage keys`);
          assert.ok(
            accepted.length > 0 && accepted.every((n) => bearers.includes(n)),
            `${label}: session bearer only`,
          );
        }
      }
    });

    it('documents every status the spec lists, with the error envelope', async () => {
      const { api } = t.get();
      const doc = (await api.get('/v1/openapi.json')).body;
      assert.ok(doc.components.schemas.Error, 'the Error schema is a component');
      for (const [method, path, , statuses] of ENDPOINTS) {
        const label = `${method.toUpperCase()} ${path}`;
        const responses: Record<string, DocumentedResponse> = doc.paths[path][method].responses;
        const required = new Set(statuses);
        // Identifiers and formats: a malformed id is 400; an unknown one is 404; another account's is 403 (decision 28).
        if (/\{[a-z]+_id\}/.test(path)) for (const s of [400, 403, 404]) required.add(s);
        for (const status of required) assert.ok(responses[status], `${label}: documents ${status}`);
        for (const [status, response] of Object.entries(responses)) {
          if (Number(status) < 400) continue;
          assert.equal(
            response.content?.['application/json']?.schema?.$ref,
            '#/components/schemas/Error',
            `${label} ${status}: the error envelope`,
          );
        }
        const query = QUERY_PARAMETERS[`${method} ${path}`];
        if (query) {
          const parameters: { name: string; in: string }[] = doc.paths[path][method].parameters ?? [];
          const names = parameters.filter((p) => p.in === 'query').map((p) => p.name);
          for (const name of query) assert.ok(names.includes(name), `${label}: query parameter ${name}`);
        }
      }
      const q = doc.paths['/v1/instruments/search'].get.parameters.find(
        (p: { name: string }) => p.name === 'q',
      );
      assert.equal(q.required, true, 'q is required');
      assert.equal(q.schema.maxLength, 100);
      assert.equal(q.schema.minLength, 1);
    });

    it('serves every endpoint of the spec, none left marked planned', async () => {
      const { api, platform } = t.get();
      const doc = (await api.get('/v1/openapi.json')).body;
      for (const [method, path] of ENDPOINTS) {
        const label = `${method.toUpperCase()} ${path}`;
        const op = doc.paths[path][method];
        assert.ok(op, `${label} is documented`);
        assert.notEqual(op['x-hindsight-availability'], 'planned', `${label} is not planned`);
        assert.ok(
          platform.app.hasRoute({
            method: method.toUpperCase() as HTTPMethods,
            url: path.replace(/\{([a-z_]+)\}/g, ':$1'),
          }),
          `${label} is served`,
        );
      }
      assert.ok(!JSON.stringify(doc).includes('"Planned"'), 'no operation is tagged Planned');
    });

    it('reaches every status the spec lists for the reference endpoints', () => {
      const { api } = t.get();
      api.assertStatusesReached('GET /v1/templates', [200]);
      api.assertStatusesReached('GET /v1/events', [200]);
    });
  });
}
