import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkScenario } from '@hindsight/gateway';
import { sampleData } from '../../gateway/test/support/sample-store.ts';
import { startTestGateway } from '../../gateway/test/support/test-gateway.ts';
import { decimalText } from '../src/decimal-text.ts';
import { runInProcess } from '../src/in-process/index.ts';
import {
  Decimal,
  defineStrategy,
  envName,
  HindsightError,
  type Order,
  resolveParams,
  runOverWire,
  type Strategy,
  StrategyDefinitionError,
} from '../src/index.ts';
import { retryDelayMs } from '../src/wire/retry.ts';

/**
 * The TypeScript SDK's own duties (docs/sdk.md): parameters, decimals, retries, the order in which
 * handlers see events, errors and rejections alike in-process and over the wire, and a resumed
 * connection.
 */
describe('parameters', () => {
  it('name their variables in upper snake case and take their defaults types', () => {
    assert.equal(envName('fast'), 'FAST');
    assert.equal(envName('stopLoss'), 'STOP_LOSS');
    assert.equal(envName('slow_period'), 'SLOW_PERIOD');
    const defaults = { fast: 10, ratio: 0.5, live: false, symbol: 'C:BTCUSD' };
    assert.deepEqual(
      resolveParams(defaults, { FAST: '5', RATIO: '0.25', LIVE: 'true' }, { symbol: 'F:EURUSD' }),
      {
        fast: 5,
        ratio: 0.25,
        live: true,
        symbol: 'F:EURUSD',
      },
    );
    assert.equal(
      resolveParams(defaults, { FAST: '5' }, { fast: '7' }).fast,
      7,
      'an override beats the variable',
    );
  });

  it('refuse a value of the wrong type, naming the variable, and an unknown override, listing the declared', () => {
    const defaults = { fast: 10, live: false };
    assert.throws(() => resolveParams(defaults, { FAST: 'ten' }), /FAST: "ten" is not a number/);
    assert.throws(() => resolveParams(defaults, { FAST: '7.5' }), /FAST: "7.5" is not a whole number/);
    assert.throws(() => resolveParams(defaults, { LIVE: 'yes' }), /LIVE: "yes" is not true or false/);
    assert.throws(
      () => resolveParams(defaults, {}, { fats: '5' }),
      (error: Error) =>
        error instanceof StrategyDefinitionError &&
        /no parameter fats; its parameters: fast, live/.test(error.message),
    );
  });
});

describe('decimals and definitions', () => {
  it('sends decimals as decimal strings and refuses floats before anything is sent', () => {
    assert.equal(decimalText('0.01', 'quantity'), '0.01');
    assert.equal(decimalText(new Decimal('0.01').times(2), 'quantity'), '0.02');
    assert.equal(decimalText(3n, 'quantity'), '3');
    assert.throws(
      () => decimalText(0.1 as never, 'quantity'),
      /quantity: 0.1 is a JavaScript number; pass a decimal string/,
    );
    assert.throws(() => decimalText('1e5', 'limit_price'), /limit_price: "1e5" is not a decimal/);
  });

  it('fails the run when a handler throws, onEnd included', async () => {
    const { store } = await sampleData();
    const scenario = await checkScenario('s', ONE_HOUR, store);
    const throwing = (where: 'onCandle' | 'onEnd') =>
      defineStrategy({
        create: () => ({
          [where]() {
            throw new Error(`boom in ${where}`);
          },
        }),
      });
    await assert.rejects(runInProcess(throwing('onCandle'), { scenario, store }), /boom in onCandle/);
    await assert.rejects(runInProcess(throwing('onEnd'), { scenario, store }), /boom in onEnd/);
  });

  it('names a misspelled handler', async () => {
    const strategy = defineStrategy({ create: () => ({ onCandel() {} }) as never });
    const { store } = await sampleData();
    const scenario = await checkScenario('s', ONE_HOUR, store);
    await assert.rejects(
      runInProcess(strategy, { scenario, store }),
      /returned onCandel, which is no handler/,
    );
  });
});

describe('retries', () => {
  const error = (code: string, details: Record<string, unknown> = {}) =>
    new HindsightError(code, 503, 'x', details);
  it('wait retry_after_seconds when given, else back off from 500 ms with full jitter, 5 attempts, 60 s', () => {
    assert.equal(retryDelayMs(error('RATE_LIMITED', { retry_after_seconds: 3 }), 1, 0), 3000);
    assert.equal(
      retryDelayMs(error('PROVIDER_ERROR'), 1, 0, () => 1),
      500,
    );
    assert.equal(
      retryDelayMs(error('PROVIDER_UNAVAILABLE'), 3, 0, () => 1),
      2000,
    );
    assert.equal(retryDelayMs(error('PROVIDER_ERROR'), 5, 0), undefined, 'at most 5 attempts');
    assert.equal(
      retryDelayMs(error('RATE_LIMITED', { retry_after_seconds: 30 }), 2, 40_000),
      undefined,
      '60 s',
    );
    assert.equal(retryDelayMs(error('ORDER_REJECTED'), 1, 0), undefined, 'a 4xx is not retried');
  });
});

