import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type WebSocket from 'ws';
import { StrategyClient } from './support/strategy-client.ts';
import { marketOrder, startTestGateway, type TestGateway } from './support/test-gateway.ts';

/**
 * REST calls over the strategy's WebSocket (docs/gateway.md, "REST over the socket") against the simulation provider on the
 * real BTCUSDT sample: each `request` frame gets a `response` frame with the HTTP call's status and
 * body (checked against openapi.json like an HTTP answer), and frames take effect in the order sent.
 */
const SCENARIO = {
  subscriptions: [
    { instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update', 'trade_update', 'position_update'] },
  ],
  startTime: '2024-01-03T00:00:00Z',
  endTime: '2024-01-03T01:00:00Z',
  costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '1' } },
};

const market = marketOrder;

/** A response frame, checked against the HTTP contract of the same call. */
async function call(t: TestGateway, client: StrategyClient, method: string, path: string, body?: unknown) {
  const answer = await client.request(method, path, body);
  assert.equal(answer.type, 'response', `${method} ${path}: ${JSON.stringify(answer)}`);
  assert.equal(typeof answer.seq, 'number');
  assert.equal(typeof answer.timestamp, 'string');
  t.api.checkAnswer(method, path, answer.status, answer.body);
  return answer;
}

/** Sends frames in one TCP write, so the gateway reads them in one go. */
function sendTogether(client: StrategyClient, frames: unknown[]): void {
  const raw = (client.socket as WebSocket & { _socket: import('node:net').Socket })._socket;
  raw.cork();
  for (const frame of frames) client.send(frame);
  process.nextTick(() => raw.uncork());
}

/** Starts a run and steps it to its fifth candle. */
async function started(env: Record<string, string> = {}) {
  const t = await startTestGateway({ scenario: SCENARIO, env });
  const key = env.GATEWAY_API_KEY;
  const client = await StrategyClient.connect(t.url, key ? { headers: { 'x-api-key': key } } : {});
  await client.waitFor((e) => e.type === 'candle', 'the first candle');
  for (let i = 0; i < 4; i++) await client.step();
  return { t, client };
}

/** The two runs' orders agree on `fields` (each order as its own gateway answers GET for it). */
async function assertSameOrder(
  [overT, overId]: [TestGateway, string],
  [httpT, httpId]: [TestGateway, string],
  fields: string[],
): Promise<void> {
  const a = (await overT.api.get(`/v1/orders/${overId}`)).body;
  const b = (await httpT.api.get(`/v1/orders/${httpId}`)).body;
  for (const field of fields) assert.equal(a[field], b[field], field);
}

const quoteTime = async (t: TestGateway) => (await t.api.get('/v1/quotes/C:BTCUSD')).body.timestamp;

