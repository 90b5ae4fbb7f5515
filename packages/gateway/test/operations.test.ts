import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { levelFor, parseLogFilter, readGatewaySettings, SettingsError } from '../src/index.ts';
import { assertStatusesReached } from './support/api-client.ts';
import { ScriptedProvider } from './support/scripted-provider.ts';
import { StrategyClient } from './support/strategy-client.ts';
import { startTestGateway } from './support/test-gateway.ts';

const SHORT = {
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
  startTime: '2024-01-04T00:00:00Z',
  endTime: '2024-01-04T00:30:00Z',
};
const ORDER = { symbol: 'C:BTCUSD', side: 'BUY', quantity: '0.01', order_type: 'MARKET' };

describe('gateway configuration', () => {
  const base = { GATEWAY_PROVIDER: 'simulation', HINDSIGHT_SCENARIO: 'scenario.json' };
  const fails = (env: Record<string, string>, pattern: RegExp) =>
    assert.throws(
      () => readGatewaySettings(env),
      (error: Error) =>
        error instanceof SettingsError && pattern.test(error.message) && !error.message.includes('\n'),
    );

  it('refuses to start without GATEWAY_PROVIDER, naming the valid providers in one line', () => {
    fails({}, /^GATEWAY_PROVIDER: is not set; .*choose one of: simulation\.$/);
    fails({ GATEWAY_PROVIDER: 'alpaca' }, /"alpaca" is not a provider; valid providers: simulation/);
  });

  it('checks every variable and applies the spec defaults', () => {
    const settings = readGatewaySettings(base);
    assert.equal(settings.host, '127.0.0.1');
    assert.equal(settings.port, 8080);
    assert.equal(settings.mode, 'simulation');
    assert.equal(settings.apiKey, undefined);
    assert.equal(settings.enableSwagger, false);
    assert.equal(settings.log.defaultLevel, 'info');
    fails(
      { ...base, GATEWAY_MODE: 'live' },
      /^GATEWAY_MODE: the simulation provider runs in simulation or paper mode only, not live\.$/,
    );
    assert.equal(readGatewaySettings({ ...base, GATEWAY_MODE: 'paper' }).mode, 'paper');
    fails({ ...base, HINDSIGHT_REPLAY_SPEED: '0' }, /^HINDSIGHT_REPLAY_SPEED: "0" must be a number above 0/);
    fails({ ...base, GATEWAY_MODE: 'demo' }, /"demo" is not a mode; use paper, live, simulation/);
    fails({ ...base, GATEWAY_PORT: '80a' }, /^GATEWAY_PORT: "80a" must be a whole number from 0 to 65535/);
    fails({ ...base, ENABLE_SWAGGER: 'yes' }, /^ENABLE_SWAGGER/);
    fails({ ...base, RUST_LOG: 'gateway=loud' }, /^RUST_LOG: "gateway=loud" must be target=level/);
    fails({ GATEWAY_PROVIDER: 'simulation' }, /^HINDSIGHT_SCENARIO: is not set/);
    fails({ ...base, GATEWAY_STALL_TIMEOUT_SECONDS: '-1' }, /^GATEWAY_STALL_TIMEOUT_SECONDS/);
  });

  it('maps RUST_LOG levels and target=level filters, the longest target winning', () => {
    const filter = parseLogFilter('warn,gateway::ws=debug,gateway=error,gateway::ws::frames=trace');
    assert.ok(typeof filter !== 'string');
    assert.equal(levelFor(filter, 'gateway::http'), 'error');
    assert.equal(levelFor(filter, 'gateway::ws'), 'debug');
    assert.equal(levelFor(filter, 'gateway::ws::frames'), 'trace');
    assert.equal(levelFor(filter, 'other'), 'warn');
    const bare = parseLogFilter('gateway::run');
    assert.ok(typeof bare !== 'string');
    assert.equal(levelFor(bare, 'gateway::run'), 'trace');
    assert.equal(levelFor(bare, 'gateway'), 'info');
    assert.equal(typeof parseLogFilter('gateway=verbose'), 'string');
    assert.equal(typeof parseLogFilter('info,=debug'), 'string');
  });

  it('logs through the filter: a warning without GATEWAY_API_KEY, info silenced by RUST_LOG=warn', async () => {
    const quiet = await startTestGateway({ scenario: SHORT, env: { RUST_LOG: 'warn' } });
    await quiet.gateway.close();
    const lines = quiet.logs.map((l) => JSON.parse(l));
    assert.ok(lines.some((l) => l.level === 40 && /GATEWAY_API_KEY is unset/.test(l.msg)));
    assert.ok(!lines.some((l) => l.level === 30), 'no info lines at warn');
    const chatty = await startTestGateway({ scenario: SHORT, env: { RUST_LOG: 'error,gateway=info' } });
    await chatty.gateway.close();
    assert.ok(chatty.logs.some((l) => /trading gateway listening/.test(l)));
  });

  it('says which variable to change when the port is busy', async () => {
    const first = await startTestGateway({ scenario: SHORT });
    try {
      const port = new URL(first.url).port;
      await assert.rejects(
        startTestGateway({ scenario: SHORT, env: { GATEWAY_PORT: port } }),
        (error: Error) =>
          error instanceof SettingsError &&
          error.message ===
            `GATEWAY_PORT: port ${port} on 127.0.0.1 is already in use; set GATEWAY_PORT to a free port.`,
      );
    } finally {
      await first.gateway.close();
    }
  });
});