const ONE_HOUR = {
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update', 'trade_update'] }],
  startTime: '2024-01-02T00:00:00Z',
  endTime: '2024-01-02T01:00:00Z',
};

/**
 * A strategy that writes down what it sees: the order handlers are called in, an invalid order's
 * error, a rejected order and a filled one.
 */
function recorder(log: string[]): Strategy {
  return defineStrategy({
    create: () => {
      let bars = 0;
      return {
        onStart: () => void log.push('start'),
        async onCandle(candle, ctx) {
          bars++;
          log.push(`candle ${candle.timestamp}`);
          if (bars === 3) {
            const order: Order = await ctx.buy(candle.symbol, '0.01');
            log.push(`bought ${order.status} ${order.filled_quantity}`);
          }
          if (bars === 4) {
            try {
              await ctx.buy(candle.symbol, '0.01', { order_type: 'LIMIT' });
            } catch (error) {
              const e = error as HindsightError;
              log.push(`refused ${e.code} ${e.status} ${String(e.details.field ?? '')}`);
            }
            const rejected = await ctx.sell(candle.symbol, '1000000');
            log.push(`sold ${rejected.status} ${rejected.reject_reason}`);
          }
          if (bars === 5) ctx.sell(candle.symbol, '0.01'); // not awaited: still placed at this bar
        },
        onOrder: ({ event }) => void log.push(`order ${event}`),
        onTrade: (trade) => void log.push(`trade ${trade.side} ${trade.quantity}`),
        onEnd: () => void log.push('end'),
      };
    },
  });
}

describe('handlers, errors and rejections, in-process and over the wire alike', () => {
  it('hands events one at a time, an order’s own events after the handler that placed it', async () => {
    const { store } = await sampleData();
    const local: string[] = [];
    const scenario = await checkScenario('s', ONE_HOUR, store);
    const end = await runInProcess(recorder(local), { scenario, store });
    assert.equal(end.outcome.kind, 'completed');

    const wire: string[] = [];
    const { gateway } = await startTestGateway({ scenario: ONE_HOUR, writeResults: false });
    await runOverWire(recorder(wire), {
      env: { PROXY_WS_URL: `${gateway.url.replace('http', 'ws')}/v1/ws` },
    });
    await gateway.done;
    await gateway.close();

    const third = local.indexOf('candle 2024-01-02T00:02:00.000Z');
    assert.deepEqual(local.slice(third, third + 5), [
      'candle 2024-01-02T00:02:00.000Z',
      'bought FILLED 0.01',
      'order ORDER_CREATED',
      'order ORDER_FILLED',
      'trade BUY 0.01',
    ]);
    assert.ok(
      local.some((line) => /^refused VALIDATION_ERROR 400/.test(line)),
      local.join('\n'),
    );
    assert.ok(local.includes('sold REJECTED INSUFFICIENT_MARGIN'), local.join('\n'));
    const fifth = local.indexOf('candle 2024-01-02T00:04:00.000Z');
    assert.deepEqual(local.slice(fifth + 1, fifth + 4), [
      'order ORDER_CREATED',
      'order ORDER_FILLED',
      'trade SELL 0.01',
    ]);
    assert.equal(local.at(-1), 'end');
    assert.deepEqual(wire, local, 'the same handler calls over the wire');
  });

  it('resumes a lost connection from the last seq received, handling no event twice', async () => {
    const { gateway } = await startTestGateway({ scenario: ONE_HOUR, writeResults: false });
    const seen: string[] = [];
    let killed = false;
    const strategy = defineStrategy({
      create: () => ({
        onCandle(candle) {
          seen.push(candle.timestamp);
          if (seen.length === 20 && !killed) {
            killed = true;
            for (const socket of gateway.app.websocketServer.clients) socket.terminate();
          }
        },
      }),
    });
    await runOverWire(strategy, { env: { PROXY_WS_URL: `${gateway.url.replace('http', 'ws')}/v1/ws` } });
    const end = await gateway.done;
    await gateway.close();
    assert.equal(end.outcome.kind, 'completed');
    assert.ok(killed);
    assert.equal(seen.length, 60, 'every candle of the hour');
    assert.equal(new Set(seen).size, 60, 'once each');
  });
});
