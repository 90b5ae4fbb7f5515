import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ensureZstd, zstdDecompress } from '@hindsight/marketdata';
import { EventStream, ResumeGapError } from '../src/stream/event-stream.ts';
import { assertStatusesReached } from './support/api-client.ts';
import { StrategyClient, type StrategyClientOptions, type WireEvent } from './support/strategy-client.ts';
import { startTestGateway } from './support/test-gateway.ts';

const SHORT = {
  subscriptions: [
    { instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update', 'trade_update', 'position_update'] },
  ],
  startTime: '2024-01-03T00:00:00Z',
  endTime: '2024-01-03T00:20:00Z',
};

const quoteTime = async (api: { get: (p: string) => Promise<{ body: { timestamp: string } }> }) =>
  (await api.get('/v1/quotes/C:BTCUSD')).body.timestamp;

describe('event stream over a real WebSocket (simulation provider)', () => {
  after(() => assertStatusesReached({ 'GET /v1/quotes/{symbol}': [503] }));

  it('starts the run at the first connection and holds simulated time until an event_ack', async () => {
    const t = await startTestGateway({ scenario: SHORT });
    try {
      const early = await t.api.get('/v1/quotes/C:BTCUSD');
      assert.equal(early.status, 503, 'no quote before the run starts');
      assert.equal(early.body.code, 'PROVIDER_UNAVAILABLE');
      const client = await StrategyClient.connect(t.url);
      const connected = await client.waitFor((e) => e.type === 'connection', 'CONNECTED');
      assert.equal(connected.event, 'CONNECTED');
      const first = await client.waitFor((e) => e.type === 'candle', 'the first candle');
      assert.equal(first.bar.timestamp, '2024-01-03T00:00:00.000Z');
      // Without an ack, the replay stands still however many requests come and go.
      for (let i = 0; i < 20; i++) assert.equal(await quoteTime(t.api), '2024-01-03T00:01:00.000Z');
      assert.equal(client.events.filter((e) => e.type === 'candle').length, 1);
      const second = await client.step();
      assert.equal(second.bar.timestamp, '2024-01-03T00:01:00.000Z');
      assert.equal(await quoteTime(t.api), '2024-01-03T00:02:00.000Z');

      // last_seq drains only up to itself: the order events sent after the candle keep time still.
      const order = await t.api.post('/v1/orders', {
        body: { symbol: 'C:BTCUSD', side: 'BUY', quantity: '0.01', order_type: 'MARKET' },
      });
      assert.equal(order.status, 201);
      await client.waitFor((e) => e.type === 'position', 'the position event');
      client.ack(second.seq);
      for (let i = 0; i < 10; i++) assert.equal(await quoteTime(t.api), '2024-01-03T00:02:00.000Z');
      const third = client.next((e) => e.type === 'candle', 'the third candle');
      client.ack(client.lastSeq);
      assert.equal((await third).bar.timestamp, '2024-01-03T00:02:00.000Z');

      const seqs = client.events.map((e) => e.seq);
      assert.ok(seqs.every((s, i) => typeof s === 'number' && (i === 0 || s > (seqs[i - 1] as number))));
      assert.ok(client.events.every((e) => typeof e.type === 'string' && typeof e.timestamp === 'string'));
      await client.close();
    } finally {
      await t.gateway.close();
    }
  });

  it('answers malformed frames with an INVALID_MESSAGE error event and keeps the connection open', async () => {
    const t = await startTestGateway({ scenario: SHORT });
    try {
      const client = await StrategyClient.connect(t.url);
      await client.waitFor((e) => e.type === 'candle', 'the first candle');
      const frames = [
        'not json',
        '[1,2]',
        '{"type":"subscribe"}',
        '{"type":"event_ack","last_seq":-1}',
        '{"type":"event_ack","events_processed":"all"}',
        '{"type":"event_ack","timestamp":"now"}',
      ];
      for (const frame of frames) {
        const error = client.next((e) => e.type === 'error', `the error for ${frame}`);
        client.send(frame);
        const event = await error;
        assert.equal(event.code, 'INVALID_MESSAGE', frame);
        assert.match(event.message, /^Message ignored: /);
      }
      const binary = client.next((e) => e.type === 'error', 'the error for a binary frame');
      client.socket.send(Buffer.from([1, 2, 3]), { binary: true });
      assert.equal((await binary).code, 'INVALID_MESSAGE');
      assert.equal(client.socket.readyState, client.socket.OPEN);
      const next = await client.step();
      assert.equal(next.type, 'candle', 'the connection still works');
      await client.close();
    } finally {
      await t.gateway.close();
    }
  });

  it('replays what a reconnecting strategy missed with ?resume_from_seq, fills included', async () => {
    const t = await startTestGateway({ scenario: SHORT });
    try {
      const first = await StrategyClient.connect(t.url);
      await first.waitFor((e) => e.type === 'candle', 'the first candle');
      await first.step();
      const processed = first.lastSeq;
      const order = await t.api.post('/v1/orders', {
        body: { symbol: 'C:BTCUSD', side: 'BUY', quantity: '0.01', order_type: 'MARKET' },
      });
      await first.waitFor((e) => e.type === 'position', 'the position event');
      first.socket.terminate(); // the strategy drops its socket before it processed the fill
      await first.closed;

      const second = await StrategyClient.connect(t.url, { query: { resume_from_seq: String(processed) } });
      const fill = await second.waitFor((e) => e.event === 'ORDER_FILLED', 'the replayed fill');
      assert.equal(fill.order.id, order.body.id);
      const replayed = second.events.filter((e) => e.type !== 'connection').map((e) => e.seq);
      const missed = first.events.filter((e) => e.seq > processed).map((e) => e.seq);
      assert.deepEqual(replayed.slice(0, missed.length), missed, 'exactly the events after resume_from_seq');
      const seqs = second.events.map((e) => e.seq as number);
      assert.ok(
        seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number)),
        'seq keeps increasing',
      );
      assert.equal(second.events[missed.length]?.event, 'CONNECTED', 'CONNECTED follows the replayed events');
      const next = await second.step();
      assert.equal(next.type, 'candle', 'the run goes on');

      await assert.rejects(
        StrategyClient.connect(t.url, { query: { resume_from_seq: '-3' } }),
        (error: Error & { status?: number; body?: string }) => {
          assert.equal(error.status, 400);
          assert.equal(JSON.parse(error.body as string).code, 'INVALID_VALUE');
          return true;
        },
      );
      await second.close();
    } finally {
      await t.gateway.close();
    }
  });

  it('advances one bar for acks without last_seq read together, and reports a shutdown while waiting', async () => {
    const t = await startTestGateway({ scenario: SHORT });
    try {
      const client = await StrategyClient.connect(t.url);
      await client.waitFor((e) => e.type === 'candle', 'the first candle');
      for (let i = 0; i < 3; i++) await client.step();
      const before = client.lastSeq;
      // A client acking each event of a batch on its own: both acks arrive in one read.
      const raw = (client.socket as import('ws').WebSocket & { _socket: import('node:net').Socket })._socket;
      raw.cork();
      client.ack();
      client.ack();
      process.nextTick(() => raw.uncork());
      await client.waitFor((e) => e.type === 'candle' && e.seq > before, 'the next candle');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const candles = client.events.filter((e) => e.type === 'candle' && e.seq > before);
      assert.equal(candles.length, 1, 'the second ack drained nothing it had not seen');

      await t.gateway.close();
      const end = await t.gateway.done;
      assert.deepEqual(end.outcome, {
        kind: 'failed',
        errorType: 'platform',
        message: 'the gateway shut down',
      });
    } finally {
      await t.gateway.close();
    }
  });

  it('refuses a resume from before the buffered events', () => {
    const stream = new EventStream({ stallTimeoutMs: 0, bufferSize: 4 });
    for (let i = 0; i < 10; i++) stream.publish([{ type: 'candle', timestamp: 'x' }]);
    assert.equal(stream.replayAfter(6).length, 4);
    assert.throws(() => stream.replayAfter(3), ResumeGapError);
  });

  it('pings, keeps a connection that answers pong and closes one that misses two', async () => {
    const t = await startTestGateway({ scenario: SHORT, heartbeatMs: 100 });
    try {
      const lively = await StrategyClient.connect(t.url);
      const silent = await StrategyClient.connect(t.url, { autoPong: false });
      const code = await silent.closed;
      assert.equal(code, 4000, 'closed after two unanswered pings');
      assert.ok(silent.events.filter((e) => e.type === 'ping').length >= 2);
      const ping =
        lively.events.find((e) => e.type === 'ping') ??
        (await lively.waitFor((e) => e.type === 'ping', 'a ping'));
      assert.equal(ping.seq, undefined, 'pings carry no seq');
      assert.equal(typeof ping.timestamp, 'string');
      await lively.waitFor(
        (e) => e.type === 'ping' && lively.events.filter((p) => p.type === 'ping').length >= 4,
        'four pings',
      );
      assert.equal(lively.socket.readyState, lively.socket.OPEN);
      await lively.close();
    } finally {
      await t.gateway.close();
    }
  });

  it('authenticates the upgrade with the API key header, bearer or ?api_key=', async () => {
    const t = await startTestGateway({ scenario: SHORT, env: { GATEWAY_API_KEY: 'sekrit-key' } });
    try {
      await assert.rejects(
        StrategyClient.connect(t.url),
        (error: Error & { status?: number; body?: string }) => {
          assert.equal(error.status, 401);
          assert.equal(JSON.parse(error.body as string).code, 'UNAUTHORIZED');
          return true;
        },
      );
      await assert.rejects(StrategyClient.connect(t.url, { query: { api_key: 'wrong' } }), /401/);
      const ways: StrategyClientOptions[] = [
        { headers: { 'X-API-Key': 'sekrit-key' } },
        { headers: { Authorization: 'Bearer sekrit-key' } },
        { query: { api_key: 'sekrit-key' } },
      ];
      for (const options of ways) {
        const client = await StrategyClient.connect(t.url, options);
        await client.waitFor((e) => e.type === 'connection', 'CONNECTED');
        await client.close();
      }
    } finally {
      await t.gateway.close();
    }
  });

  it('ends a replayed run: DISCONNECTING, close 1000, result files and metrics', async () => {
    const t = await startTestGateway({ scenario: SHORT });
    try {
      const client = await StrategyClient.connect(t.url, { autoAck: true });
      const watcher = await StrategyClient.connect(t.url, { autoAck: true });
      const code = await client.closed;
      assert.equal(code, 1000);
      const last = client.events.at(-1) as WireEvent;
      assert.equal(last.type, 'connection');
      assert.equal(last.event, 'DISCONNECTING');
      assert.equal(client.events.filter((e) => e.type === 'candle').length, 20);
      assert.deepEqual(
        watcher.events.filter((e) => e.type === 'candle').map((e) => e.seq),
        client.events.filter((e) => e.type === 'candle').map((e) => e.seq),
        'every connection gets the same events',
      );
      const end = await t.gateway.done;
      assert.equal(end.outcome.kind, 'completed');
      assert.equal(end.resultsDir, t.resultsDir);
      await ensureZstd();
      const metadata = JSON.parse(
        new TextDecoder().decode(zstdDecompress(await readFile(join(t.resultsDir, 'metadata.json.zst')))),
      );
      assert.equal(metadata.initialCapital, '100000');
      assert.equal(metadata.startTime, Date.parse(SHORT.startTime));
      const trades = JSON.parse(
        new TextDecoder().decode(zstdDecompress(await readFile(join(t.resultsDir, 'trades.json.zst')))),
      );
      assert.deepEqual(trades, { trades: [] });
      const timeseries = JSON.parse(
        new TextDecoder().decode(zstdDecompress(await readFile(join(t.resultsDir, 'timeseries.json.zst')))),
      );
      assert.equal(timeseries.timestamps.length, timeseries.nav.length);
      const metrics = JSON.parse(await readFile(join(t.resultsDir, 'metrics.json'), 'utf8'));
      assert.equal(metrics.totalTrades, 0);
      assert.equal(metrics.netPnl, '0');
    } finally {
      await t.gateway.close();
    }
  });

  it('replays in wall-clock time in paper mode, where acknowledgments are informational', async () => {
    const t = await startTestGateway({
      scenario: SHORT,
      env: { GATEWAY_MODE: 'paper', HINDSIGHT_REPLAY_SPEED: '100000' },
    });
    try {
      const client = await StrategyClient.connect(t.url);
      assert.equal(await client.closed, 1000);
      assert.equal(
        client.events.filter((e) => e.type === 'candle').length,
        20,
        'every candle without one ack',
      );
      const end = await t.gateway.done;
      assert.equal(end.outcome.kind, 'completed');
      assert.equal(t.gateway.provider.mode, 'paper');
    } finally {
      await t.gateway.close();
    }
  });

  it('fails the run as a strategy failure when events stay unacknowledged past the stall timeout', async () => {
    const t = await startTestGateway({ scenario: SHORT, env: { GATEWAY_STALL_TIMEOUT_SECONDS: '1' } });
    try {
      const client = await StrategyClient.connect(t.url);
      const code = await client.closed;
      assert.equal(code, 4001);
      const end = await t.gateway.done;
      assert.deepEqual(end.outcome.kind, 'failed');
      assert.equal(end.outcome.kind === 'failed' && end.outcome.errorType, 'strategy');
      const last = client.events.at(-1) as WireEvent;
      assert.equal(last.event, 'DISCONNECTING');
      assert.match(last.error, /stall timeout/);
      assert.equal(end.resultsDir, undefined, 'a failed run writes no results');
    } finally {
      await t.gateway.close();
    }
  });
});
