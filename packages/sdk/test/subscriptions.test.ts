import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TIMEFRAMES, UPDATE_EVENTS } from '@hindsight/core';
import { checkScenario } from '@hindsight/gateway';
import { sampleData } from '../../gateway/test/support/sample-store.ts';
import { startTestGateway } from '../../gateway/test/support/test-gateway.ts';
import { runInProcess } from '../src/in-process/index.ts';
import {
  defineStrategy,
  EVENT_NAMES,
  runOverWire,
  StrategyDefinitionError,
  subscriptionWarnings,
} from '../src/index.ts';

/**
 * A strategy's declared subscriptions (docs/sdk.md, Subscriptions): the declaration checked, and the
 * warnings a run logs before onStart when it delivers something else, in-process and over the wire.
 */
const TEN_MINUTES = {
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
  startTime: '2024-01-02T00:00:00Z',
  endTime: '2024-01-02T00:10:00Z',
};

/** Declares a 5m candle the run does not deliver, and has onTrade without trade_update. */
const mismatched = () =>
  defineStrategy({
    subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'candle_5m', 'order_update'] }],
    create: () => ({
      onStart: (ctx) => ctx.log('started'),
      onCandle() {},
      onTrade() {},
    }),
  });

/** Log lines without ctx.log's time (none in-process before the first event, the connection's over the wire). */
const into = (lines: string[]) => (line: string) => void lines.push(line.replace(/^[0-9TZ:.-]* /, ''));

const WARNINGS = [
  'warning: the strategy subscribes to C:BTCUSD candle_5m, which this run does not deliver (it delivers C:BTCUSD candle_1m, order_update)',
  'warning: onTrade is never called: this run delivers no trade_update (it delivers C:BTCUSD candle_1m, order_update)',
  'started',
];

describe('subscriptions', () => {
  it('names what is wrong with a declaration', () => {
    assert.deepEqual(
      EVENT_NAMES,
      [...TIMEFRAMES.map((tf) => `candle_${tf}`), ...UPDATE_EVENTS],
      "core's list",
    );
    const refused = (subscriptions: unknown, message: RegExp) =>
      assert.throws(
        () => defineStrategy({ subscriptions: subscriptions as never, create: () => ({}) }),
        (error: Error) => error instanceof StrategyDefinitionError && message.test(error.message),
      );
    refused({ instrument: 'C:BTCUSD' }, /^subscriptions: an array of \{instrument, events\}/);
    refused([{ instrument: '', events: ['candle_1m'] }], /subscriptions\[0\]\.instrument: a platform symbol/);
    refused([{ instrument: 'C:BTCUSD', events: [] }], /subscriptions\[0\]\.events: a non-empty array/);
    refused(
      [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'candle_3m'] }],
      /subscriptions\[0\]\.events\[1\]: "candle_3m" is no event; events: candle_1m, candle_2m/,
    );
    refused([{ instrument: 'C:BTCUSD', events: ['order_update'] }], /name a candle_<timeframe>/);
    refused([{ instrument: 'C:BTCUSD', event: ['candle_1m'] }], /event is no field of a subscription/);
    const ok = defineStrategy({
      subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m'] }],
      create: () => ({}),
    });
    assert.deepEqual(ok.subscriptions, [{ instrument: 'C:BTCUSD', events: ['candle_1m'] }]);
    // Over the wire without PLATFORM_SUBSCRIPTIONS (a standalone gateway), nothing is known: no warnings.
    assert.deepEqual(subscriptionWarnings(ok.subscriptions, { onTrade() {} }, undefined), []);
  });

  it('warns before onStart of a declared event not delivered and of a handler that cannot fire', async () => {
    const { store } = await sampleData();
    const local: string[] = [];
    const scenario = await checkScenario('s', TEN_MINUTES, store);
    await runInProcess(mismatched(), { scenario, store, log: into(local) });
    assert.deepEqual(local, WARNINGS);

    const { gateway } = await startTestGateway({ scenario: TEN_MINUTES, writeResults: false });
    const wire: string[] = [];
    await runOverWire(mismatched(), {
      env: {
        PROXY_WS_URL: `${gateway.url.replace('http', 'ws')}/v1/ws`,
        PLATFORM_SUBSCRIPTIONS: JSON.stringify(TEN_MINUTES.subscriptions),
      },
      log: into(wire),
    });
    await gateway.done;
    await gateway.close();
    assert.deepEqual(wire, WARNINGS, 'PLATFORM_SUBSCRIPTIONS over the wire');

    const patterns = [{ instrument: 'C:BTCUSD', events: ['candle_{1,5}m', 'order_update', 'trade_update'] }];
    const covered: string[] = [];
    await runInProcess(mismatched(), {
      scenario: await checkScenario('s', { ...TEN_MINUTES, subscriptions: patterns }, store),
      store,
      log: into(covered),
    });
    assert.deepEqual(covered, ['started'], 'a pattern delivers what it expands to');
  });
});