describe('gateway operations', () => {
  after(() =>
    assertStatusesReached({
      'POST /v1/orders': [401, 429, 501, 502, 503],
      'GET /v1/orders/{order_id}': [401, 429, 502, 503],
      'PATCH /v1/orders/{order_id}': [401, 429, 501, 502, 503],
      'DELETE /v1/orders/{order_id}': [401, 429, 502, 503],
      'GET /v1/positions': [503],
      'GET /v1/positions/{position_id}': [503],
      'PATCH /v1/positions/{position_id}': [502, 503],
      'DELETE /v1/positions/{position_id}': [503],
      'DELETE /v1/positions': [503],
      'GET /v1/account': [503],
      'GET /v1/quotes/{symbol}': [503],
      'GET /v1/bars/{symbol}': [503],
      'GET /v1/capabilities': [200],
      'GET /v1/status': [200],
      'GET /v1/circuit-breakers': [200],
      'POST /v1/circuit-breakers/reset': [200, 409],
      'GET /metrics': [200],
      'GET /livez': [200],
      'GET /readyz': [200, 503],
      'GET /health': [200],
    }),
  );

  it('publishes a valid OpenAPI 3.1 document with every endpoint of the spec', async () => {
    const t = await startTestGateway({ scenario: SHORT });
    try {
      const doc = (await t.api.get('/v1/openapi.json')).body;
      const result = await new Validator().validate(structuredClone(doc));
      assert.equal(result.valid, true, JSON.stringify(result.errors));
      assert.equal(doc.openapi, '3.1.0');
      const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
        ([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
      );
      for (const expected of [
        'POST /v1/orders',
        'GET /v1/orders',
        'GET /v1/orders/history',
        'GET /v1/orders/{order_id}',
        'PATCH /v1/orders/{order_id}',
        'DELETE /v1/orders/{order_id}',
        'DELETE /v1/orders',
        'GET /v1/positions',
        'GET /v1/positions/{position_id}',
        'PATCH /v1/positions/{position_id}',
        'DELETE /v1/positions/{position_id}',
        'DELETE /v1/positions',
        'GET /v1/trades',
        'GET /v1/account',
        'GET /v1/quotes/{symbol}',
        'GET /v1/bars/{symbol}',
        'GET /v1/capabilities',
        'GET /v1/status',
        'GET /v1/circuit-breakers',
        'POST /v1/circuit-breakers/reset',
        'GET /v1/ws',
        'GET /metrics',
        'GET /livez',
        'GET /readyz',
        'GET /health',
      ]) {
        assert.ok(operations.includes(expected), `${expected} is documented`);
      }
      assert.equal((await t.api.get('/swagger-ui')).status, 400, 'no Swagger UI unless ENABLE_SWAGGER=true');
    } finally {
      await t.gateway.close();
    }
    const withUi = await startTestGateway({ scenario: SHORT, env: { ENABLE_SWAGGER: 'true' } });
    try {
      const page = await fetch(`${withUi.url}/swagger-ui/`);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    } finally {
      await withUi.gateway.close();
    }
  });

  it('requires the API key on trading and data routes but not on probes and metrics', async () => {
    const t = await startTestGateway({ scenario: SHORT, env: { GATEWAY_API_KEY: 'k-123' } });
    try {
      const anonymous = { key: '' };
      for (const [method, path] of [
        ['post', '/v1/orders'],
        ['get', '/v1/orders/ord-1'],
        ['patch', '/v1/orders/ord-1'],
        ['delete', '/v1/orders/ord-1'],
      ] as const) {
        const response = await t.api[method](path, {
          ...anonymous,
          body: method === 'get' || method === 'delete' ? undefined : ORDER,
        });
        assert.equal(response.status, 401, `${method} ${path}`);
        assert.equal(response.body.code, 'UNAUTHORIZED');
      }
      assert.equal((await t.api.get('/v1/account', { key: 'wrong' })).status, 401);
      assert.equal((await t.api.get('/v1/account', { key: '', bearer: 'k-123' })).status, 200);
      assert.equal((await t.api.get('/v1/account')).status, 200, 'X-API-Key');
      for (const path of ['/livez', '/readyz', '/health', '/metrics', '/v1/openapi.json']) {
        assert.equal((await t.api.get(path, anonymous)).status, 200, path);
      }
      const live = await t.api.get('/livez', anonymous);
      assert.deepEqual(live.body, { status: 'ok' });
      const health = await t.api.get('/health', anonymous);
      assert.deepEqual(health.body, {
        status: 'connected',
        version: '0.1.0',
        git_sha: 'unknown',
        providers: [{ platform: 'simulation', connected: true }],
      });
      const ready = await t.api.get('/readyz', anonymous);
      assert.deepEqual(ready.body, { ready: true, providers: ['simulation'], provider_count: 1 });
      const capabilities = await t.api.get('/v1/capabilities');
      assert.deepEqual(capabilities.body.supported_order_types, [
        'MARKET',
        'LIMIT',
        'STOP',
        'STOP_LIMIT',
        'TRAILING_STOP',
      ]);
      assert.equal(capabilities.body.position_mode, 'NETTING');
      assert.deepEqual(capabilities.body.rate_limits, { requests_per_minute: 60000 });
      const status = await t.api.get('/v1/status');
      assert.equal(status.body.connected, true);
    } finally {
      await t.gateway.close();
    }
  });

  it('limits ingress with 429 RATE_LIMITED (retry_after_seconds, reset_at, no Retry-After) and rate_limit events', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const t = await startTestGateway({
      scenario: SHORT,
      env: { GATEWAY_RATE_LIMIT_PER_MINUTE: '10' },
      clock: () => now,
    });
    try {
      const client = await StrategyClient.connect(t.url, { autoAck: true });
      for (let i = 0; i < 10; i++) assert.equal((await t.api.get('/v1/status')).status, 200);
      const warning = await client.waitFor((e) => e.type === 'rate_limit', 'the warning');
      assert.equal(warning.event, 'RATE_LIMIT_WARNING');
      assert.equal(warning.requests_remaining, 1);
      assert.equal(warning.reset_at, '2026-01-01T00:01:00.000Z');
      now += 15_000;
      for (const [method, path] of [
        ['post', '/v1/orders'],
        ['get', '/v1/orders/ord-1'],
        ['patch', '/v1/orders/ord-1'],
        ['delete', '/v1/orders/ord-1'],
      ] as const) {
        const body = method === 'post' ? ORDER : method === 'patch' ? { stop_loss: '1' } : undefined;
        const response = await t.api[method](path, { body });
        assert.equal(response.status, 429, `${method} ${path}`);
        assert.equal(response.body.code, 'RATE_LIMITED');
        assert.deepEqual(response.body.details, {
          retry_after_seconds: 45,
          reset_at: '2026-01-01T00:01:00.000Z',
        });
        assert.equal(
          response.headers.get('retry-after'),
          null,
          'no Retry-After header (a deliberate deviation)',
        );
      }
      const hit = await client.waitFor((e) => e.event === 'RATE_LIMIT_HIT', 'the hit event');
      assert.equal(hit.requests_remaining, 0);
      assert.equal((await t.api.get('/livez')).status, 200, 'probes are not limited');
      now += 45_000;
      assert.equal((await t.api.get('/v1/status')).status, 200, 'a new window');
      await client.close();
    } finally {
      await t.gateway.close();
    }
  });

  it('drains on shutdown: /readyz 503, new orders 503 SHUTTING_DOWN, sockets get DISCONNECTING', async () => {
    const t = await startTestGateway({ scenario: SHORT });
    try {
      const client = await StrategyClient.connect(t.url);
      await client.waitFor((e) => e.type === 'candle', 'the first candle');
      await client.step();
      assert.equal((await t.api.post('/v1/orders', { body: ORDER })).status, 201);
      const [position] = (await t.api.get('/v1/positions')).body;
      t.gateway.beginShutdown();
      const code = await client.closed;
      assert.equal(code, 1001);
      const last = client.events.at(-1);
      assert.equal(last?.type, 'connection');
      assert.equal(last?.event, 'DISCONNECTING');
      const ready = await t.api.get('/readyz');
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.body, {
        ready: false,
        providers: [],
        provider_count: 0,
        message: 'The gateway is shutting down.',
      });
      for (const [method, path] of [
        ['post', '/v1/orders'],
        ['delete', `/v1/positions/${position.id}`],
        ['delete', '/v1/positions'],
      ] as const) {
        const response = await t.api[method](path, { body: method === 'post' ? ORDER : undefined });
        assert.equal(response.status, 503, `${method} ${path}`);
        assert.equal(response.body.code, 'SHUTTING_DOWN');
      }
      assert.equal((await t.api.get('/v1/positions')).status, 200, 'reads still work while draining');
    } finally {
      await t.gateway.close();
    }
  });

  it('counts orders, fills, rejections and fill latency in Prometheus format', async () => {
    const t = await startTestGateway({ scenario: SHORT });
    try {
      const client = await StrategyClient.connect(t.url);
      await client.waitFor((e) => e.type === 'candle', 'the first candle');
      await t.api.post('/v1/orders', { body: ORDER });
      await t.api.post('/v1/orders', { body: { ...ORDER, quantity: '900' } });
      const resting = await t.api.post('/v1/orders', {
        body: { ...ORDER, order_type: 'LIMIT', limit_price: '1000' },
      });
      await t.api.delete(`/v1/orders/${resting.body.id}`);
      const response = await t.api.get('/metrics');
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
      const value = (name: string) => {
        const line = response.text.split('\n').find((l) => l.startsWith(`${name}{`));
        return line === undefined ? undefined : Number(line.split(' ').at(-1));
      };
      assert.equal(value('gateway_orders_submitted_total'), 3);
      assert.equal(value('gateway_orders_filled_total'), 1);
      assert.equal(value('gateway_orders_rejected_total'), 1);
      assert.equal(value('gateway_orders_cancelled_total'), 1);
      assert.equal(value('gateway_order_fill_latency_seconds_count'), 1);
      assert.equal(value('gateway_provider_connected'), 1);
      assert.equal(value('gateway_provider_errors_total'), 0);
      assert.match(
        response.text,
        /gateway_provider_rejections_total\{provider="simulation",reason="INSUFFICIENT_MARGIN"\} 1/,
      );
      await client.close();
    } finally {
      await t.gateway.close();
    }
  });

  it('trips the adapter breaker on provider failures (502, then 503), resets it with a 60 s cooldown', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const provider = new ScriptedProvider();
    const t = await startTestGateway({ scenario: SHORT, provider, clock: () => now });
    try {
      const client = await StrategyClient.connect(t.url, { autoAck: true });
      provider.failure = new Error('broker connection reset');
      const failing = [
        ['post', '/v1/orders'],
        ['get', '/v1/orders/o-1'],
        ['patch', '/v1/orders/o-1'],
        ['delete', '/v1/orders/o-1'],
        ['patch', '/v1/positions/p-1'],
      ] as const;
      for (const [method, path] of failing) {
        const bracket = method === 'post' ? { ...ORDER, stop_loss: '1' } : { stop_loss: '1' };
        const response = await t.api[method](path, {
          body: method === 'get' || method === 'delete' ? undefined : bracket,
        });
        assert.equal(response.status, 502, `${method} ${path}`);
        assert.equal(response.body.code, 'PROVIDER_ERROR');
        assert.match(response.body.message, /broker connection reset/);
      }
      const breakers = await t.api.get('/v1/circuit-breakers');
      assert.deepEqual(breakers.body, {
        adapter: { state: 'open', failure_count: 5 },
        exit_order: { state: 'closed', failure_count: 1 },
      });
      for (const [method, path] of [
        ['post', '/v1/orders'],
        ['get', '/v1/orders/o-1'],
        ['patch', '/v1/orders/o-1'],
        ['delete', '/v1/orders/o-1'],
        ['get', '/v1/positions'],
        ['get', '/v1/positions/p-1'],
        ['patch', '/v1/positions/p-1'],
        ['delete', '/v1/positions/p-1'],
        ['delete', '/v1/positions'],
        ['get', '/v1/account'],
        ['get', '/v1/quotes/S:SPY'],
        ['get', '/v1/bars/S:SPY?timeframe=1d'],
      ] as const) {
        const body = method === 'post' ? ORDER : method === 'patch' ? { stop_loss: '1' } : undefined;
        const response = await t.api[method](path, { body });
        assert.equal(response.status, 503, `${method} ${path}`);
        assert.equal(response.body.code, 'PROVIDER_UNAVAILABLE');
        assert.equal(response.body.details.circuit_breaker, 'adapter');
      }
      const status = await t.api.get('/v1/status');
      assert.equal(status.body.connected, false);
      const health = await t.api.get('/health');
      assert.equal(health.body.status, 'degraded');

      provider.failure = undefined;
      now += 30_000;
      assert.equal((await t.api.get('/v1/account')).status, 200, 'after 30 s one trial request goes through');
      assert.deepEqual((await t.api.get('/v1/circuit-breakers')).body.adapter, {
        state: 'closed',
        failure_count: 0,
      });

      const reset = await t.api.post('/v1/circuit-breakers/reset');
      assert.equal(reset.status, 200);
      assert.deepEqual(reset.body, {
        adapter: { state: 'closed', failure_count: 0 },
        exit_order: { state: 'closed', failure_count: 0 },
      });
      now += 20_000;
      const again = await t.api.post('/v1/circuit-breakers/reset');
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'RESET_COOLDOWN');
      assert.equal(again.body.details.retry_after_seconds, 40);
      now += 40_000;
      assert.equal((await t.api.post('/v1/circuit-breakers/reset')).status, 200, 'the cooldown elapsed');
      const withBody = await t.api.post('/v1/circuit-breakers/reset', { body: { force: true } });
      assert.equal(withBody.status, 400, 'no body is accepted');
      await client.close();
    } finally {
      await t.gateway.close();
    }
  });

  it('reports unsupported operations (501), unprotected positions and provider events over the socket', async () => {
    const provider = new ScriptedProvider();
    const t = await startTestGateway({ scenario: SHORT, provider });
    try {
      const client = await StrategyClient.connect(t.url, { autoAck: true });
      await client.waitFor((e) => e.type === 'connection', 'CONNECTED');
      const trailing = await t.api.post('/v1/orders', {
        body: { ...ORDER, symbol: 'S:SPY', order_type: 'TRAILING_STOP', trailing_distance: '1' },
      });
      assert.equal(trailing.status, 501);
      assert.equal(trailing.body.code, 'UNSUPPORTED_OPERATION');
      const modify = await t.api.patch('/v1/orders/o-1', { body: { limit_price: '10' } });
      assert.equal(modify.status, 501);

      const unprotected = await t.api.patch('/v1/positions/p-7', { body: { stop_loss: '390' } });
      assert.equal(unprotected.status, 502);
      const event = await client.waitFor((e) => e.type === 'error', 'POSITION_UNPROTECTED');
      assert.equal(event.code, 'POSITION_UNPROTECTED');
      assert.equal(event.details.position_id, 'p-7');
      assert.equal((await t.api.get('/v1/circuit-breakers')).body.exit_order.failure_count, 1);

      const at = new Date().toISOString();
      provider.push([
        {
          type: 'quote',
          quote: {
            symbol: 'S:SPY',
            provider: 'scripted',
            bid: '400.1',
            ask: '400.2',
            last: '400.15',
            timestamp: at,
          },
          timestamp: at,
        },
        {
          type: 'data_staleness',
          event: 'STALE',
          symbols: ['S:SPY'],
          stale_since: at,
          broker: 'scripted',
          timestamp: at,
        },
        {
          type: 'connection',
          event: 'BROKER_DISCONNECTED',
          broker: 'scripted',
          error: 'socket reset',
          timestamp: at,
        },
        {
          type: 'connection',
          event: 'BROKER_RECONNECTED',
          broker: 'scripted',
          gap_duration_ms: 1500,
          timestamp: at,
        },
      ]);
      const reconnected = await client.waitFor((e) => e.event === 'BROKER_RECONNECTED', 'BROKER_RECONNECTED');
      assert.equal(reconnected.gap_duration_ms, 1500);
      for (const type of ['quote', 'data_staleness'])
        assert.ok(
          client.events.some((e) => e.type === type),
          type,
        );
      provider.stale = ['S:SPY'];
      const health = await t.api.get('/health');
      assert.deepEqual(health.body.providers, [
        { platform: 'scripted', connected: true, stale_instruments: ['S:SPY'] },
      ]);
      assert.equal(health.body.status, 'degraded');
      await client.close();
    } finally {
      await t.gateway.close();
    }
  });
});
