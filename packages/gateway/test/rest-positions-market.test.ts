import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertStatusesReached } from './support/api-client.ts';
import { StrategyClient } from './support/strategy-client.ts';
import { startTestGateway, type TestGateway } from './support/test-gateway.ts';

/** Positions, trades, account and market data over REST, the replay held by a real strategy socket. */
describe('positions, trades, account and market data over REST (simulation provider)', () => {
  let t: TestGateway;
  let strategy: StrategyClient;

  before(async () => {
    t = await startTestGateway();
    strategy = await StrategyClient.connect(t.url);
    await strategy.waitFor((e) => e.type === 'candle', 'the first candle');
    for (let i = 0; i < 59; i++) await strategy.step();
  });
  after(async () => {
    await strategy.close();
    await t.gateway.close();
    assertStatusesReached({
      'GET /v1/positions': [200],
      'GET /v1/positions/{position_id}': [200, 404],
      'PATCH /v1/positions/{position_id}': [200, 400, 404, 409],
      'DELETE /v1/positions/{position_id}': [200, 400, 404],
      'DELETE /v1/positions': [200],
      'GET /v1/trades': [200, 400],
      'GET /v1/account': [200, 400],
      'GET /v1/quotes/{symbol}': [200, 400, 404],
      'GET /v1/bars/{symbol}': [200, 400, 404],
    });
  });

  it('opens a position with bracket legs, moves them, closes part and then all', async () => {
    const quote = (await t.api.get('/v1/quotes/C:BTCUSD')).body;
    const ask = Number(quote.ask);
    const entry = await t.api.post('/v1/orders', {
      body: {
        symbol: 'C:BTCUSD',
        side: 'BUY',
        quantity: '0.2',
        order_type: 'MARKET',
        stop_loss: String(Math.floor(ask - 1000)),
        take_profit: String(Math.floor(ask + 1000)),
      },
    });
    assert.equal(entry.status, 201);
    const legs = strategy.events.filter((e) => e.event === 'BRACKET_ORDER_CREATED');
    assert.equal(legs.length, 2);
    assert.ok(
      legs.every((e) => e.parent_order_id === entry.body.id && e.order.parent_order_id === entry.body.id),
    );

    const list = await t.api.get('/v1/positions');
    assert.equal(list.status, 200);
    assert.equal(list.body.length, 1);
    const position = list.body[0];
    assert.equal(position.side, 'LONG');
    assert.equal(position.quantity, '0.2');
    assert.deepEqual((await t.api.get('/v1/positions', { query: { symbol: 'F:EURUSD' } })).body, []);
    const one = await t.api.get(`/v1/positions/${position.id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.id, position.id);
    const missing = await t.api.get('/v1/positions/pos-999999999');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'POSITION_NOT_FOUND');

    const stop = String(Math.floor(ask - 800));
    const moved = await t.api.patch(`/v1/positions/${position.id}`, { body: { stop_loss: stop } });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.position_id, position.id);
    assert.equal(moved.body.stop_loss.trigger_price, stop);
    assert.equal(moved.body.stop_loss.order_ids.length, 1);
    assert.equal(moved.body.take_profit.trigger_price, String(Math.floor(ask + 1000)));
    const neither = await t.api.patch(`/v1/positions/${position.id}`, { body: {} });
    assert.equal(neither.status, 400);
    const unknownPosition = await t.api.patch('/v1/positions/pos-999999999', { body: { stop_loss: stop } });
    assert.equal(unknownPosition.status, 404);

    const partial = await t.api.delete(`/v1/positions/${position.id}`, { body: { quantity: '0.05' } });
    assert.equal(partial.status, 200);
    assert.equal(partial.body.status, 'FILLED');
    const after = (await t.api.get(`/v1/positions/${position.id}`)).body;
    assert.equal(after.quantity, '0.15');
    assert.equal(
      after.average_entry_price,
      position.average_entry_price,
      'a partial close keeps the average',
    );
    assert.notEqual(after.realized_pnl, undefined);
    const tooMuch = await t.api.delete(`/v1/positions/${position.id}`, { body: { quantity: '5' } });
    assert.equal(tooMuch.status, 400);
    assert.equal(tooMuch.body.code, 'INVALID_VALUE');
    assert.equal((await t.api.delete('/v1/positions/pos-999999999')).status, 404);

    const closeAll = await t.api.delete('/v1/positions', { query: { symbol: 'C:BTCUSD' } });
    assert.equal(closeAll.status, 200);
    assert.equal(closeAll.body.length, 1);
    assert.deepEqual((await t.api.get('/v1/positions')).body, []);
    const legsAfter = await t.api.get('/v1/orders');
    assert.deepEqual(legsAfter.body, [], 'the exit legs went with the position');
    const noLegs = await t.api.patch(`/v1/positions/${position.id}`, { body: { take_profit: '1' } });
    assert.equal(noLegs.status, 404, 'a closed position is gone');
    assert.deepEqual((await t.api.delete('/v1/positions')).body, []);
  });

  it('refuses to move legs the gateway did not place (409)', async () => {
    const entry = await t.api.post('/v1/orders', {
      body: { symbol: 'C:BTCUSD', side: 'SELL', quantity: '0.01', order_type: 'MARKET' },
    });
    assert.equal(entry.status, 201);
    const [position] = (await t.api.get('/v1/positions')).body;
    const response = await t.api.patch(`/v1/positions/${position.id}`, { body: { stop_loss: '90000' } });
    assert.equal(response.status, 409);
    await t.api.delete('/v1/positions');
  });

  it('lists trades with since (inclusive), until (exclusive) and limit', async () => {
    const all = await t.api.get('/v1/trades');
    assert.equal(all.status, 200);
    assert.ok(all.body.length >= 4);
    const ids = all.body.map((x: { id: string }) => x.id);
    assert.deepEqual(ids, [...ids].sort(), 'oldest first');
    const firstTime = all.body[0].timestamp;
    assert.deepEqual(
      (await t.api.get('/v1/trades', { query: { limit: '2' } })).body.map((x: { id: string }) => x.id),
      ids.slice(0, 2),
    );
    assert.equal(
      (await t.api.get('/v1/trades', { query: { since: firstTime } })).body.length,
      all.body.length,
    );
    assert.equal((await t.api.get('/v1/trades', { query: { until: firstTime } })).body.length, 0);
    const byOrder = await t.api.get('/v1/trades', { query: { order_id: all.body[0].order_id } });
    assert.ok(byOrder.body.every((x: { order_id: string }) => x.order_id === all.body[0].order_id));
    const bad = await t.api.get('/v1/trades', { query: { since: '2024-01-02' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'INVALID_VALUE');
    assert.equal(bad.body.details.field, 'since');
  });

  it('serves the account in USD decimals, and 400 for a parameter it does not take', async () => {
    const account = await t.api.get('/v1/account');
    assert.equal(account.status, 200);
    assert.equal(account.body.currency, 'USD');
    assert.equal(account.body.unrealized_pnl, '0');
    assert.equal(account.body.balance, account.body.equity, 'flat: equity is the balance');
    const bad = await t.api.get('/v1/account', { query: { currency: 'EUR' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'INVALID_REQUEST');
  });

  it('quotes the last closing bid and ask, and 404/400 for unknown or malformed symbols', async () => {
    const quote = await t.api.get('/v1/quotes/C:BTCUSD');
    assert.equal(quote.status, 200);
    assert.equal(quote.body.timestamp, '2024-01-02T01:00:00.000Z');
    assert.ok(Number(quote.body.bid) < Number(quote.body.ask));
    const unknown = await t.api.get('/v1/quotes/C:ETHUSD');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 'SYMBOL_NOT_FOUND');
    const malformed = await t.api.get('/v1/quotes/C%3ABTC%20USD');
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.code, 'INVALID_VALUE');
  });

  it('serves completed bars equal to the candle events, never beyond simulated time', async () => {
    const bars = await t.api.get('/v1/bars/C:BTCUSD', { query: { timeframe: '5m' } });
    assert.equal(bars.status, 200);
    // History before the scenario's start is served too (warm-up data), up to simulated time.
    assert.equal(bars.body[0].timestamp, '2024-01-01T00:00:00.000Z');
    assert.equal(bars.body.at(-1).timestamp, '2024-01-02T00:55:00.000Z');
    const candles = strategy.events
      .filter((e) => e.type === 'candle' && e.bar.timeframe === '5m')
      .map((e) => e.bar);
    assert.equal(candles.length, 12, 'one hour replayed: twelve 5m candles');
    assert.deepEqual(bars.body.slice(-12), candles, 'REST bars are the candles the strategy received');

    const window = await t.api.get('/v1/bars/C:BTCUSD', {
      query: { timeframe: '1m', start: '2024-01-02T00:10:00Z', end: '2024-01-02T00:12:00Z' },
    });
    assert.deepEqual(
      window.body.map((b: { timestamp: string }) => b.timestamp),
      ['2024-01-02T00:10:00.000Z', '2024-01-02T00:11:00.000Z', '2024-01-02T00:12:00.000Z'],
      'start and end are inclusive',
    );
    const limited = await t.api.get('/v1/bars/C:BTCUSD', { query: { timeframe: '1m', limit: '3' } });
    assert.equal(limited.body.at(-1).timestamp, '2024-01-02T00:59:00.000Z');
    assert.equal(limited.body.length, 3);
    const future = await t.api.get('/v1/bars/C:BTCUSD', {
      query: { timeframe: '1h', start: '2024-01-02T01:00:00Z', end: '2024-01-03T00:00:00Z' },
    });
    assert.deepEqual(future.body, [], 'no lookahead');

    const badTimeframe = await t.api.get('/v1/bars/C:BTCUSD', { query: { timeframe: '3m' } });
    assert.equal(badTimeframe.status, 400);
    assert.equal(badTimeframe.body.code, 'INVALID_VALUE');
    assert.equal(badTimeframe.body.details.field, 'timeframe');
    const noTimeframe = await t.api.get('/v1/bars/C:BTCUSD');
    assert.equal(noTimeframe.status, 400);
    assert.equal((await t.api.get('/v1/bars/C:ETHUSD', { query: { timeframe: '1m' } })).status, 404);
    assert.equal((await t.api.get('/v1/bars/%20', { query: { timeframe: '1m' } })).status, 400);
  });
});