describe('REST calls over the WebSocket (simulation provider)', () => {
  it('places an order sent before an ack at the current bar, exactly as over HTTP', async () => {
    const over = await started();
    const http = await started();
    try {
      const clock = await quoteTime(over.t);
      assert.equal(clock, await quoteTime(http.t), 'both runs stand at the same bar');
      const candleSeq = over.client.lastSeq;
      // The order and the ack leave in one write: the ack may only take effect after the order.
      const response = over.client.next((e) => e.type === 'response', 'the response');
      sendTogether(over.client, [
        {
          type: 'request',
          request_id: 'buy-1',
          method: 'POST',
          path: '/v1/orders',
          body: market('BUY', '0.05'),
        },
        { type: 'event_ack', correlation_id: 'a', events_processed: [], timestamp: 0, last_seq: candleSeq },
      ]);
      const answer = await response;
      over.t.api.checkAnswer('POST', '/v1/orders', answer.status, answer.body);
      assert.equal(answer.status, 201);
      assert.equal(answer.request_id, 'buy-1');
      assert.equal(answer.body.status, 'PENDING', 'the create handle, as over HTTP');
      // The order's events came first, then its response; the ack drained only the candle.
      const ownEvents = over.client.events.filter((e) => e.seq > candleSeq).map((e) => e.event ?? e.type);
      assert.deepEqual(ownEvents.slice(0, 2), ['ORDER_CREATED', 'ORDER_FILLED']);
      assert.equal(ownEvents.at(-1), 'response');
      assert.equal(await quoteTime(over.t), clock, 'the order events still hold time');

      const viaHttp = await http.t.api.post('/v1/orders', { body: market('BUY', '0.05') });
      assert.equal(viaHttp.status, 201);
      await assertSameOrder(
        [over.t, answer.body.id],
        [http.t, viaHttp.body.id],
        ['status', 'average_fill_price', 'filled_quantity', 'created_at', 'updated_at'],
      );
      const fill = (c: StrategyClient, id: string) =>
        c.waitFor((e) => e.type === 'trade' && e.trade.order_id === id, 'the trade');
      const [tradeA, tradeB] = [
        await fill(over.client, answer.body.id),
        await fill(http.client, viaHttp.body.id),
      ];
      assert.equal(tradeA.trade.price, tradeB.trade.price);
      assert.equal(tradeA.trade.commission, tradeB.trade.commission);
      assert.equal(tradeA.timestamp, tradeB.timestamp);

      const next = await over.client.step();
      assert.equal(next.type, 'candle', 'acking the order events moves time on');
    } finally {
      await over.t.gateway.close();
      await http.t.gateway.close();
    }
  });

  it('places an order sent just after an ack at the next bar, exactly as over HTTP', async () => {
    const over = await started();
    const http = await started();
    try {
      const clock = await quoteTime(over.t);
      const candleSeq = over.client.lastSeq;
      // The ack and the order leave in one write: time moves on before the order is placed.
      const response = over.client.next((e) => e.type === 'response', 'the response');
      sendTogether(over.client, [
        { type: 'event_ack', correlation_id: 'a', events_processed: [], timestamp: 0, last_seq: candleSeq },
        {
          type: 'request',
          request_id: 'buy-2',
          method: 'POST',
          path: '/v1/orders',
          body: market('BUY', '0.05'),
        },
      ]);
      const answer = await response;
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      const after = over.client.events.filter((e) => e.seq > candleSeq).map((e) => e.event ?? e.type);
      assert.deepEqual(after, [
        'candle',
        'ORDER_CREATED',
        'ORDER_FILLED',
        'TRADE_FILLED',
        'POSITION_OPENED',
        'response',
      ]);
      assert.notEqual(await quoteTime(over.t), clock, 'the ack moved time on');

      await http.client.step();
      const viaHttp = await http.t.api.post('/v1/orders', { body: market('BUY', '0.05') });
      assert.equal(viaHttp.status, 201);
      await assertSameOrder(
        [over.t, answer.body.id],
        [http.t, viaHttp.body.id],
        ['status', 'average_fill_price', 'created_at', 'updated_at'],
      );
    } finally {
      await over.t.gateway.close();
      await http.t.gateway.close();
    }
  });

  it('answers every call with the HTTP status and body: reads, errors, idempotency, cancels', async () => {
    const { t, client } = await started();
    try {
      const account = await call(t, client, 'GET', '/v1/account');
      assert.equal(account.status, 200);
      assert.equal(account.body.currency, 'USD');

      const invalid = await call(t, client, 'POST', '/v1/orders', market('BUY', '-1'));
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.code, 'INVALID_VALUE');
      assert.equal(invalid.body.details.field, 'quantity');

      const limit = market('BUY', '0.01', {
        order_type: 'LIMIT',
        limit_price: '1000.00',
        client_order_id: 'ws-1',
      });
      const placed = await call(t, client, 'POST', '/v1/orders', limit);
      assert.equal(placed.status, 201, JSON.stringify(placed.body));
      assert.equal(placed.body.status, 'PENDING');
      const again = await call(t, client, 'POST', '/v1/orders', limit);
      assert.equal(again.status, 200, 'a repeated client_order_id returns the existing order');
      assert.deepEqual(again.body, { ...placed.body, status: 'OPEN' });
      const misspelled = await call(t, client, 'POST', '/v1/orders', { ...limit, limit_prce: '1' });
      assert.deepEqual(
        [misspelled.status, misspelled.body.code, misspelled.body.details.field],
        [400, 'INVALID_REQUEST', 'limit_prce'],
      );
      const listed = await call(t, client, 'GET', '/v1/orders?client_order_id=ws-1');
      assert.deepEqual(
        listed.body.map((o: { id: string }) => o.id),
        [placed.body.id],
      );
      const cancelled = await call(t, client, 'DELETE', `/v1/orders/${placed.body.id}`);
      assert.equal(cancelled.status, 200);
      const missing = await call(t, client, 'GET', '/v1/orders/ord-none');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'ORDER_NOT_FOUND');
      const unknown = await call(t, client, 'GET', '/v1/nothing-here');
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.code, 'INVALID_REQUEST');
      const bars = await call(t, client, 'GET', '/v1/bars/C:BTCUSD?timeframe=1m&limit=2');
      assert.equal(bars.status, 200);
    } finally {
      await t.gateway.close();
    }
  });

  it('answers every endpoint and error exactly as HTTP does, call by call, on two runs at one bar', async () => {
    const socketRun = await started();
    const httpRun = await started();
    type Answer = { status: number; body: unknown };
    const viaSocket = async (method: string, path: string, body?: unknown): Promise<Answer> => {
      const answer = await call(socketRun.t, socketRun.client, method, path, body);
      return { status: answer.status, body: answer.body };
    };
    const viaHttp = async (method: string, path: string, body?: unknown): Promise<Answer> => {
      const answer = await httpRun.t.api.request(method, path, body === undefined ? {} : { body });
      return { status: answer.status, body: answer.text === '' ? undefined : answer.body };
    };
    /** The call over both; the two answers must be equal; returns the socket's. */
    const both = async (method: string, path: string, body?: unknown): Promise<Answer> => {
      const [socket, http] = [await viaSocket(method, path, body), await viaHttp(method, path, body)];
      assert.deepEqual(socket, http, `${method} ${path}`);
      return socket;
    };
    const statuses: number[] = [];
    const expect = async (status: number, method: string, path: string, body?: unknown) => {
      const answer = await both(method, path, body);
      assert.equal(answer.status, status, `${method} ${path}: ${JSON.stringify(answer.body)}`);
      statuses.push(status);
      return answer.body as { id: string };
    };
    try {
      await expect(200, 'GET', '/v1/account');
      await expect(200, 'GET', '/v1/capabilities');
      await expect(200, 'GET', '/v1/circuit-breakers');
      await expect(200, 'GET', '/v1/quotes/C:BTCUSD');
      await expect(404, 'GET', '/v1/quotes/C:NOPEUSD');
      await expect(400, 'GET', '/v1/quotes/bad%20symbol');
      await expect(200, 'GET', '/v1/bars/C:BTCUSD?timeframe=1m&limit=3');
      await expect(400, 'GET', '/v1/bars/C:BTCUSD?timeframe=7m');
      await expect(400, 'GET', '/v1/bars/C:BTCUSD?timeframe=1m&colour=red');
      const bought = await expect(201, 'POST', '/v1/orders', market('BUY', '0.05'));
      await expect(400, 'POST', '/v1/orders', market('BUY', '-1'));
      // A key Fastify's JSON parser refuses (prototype poisoning), as JSON.parse leaves it in a body.
      const poisoned = JSON.parse(
        `{"__proto__":{"admin":true},${JSON.stringify(market('BUY', '0.01')).slice(1)}`,
      );
      await expect(400, 'POST', '/v1/orders', poisoned);
      await expect(400, 'POST', '/v1/orders', market('BUY', '0.01', { order_type: 'LIMIT' }));
      const limit = market('BUY', '0.01', {
        order_type: 'LIMIT',
        limit_price: '1000.00',
        client_order_id: 'eq-1',
      });
      const resting = await expect(201, 'POST', '/v1/orders', limit);
      await expect(200, 'POST', '/v1/orders', limit);
      await expect(409, 'POST', '/v1/orders', { ...limit, limit_price: '1001.00' });
      await expect(200, 'GET', '/v1/orders?client_order_id=eq-1');
      // A refused body leaves its client_order_id free; a repeat compares in canonical form, and an
      // invalid repeat is refused as such.
      await expect(400, 'POST', '/v1/orders', market('BUY', '0', { client_order_id: 'eq-2' }));
      await expect(201, 'POST', '/v1/orders', market('BUY', '0.01', { client_order_id: 'eq-2' }));
      const equivalent = market('BUY', '0.010', { client_order_id: 'eq-2', time_in_force: 'GTC' });
      await expect(200, 'POST', '/v1/orders', equivalent);
      await expect(409, 'POST', '/v1/orders', market('SELL', '0.01', { client_order_id: 'eq-2' }));
      await expect(400, 'POST', '/v1/orders', market('BUY', '-1', { client_order_id: 'eq-2' }));
      await expect(200, 'GET', '/v1/orders?status=OPEN&status=FILLED');
      await expect(400, 'GET', '/v1/orders?limit=0');
      await expect(200, 'GET', '/v1/orders/history?limit=5');
      await expect(200, 'GET', `/v1/orders/${bought.id}`);
      await expect(200, 'GET', `/v1/orders/${resting.id}/`);
      await expect(200, 'PATCH', `/v1/orders/${resting.id}`, { limit_price: '1002.00' });
      await expect(200, 'DELETE', `/v1/orders/${resting.id}`);
      await expect(409, 'DELETE', `/v1/orders/${resting.id}`);
      await expect(404, 'GET', '/v1/orders/ord-none');
      await expect(200, 'DELETE', '/v1/orders?symbol=C:BTCUSD');
      const positions = (await expect(200, 'GET', '/v1/positions')) as unknown as { id: string }[];
      const position = positions[0]?.id as string;
      await expect(200, 'GET', `/v1/positions/${position}`);
      await expect(404, 'GET', '/v1/positions/pos-none');
      await expect(409, 'PATCH', `/v1/positions/${position}`, { stop_loss: '1000.00' }); // no leg to move
      await expect(400, 'PATCH', `/v1/positions/${position}`, { stop_loss: 12 });
      await expect(200, 'GET', '/v1/trades?limit=5');
      await expect(400, 'GET', '/v1/trades?since=yesterday');
      await expect(200, 'DELETE', `/v1/positions/${position}`, { quantity: '0.01' });
      await expect(200, 'DELETE', '/v1/positions');
      await expect(400, 'POST', '/v1/circuit-breakers/reset', {});
      await expect(200, 'GET', '/v1/openapi.json');
      await expect(400, 'GET', '/v1/nothing-here');
      await expect(400, 'PUT', '/v1/orders');
      await expect(200, 'GET', '/v1/account');
      assert.deepEqual([...new Set(statuses)].sort(), [200, 201, 400, 404, 409]);
    } finally {
      await socketRun.t.gateway.close();
      await httpRun.t.gateway.close();
    }
  });

  it('answers pipelined requests in order and holds later frames until each is answered', async () => {
    const { t, client } = await started();
    try {
      const all = client.next((e) => e.type === 'response' && e.request_id === 'p-3', 'the third response');
      sendTogether(client, [
        {
          type: 'request',
          request_id: 'p-1',
          method: 'POST',
          path: '/v1/orders',
          body: market('BUY', '0.02'),
        },
        {
          type: 'request',
          request_id: 'p-2',
          method: 'POST',
          path: '/v1/orders',
          body: market('SELL', '0.01'),
        },
        { type: 'event_ack' },
        { type: 'request', request_id: 'p-3', method: 'GET', path: '/v1/positions' },
      ]);
      await all;
      const responses = client.events.filter((e) => e.type === 'response');
      assert.deepEqual(
        responses.map((r) => [r.request_id, r.status]),
        [
          ['p-1', 201],
          ['p-2', 201],
          ['p-3', 200],
        ],
      );
      const [first, second, third] = responses.map((r) => r.seq as number) as [number, number, number];
      assert.ok(first < second && second < third);
      // The ack came after both orders' responses, so it drained their events and time moved on.
      await client.waitFor((e) => e.type === 'candle' && e.seq > second, 'the candle after the ack');
      assert.equal(responses[2]?.body.length, 1, 'one netted position of 0.01 after both fills');
      assert.equal(responses[2]?.body[0].quantity, '0.01');
    } finally {
      await t.gateway.close();
    }
  });

  it('answers a flood of pipelined requests in order, reading no faster than they run', async () => {
    const { t, client } = await started({ GATEWAY_RATE_LIMIT_PER_MINUTE: '100000' });
    try {
      // More than MAX_WAITING_FRAMES (1024) behind the first request: the gateway pauses reading.
      const count = 3000;
      const last = client.next((e) => e.type === 'response' && e.request_id === `f-${count}`, 'the last');
      sendTogether(
        client,
        Array.from({ length: count }, (_, i) => ({
          type: 'request',
          request_id: `f-${i + 1}`,
          method: 'POST',
          path: '/v1/orders',
          body: market(i % 2 === 0 ? 'BUY' : 'SELL', '0.001'),
        })),
      );
      await last;
      const responses = client.events.filter((e) => e.type === 'response');
      assert.equal(responses.length, count);
      assert.ok(responses.every((r, i) => r.request_id === `f-${i + 1}` && r.status === 201));
      const next = await client.step();
      assert.equal(next.type, 'candle', 'the connection reads and acks again');
    } finally {
      await t.gateway.close();
    }
  });

  it('logs calls over the socket at debug, as HTTP calls are logged', async () => {
    const { t, client } = await started({ RUST_LOG: 'gateway::http=debug' });
    try {
      await call(t, client, 'GET', '/v1/account');
      await t.api.get('/v1/account');
      const requests = t.logs
        .flatMap((line) => line.split('\n').filter(Boolean))
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.msg === 'request' && entry.url === '/v1/account');
      assert.deepEqual(
        requests.map((entry) => [entry.method, entry.status, entry.via ?? 'http']),
        [
          ['GET', 200, 'websocket'],
          ['GET', 200, 'http'],
        ],
      );
    } finally {
      await t.gateway.close();
    }
  });

  it('refuses malformed request frames with INVALID_MESSAGE naming the request_id', async () => {
    const { t, client } = await started();
    try {
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ method: 'GET', path: '/v1/account' }, /request_id must be a string/],
        [{ request_id: 'm-1', method: 'FETCH', path: '/v1/account' }, /method must be one of/],
        [{ request_id: 'm-2', method: 'GET', path: '/livez' }, /path must be a gateway REST path/],
        [{ request_id: 'm-3', method: 'GET', path: '/v1/ws?x=1' }, /cannot be \/v1\/ws/],
        [{ request_id: 'm-4', method: 'GET', path: '/v1/account', body: {} }, /not allowed on a GET/],
        [{ request_id: 'm-5', method: 'GET', path: '/v1/account', params: {} }, /has no field "params"/],
      ];
      for (const [fields, reason] of cases) {
        const error = client.next((e) => e.type === 'error', `the error for ${JSON.stringify(fields)}`);
        client.send({ type: 'request', ...fields });
        const event = await error;
        assert.equal(event.code, 'INVALID_MESSAGE');
        assert.match(event.message, reason);
        assert.equal(event.details.request_id, fields.request_id);
      }
      const still = await call(t, client, 'GET', '/v1/account');
      assert.equal(still.status, 200, 'the connection still takes requests');
    } finally {
      await t.gateway.close();
    }
  });

  it("runs calls with the socket's authentication and under the ingress rate limit", async () => {
    const { t, client } = await started({ GATEWAY_API_KEY: 'sock-key', GATEWAY_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      assert.equal((await call(t, client, 'GET', '/v1/account')).status, 200, 'no key in the frame');
      await call(t, client, 'GET', '/v1/account');
      await call(t, client, 'GET', '/v1/account');
      const refused = await call(t, client, 'GET', '/v1/account');
      assert.equal(refused.status, 429);
      assert.equal(refused.body.code, 'RATE_LIMITED');
      assert.equal(typeof refused.body.details.retry_after_seconds, 'number');
    } finally {
      await t.gateway.close();
    }
  });
});
