import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StrategyClient } from './support/strategy-client.ts';
import { startTestGateway } from './support/test-gateway.ts';

/** A forex scenario on the real OANDA EURUSD sample: bid/ask bars, the FX calendar, a JPY-free USD pair. */
describe('forex through the gateway (EURUSD bid/ask sample)', () => {
  it('serves REST bars equal to the candle events, on the FX day, and trades at the bid and ask', async () => {
    const t = await startTestGateway({
      samples: ['F:EURUSD'],
      scenario: {
        subscriptions: [
          { instrument: 'F:EURUSD', events: ['candle_15m', 'candle_1d', 'order_update', 'trade_update'] },
        ],
        startTime: '2014-05-05T00:00:00Z',
        endTime: '2014-05-07T00:00:00Z',
      },
    });
    try {
      const client = await StrategyClient.connect(t.url);
      await client.waitFor((e) => e.type === 'candle', 'the first candle');
      const quote = (await t.api.get('/v1/quotes/F:EURUSD')).body;
      assert.ok(Number(quote.bid) < Number(quote.ask), 'the data carries a real spread');
      const buy = await t.api.post('/v1/orders', {
        body: { symbol: 'F:EURUSD', side: 'BUY', quantity: '1000', order_type: 'MARKET' },
      });
      assert.equal(buy.status, 201);
      const fill = await client.waitFor((e) => e.type === 'trade', 'the fill');
      assert.equal(fill.trade.price, quote.ask, 'a market buy fills at the ask (no slippage configured)');

      client.autoAck = true;
      client.ack();
      assert.equal(await client.closed, 1000);
      const candles = (tf: string) =>
        client.events.filter((e) => e.type === 'candle' && e.bar.timeframe === tf).map((e) => e.bar);
      const daily = candles('1d');
      assert.ok(daily.length >= 1);
      assert.ok(
        daily.every((bar) => /T2[01]:00:00\.000Z$/.test(bar.timestamp)),
        'FX days start at 17:00 New York',
      );
      const rest = await t.api.get('/v1/bars/F:EURUSD', {
        query: {
          timeframe: '15m',
          start: '2014-05-05T00:00:00Z',
          end: '2014-05-07T00:00:00Z',
          limit: '10000',
        },
      });
      assert.equal(rest.status, 200);
      assert.deepEqual(rest.body, candles('15m'), 'the REST bars are the candles the strategy received');
    } finally {
      await t.gateway.close();
    }
  });
});
