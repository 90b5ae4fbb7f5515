import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertStatusesReached } from './support/api-client.ts';
import { StrategyClient } from './support/strategy-client.ts';
import { marketOrder, startTestGateway, type TestGateway } from './support/test-gateway.ts';

/**
 * Orders over real HTTP against the simulation provider on the real BTCUSDT sample, with a real
 * WebSocket strategy holding simulated time (it acknowledges by hand). Every response is checked
 * against the gateway's openapi.json.
 */
describe('orders over REST (simulation provider)', () => {
  let t: TestGateway;
  let strategy: StrategyClient;
  const market = marketOrder;

  before(async () => {
    t = await startTestGateway();
    strategy = await StrategyClient.connect(t.url);
    await strategy.waitFor((e) => e.type === 'candle', 'the first candle');
    for (let i = 0; i < 30; i++) await strategy.step();
  });
  after(async () => {
    await strategy.close();
    await t.gateway.close();
    assertStatusesReached({
      'POST /v1/orders': [200, 201, 400, 409, 422],
      'GET /v1/orders': [200, 400],
      'GET /v1/orders/history': [200, 400],
      'GET /v1/orders/{order_id}': [200, 404],
      'PATCH /v1/orders/{order_id}': [200, 400, 404, 409],
      'DELETE /v1/orders/{order_id}': [200, 404, 409],
      'DELETE /v1/orders': [200],
    });
  });

  it('fills a market order at once: 201 with the handle, and order, trade, position and account events', async () => {
    const events = strategy.next((e) => e.type === 'account', 'the account event of the fill');
    const response = await t.api.post('/v1/orders', { body: market('BUY', '0.05') });
    assert.equal(response.status, 201);
    assert.match(response.body.id, /^ord-/);
    // The spec's state table: "The handle is returned with status PENDING"; the events and the order
    // tell what became of it.
    assert.equal(response.body.status, 'PENDING');
    assert.equal(response.body.client_order_id, null);
    await events;
    const kinds = strategy.events.filter((e) => e.order?.id === response.body.id).map((e) => e.event);
    assert.deepEqual(kinds, ['ORDER_CREATED', 'ORDER_FILLED']);
    const trade = strategy.events.find((e) => e.type === 'trade' && e.trade.order_id === response.body.id);
    assert.equal(trade?.event, 'TRADE_FILLED');
    assert.equal(trade?.trade.quantity, '0.05');
    assert.equal(typeof trade?.trade.price, 'string');
    const order = await t.api.get(`/v1/orders/${response.body.id}`);
    assert.equal(order.status, 200);
    assert.equal(order.body.average_fill_price, trade?.trade.price);
    assert.equal(order.body.status, 'FILLED');
    assert.equal(order.body.created_at, '2024-01-02T00:31:00.000Z', 'orders run at the simulated time');
    // The spec's gateway-assigned tracing id, made from the order's sequence (reruns stay identical).
    assert.equal(order.body.correlation_id, response.body.id.replace(/^ord-/, 'corr-'));
  });

  it('refuses an unknown or misspelled field with 400 INVALID_REQUEST naming it (decision 38)', async () => {
    const before = (await t.api.get('/v1/orders/history')).body.length;
    const misspelled = await t.api.post('/v1/orders', {
      body: market('BUY', '0.01', { stop_los: '10000' }),
    });
    assert.equal(misspelled.status, 400);
    assert.equal(misspelled.body.code, 'INVALID_REQUEST');
    assert.deepEqual(misspelled.body.details, { field: 'stop_los', suggestion: 'stop_loss' });
    assert.match(misspelled.body.message, /no field "stop_los"\. Did you mean stop_loss\?/);
    const unknown = await t.api.post('/v1/orders', { body: market('BUY', '0.01', { note: 'x' }) });
    assert.deepEqual(
      [unknown.status, unknown.body.code, unknown.body.details],
      [400, 'INVALID_REQUEST', { field: 'note' }],
    );
    const patch = await t.api.patch('/v1/orders/ord-000000001', { body: { limit_prise: '1' } });
    assert.deepEqual([patch.status, patch.body.details.field], [400, 'limit_prise']);
    assert.equal((await t.api.get('/v1/orders/history')).body.length, before, 'no order was placed');
  });

  it('refuses a bracket already through the market on an order that fills at once (400 VALIDATION_ERROR)', async () => {
    const quote = (await t.api.get('/v1/quotes/C:BTCUSD')).body;
    // A BUY exits with a SELL stop: at or above the bid, it is already reached.
    const through = await t.api.post('/v1/orders', { body: market('BUY', '0.01', { stop_loss: quote.bid }) });
    assert.equal(through.status, 400);
    assert.equal(through.body.code, 'VALIDATION_ERROR');
    assert.equal(through.body.details.errors.length, 1);
    assert.equal(through.body.details.errors[0].field, 'stop_loss');
    assert.match(through.body.message, /already through the market \(bid /);
    const wrongTake = await t.api.post('/v1/orders', {
      body: market('SELL', '0.01', { take_profit: quote.ask }),
    });
    assert.deepEqual([wrongTake.status, wrongTake.body.details.errors[0].field], [400, 'take_profit']);
  });

  it("answers an undecodable URL with the ApiError, not the framework's body", async () => {
    const response = await t.api.get('/v1/orders/%E0%A4%A');
    assert.equal(response.status, 400);
    assert.equal(response.body.code, 'INVALID_REQUEST');
    assert.deepEqual(response.body.details, { path: '/v1/orders/%E0%A4%A' });
    assert.match(response.body.message, /not a valid URL/);
  });

  it('returns the existing order for a repeated client_order_id and refuses a different body with 409', async () => {
    const body = market('BUY', '0.01', { client_order_id: 'retry-1' });
    const first = await t.api.post('/v1/orders', { body });
    assert.equal(first.status, 201);
    const repeat = await t.api.post('/v1/orders', {
      body: { ...body, quantity: '0.010', time_in_force: 'GTC' },
    });
    assert.equal(repeat.status, 200);
    // A repeat answers the existing order's handle with its current status.
    assert.deepEqual(repeat.body, { ...first.body, status: 'FILLED' });
    const conflict = await t.api.post('/v1/orders', { body: { ...body, quantity: '0.02' } });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.code, 'ORDER_NOT_MODIFIABLE');
    assert.equal(conflict.body.details.client_order_id, 'retry-1');
    const lookup = await t.api.get('/v1/orders', { query: { client_order_id: 'retry-1' } });
    assert.equal(lookup.status, 200);
    assert.deepEqual(
      lookup.body.map((o: { id: string; status: string }) => [o.id, o.status]),
      [[first.body.id, 'FILLED']],
      'the lookup finds the order whatever its state',
    );
    const invalidRepeat = await t.api.post('/v1/orders', { body: { ...body, quantity: '-1' } });
    assert.equal(invalidRepeat.status, 400, 'an invalid body is refused as such, not as a conflict');

    // A refused request leaves no order: its client_order_id stays free.
    const refused = await t.api.post('/v1/orders', {
      body: market('BUY', '0', { client_order_id: 'retry-2' }),
    });
    assert.equal(refused.status, 400);
    const placed = await t.api.post('/v1/orders', {
      body: market('BUY', '0.01', { client_order_id: 'retry-2' }),
    });
    assert.equal(placed.status, 201);
  });

  it('answers bad requests with the spec code and a message that says what to fix', async () => {
    const missing = await t.api.post('/v1/orders', {
      body: { symbol: 'C:BTCUSD', side: 'BUY', order_type: 'MARKET' },
    });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'INVALID_REQUEST');
    assert.match(missing.body.message, /quantity is required/);

    const float = await t.api.post('/v1/orders', { body: market('BUY', '1', { quantity: 0.5 }) });
    assert.equal(float.status, 400);
    assert.equal(float.body.code, 'INVALID_VALUE');
    assert.deepEqual(float.body.details, { field: 'quantity', provided: 0.5 });
    assert.match(float.body.message, /decimal string/);

    for (const quantity of ['-1', '0']) {
      const bad = await t.api.post('/v1/orders', { body: market('BUY', quantity) });
      assert.equal(bad.body.code, 'INVALID_VALUE', quantity);
      assert.equal(bad.body.details.field, 'quantity');
    }

    const noLimit = await t.api.post('/v1/orders', {
      body: { symbol: 'C:BTCUSD', side: 'BUY', quantity: '1', order_type: 'STOP_LIMIT' },
    });
    assert.equal(noLimit.status, 400);
    assert.equal(noLimit.body.code, 'VALIDATION_ERROR');
    assert.deepEqual(
      noLimit.body.details.errors.map((e: { field: string }) => e.field),
      ['limit_price', 'stop_price'],
    );

    const notJson = await t.api.post('/v1/orders', {
      rawBody: '{"symbol":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(notJson.status, 400);
    assert.equal(notJson.body.code, 'INVALID_REQUEST');
    assert.match(notJson.body.message, /not valid JSON/);
  });

  it('keeps a rejected order as REJECTED and answers 422 ORDER_REJECTED with details.reject_code', async () => {
    const response = await t.api.post('/v1/orders', { body: market('BUY', '500') });
    assert.equal(response.status, 422);
    assert.equal(response.body.code, 'ORDER_REJECTED');
    assert.equal(response.body.details.reject_code, 'INSUFFICIENT_FUNDS');
    assert.equal(response.body.details.reject_reason, 'INSUFFICIENT_MARGIN');
    const order = await t.api.get(`/v1/orders/${response.body.details.order_id}`);
    assert.equal(order.body.status, 'REJECTED');
    assert.equal(order.body.reject_reason, 'INSUFFICIENT_MARGIN');
    const event = await strategy.waitFor((e) => e.event === 'ORDER_REJECTED', 'the rejection event');
    assert.equal(event.order.id, response.body.details.order_id);

    const unknown = await t.api.post('/v1/orders', { body: { ...market('BUY', '1'), symbol: 'C:DOGEUSD' } });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.details.reject_code, 'INVALID_SYMBOL');
  });

  it('lists open orders with every filter, and history, get, modify and cancel them', async () => {
    const limit = (price: string, extra: Record<string, unknown> = {}) => ({
      symbol: 'C:BTCUSD',
      side: 'BUY',
      quantity: '0.01',
      order_type: 'LIMIT',
      limit_price: price,
      ...extra,
    });
    const a = (await t.api.post('/v1/orders', { body: limit('30000', { oco_group_id: 'grp' }) })).body;
    const b = (await t.api.post('/v1/orders', { body: limit('30001', { oco_group_id: 'grp' }) })).body;
    const c = (await t.api.post('/v1/orders', { body: { ...limit('90000'), side: 'SELL' } })).body;
    assert.deepEqual([a.status, b.status, c.status], ['PENDING', 'PENDING', 'PENDING']);

    const ids = (response: { body: { id: string }[] }) => response.body.map((o) => o.id);
    assert.deepEqual(ids(await t.api.get('/v1/orders')), [a.id, b.id, c.id]);
    assert.deepEqual(ids(await t.api.get('/v1/orders', { query: { side: 'SELL' } })), [c.id]);
    assert.deepEqual(ids(await t.api.get('/v1/orders', { query: { oco_group_id: 'grp', limit: '1' } })), [
      a.id,
    ]);
    assert.deepEqual(ids(await t.api.get('/v1/orders', { query: { symbol: 'C:ETHUSD' } })), []);
    assert.deepEqual(
      ids(await t.api.get('/v1/orders', { query: { status: ['OPEN', 'PARTIALLY_FILLED'] } })),
      [a.id, b.id, c.id],
    );
    assert.deepEqual(
      ids(
        await t.api.get('/v1/orders', {
          query: { since: '2024-01-02T00:31:00Z', until: '2024-01-02T00:32:00Z' },
        }),
      ),
      [a.id, b.id, c.id],
    );
    assert.deepEqual(ids(await t.api.get('/v1/orders', { query: { until: '2024-01-02T00:31:00Z' } })), []);
    const badStatus = await t.api.get('/v1/orders', { query: { status: 'DONE' } });
    assert.equal(badStatus.status, 400);
    assert.equal(badStatus.body.code, 'INVALID_VALUE');
    const badLimit = await t.api.get('/v1/orders/history', { query: { limit: '0' } });
    assert.equal(badLimit.body.code, 'INVALID_VALUE');
    const unknownParam = await t.api.get('/v1/orders', { query: { colour: 'red' } });
    assert.equal(unknownParam.body.code, 'INVALID_REQUEST');

    const history = await t.api.get('/v1/orders/history', { query: { status: 'FILLED' } });
    assert.equal(history.status, 200);
    assert.ok(history.body.length >= 2);
    assert.ok(history.body.every((o: { status: string }) => o.status === 'FILLED'));

    const modified = await t.api.patch(`/v1/orders/${a.id}`, {
      body: { limit_price: '31000', quantity: null },
    });
    assert.equal(modified.status, 200);
    assert.equal(modified.body.order.id, a.id);
    assert.equal(modified.body.order.limit_price, '31000');
    assert.equal(modified.body.previous_order_id, undefined, 'modified in place');
    const badModify = await t.api.patch(`/v1/orders/${a.id}`, { body: { quantity: 2 } });
    assert.equal(badModify.status, 400);
    assert.equal(badModify.body.code, 'INVALID_VALUE');
    assert.equal((await t.api.patch('/v1/orders/ord-999999999', { body: { limit_price: '1' } })).status, 404);

    const cancelled = await t.api.delete(`/v1/orders/${a.id}`);
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.success, true);
    assert.equal(cancelled.body.order.status, 'CANCELLED');
    const again = await t.api.delete(`/v1/orders/${a.id}`);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'ORDER_NOT_MODIFIABLE');
    const modifyCancelled = await t.api.patch(`/v1/orders/${a.id}`, { body: { limit_price: '1' } });
    assert.equal(modifyCancelled.status, 409);
    const missing = await t.api.delete('/v1/orders/ord-999999999');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'ORDER_NOT_FOUND');
    assert.equal((await t.api.get('/v1/orders/ord-999999999')).status, 404);

    const cancelAll = await t.api.delete('/v1/orders', { query: { symbol: 'C:BTCUSD' } });
    assert.equal(cancelAll.status, 200);
    assert.deepEqual(cancelAll.body, { cancelled_count: 2, failed_count: 0, failed_order_ids: null });
    assert.deepEqual(ids(await t.api.get('/v1/orders')), []);
    assert.deepEqual((await t.api.delete('/v1/orders')).body, {
      cancelled_count: 0,
      failed_count: 0,
      failed_order_ids: null,
    });
  });
});
