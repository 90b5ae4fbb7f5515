import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type RunningGateway, readGatewaySettings, startGateway } from '@hindsight/gateway';
import { BarStore, MemoryObjectStore } from '@hindsight/marketdata';
import { importFiles } from '@hindsight/marketdata/import';
import WebSocket, { WebSocketServer } from 'ws';
import { BACKTRADER, PYTHON, pythonImporting, runYardstick, withBtcCsv } from './python-yardsticks.ts';

/**
 * The trading gateway over loopback, on the real BTCUSDT 1m sample (Jan-Mar 2024, 131,040 bars):
 * - the floors under the round trips on this machine (`loopbackFloors`): the same exchange in C, in
 *   Node over bare TCP, and in Node over `ws` with nothing behind the server (sleeping between
 *   messages, and with both sides polling instead: the floor of a design that busy-polls);
 * - event/ack round trips: a minimal strategy client in its own process (Node `ws`, and Debian's
 *   python3 `websockets`) acknowledges every event as it arrives; one candle per batch, so each
 *   candle is one round trip (event out, ack back, the engine advances); the Node client also once
 *   more keeping its event loop turning after each ack (`node_polling`);
 * - REST order submissions: autocannon, 16 connections for 5 s, MARKET orders alternating BUY and
 *   SELL 0.001 BTC (each one fills, with its order, trade, position events), time held still by a
 *   strategy in its own process that reads the events and never acknowledges them; then what a
 *   strategy waits per order, one at a time, over its WebSocket and over HTTP (`sequentialOrders`);
 * - end to end: the repository's SMA(10)/SMA(30) example strategies (TypeScript, orders over its
 *   WebSocket, and Python, orders over HTTP) as real processes, bars per second of the whole run:
 *   from starting the strategy's process (`end_to_end`), and from its connection, when the run
 *   starts (`from_connection`: the process has started and loaded its code by then; the data is
 *   read and the results are written after it, as in a backtrader `cerebro.run()`);
 * - the yardstick: backtrader running the same crossover on the same bars in-process, when it is
 *   importable (`backtraderSma`).
 */
const SAMPLE = fileURLToPath(new URL('../data/sample/crypto/', import.meta.url));
/** The sample's months of BTCUSDT 1m bars: 131,040 bars. */
const BTC_MONTHS = ['2024-01', '2024-02', '2024-03'];
const EXAMPLES = fileURLToPath(new URL('../examples/', import.meta.url));
const silent = new Writable({ write: (_c, _e, done) => done() });

async function btcStore(months: string[]): Promise<BarStore> {
  const store = new BarStore(new MemoryObjectStore());
  const files = months.map((m) => join(SAMPLE, `binance_spot_BTCUSDT_1m_${m}.csv.zst`));
  await store.writeBars('C:BTCUSD', (await importFiles('binance', files, { symbol: 'C:BTCUSD' })).bars);
  return store;
}

async function gatewayFor(
  store: BarStore,
  scenario: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<RunningGateway> {
  const dir = await mkdtemp(join(tmpdir(), 'hindsight-bench-gateway-'));
  await writeFile(join(dir, 'scenario.json'), JSON.stringify(scenario));
  const settings = readGatewaySettings({
    GATEWAY_PROVIDER: 'simulation',
    GATEWAY_PORT: '0',
    HINDSIGHT_SCENARIO: join(dir, 'scenario.json'),
    HINDSIGHT_RESULTS_DIR: join(dir, 'results'),
    GATEWAY_RATE_LIMIT_PER_MINUTE: '100000000',
    RUST_LOG: 'error',
    ...env,
  });
  return startGateway(settings, { store, logDestination: silent });
}

const wsUrl = (gateway: RunningGateway) => `${gateway.url.replace(/^http/, 'ws')}/v1/ws`;

/**
 * Keeps the event loop turning (a chain of `setImmediate`, with which libuv polls its sockets without
 * blocking) for `ms` after each `poll`, or until `stop`: a process that polls instead of sleeping is
 * not woken through the hypervisor when its answer arrives.
 */
function eventLoopPoller(ms: number): { poll(): void; stop(): void } {
  let until = 0;
  let turning = false;
  const turn = () => {
    if (performance.now() < until) setImmediate(turn);
    else turning = false;
  };
  return {
    poll() {
      until = performance.now() + ms;
      if (turning) return;
      turning = true;
      setImmediate(turn);
    },
    stop() {
      until = 0;
    },
  };
}

/**
 * The minimal Node client: ack every event with its seq (runs in a child process). `polling` keeps
 * its event loop turning for up to 0.2 ms after each ack instead of sleeping until the next event
 * wakes it.
 */
function ackClient(url: string, polling: boolean): void {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const poller = eventLoopPoller(0.2);
  ws.on('message', (data) => {
    poller.stop();
    const event = JSON.parse(data.toString()) as { type: string; seq?: number };
    if (event.type === 'ping') ws.send('{"type":"pong"}');
    else if (event.seq !== undefined)
      ws.send(
        `{"type":"event_ack","correlation_id":"b","events_processed":[],"timestamp":${Date.now()},"last_seq":${event.seq}}`,
      );
    if (polling) poller.poll();
  });
  ws.on('close', () => process.exit(0));
}

const PYTHON_ACK_CLIENT = `
import asyncio, json, sys, time, websockets
async def main():
    async with websockets.connect(sys.argv[1], compression=None) as ws:
      try:
        async for message in ws:
            event = json.loads(message)
            if event.get("type") == "ping":
                await ws.send('{"type":"pong"}')
            elif "seq" in event:
                await ws.send(json.dumps({"type": "event_ack", "correlation_id": "b", "events_processed": [], "timestamp": int(time.time() * 1000), "last_seq": event["seq"]}))
      except websockets.ConnectionClosed:
        pass
asyncio.run(main())
`;

function runProcess(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

/**
 * `run` unless the strategy process fails first: one that cannot start (python3 without websockets)
 * never connects, and the run would wait for it for ever.
 */
function unlessClientFails<T>(run: Promise<T>, exit: Promise<number | null>, client: string): Promise<T> {
  const failed = exit.then((code) =>
    code === 0
      ? new Promise<never>(() => {})
      : Promise.reject(new Error(`the ${client} client exited with code ${code} (its stderr is above)`)),
  );
  return Promise.race([run, failed]);
}

async function roundTrips(
  store: BarStore,
  client: 'node' | 'node_polling' | 'python',
  months: number,
): Promise<void> {
  const end = new Date(Date.UTC(2024, months, 1)).toISOString().replace('.000', '');
  const gateway = await gatewayFor(store, {
    subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m'] }],
    startTime: '2024-01-01T00:00:00Z',
    endTime: end,
  });
  // Timed from the strategy's connection to the end of the replay (not the client's start-up, not
  // the result files).
  let started = 0;
  let cpu = process.cpuUsage();
  gateway.app.server.once('upgrade', () => {
    started = performance.now();
    cpu = process.cpuUsage();
  });
  const exit =
    client === 'python'
      ? runProcess(PYTHON, ['-c', PYTHON_ACK_CLIENT, wsUrl(gateway)])
      : runProcess(process.execPath, [
          '--conditions=source',
          '--import',
          'tsx',
          fileURLToPath(import.meta.url),
          client === 'node' ? 'ack-client' : 'polling-ack-client',
          wsUrl(gateway),
        ]);
  const outcome = await unlessClientFails(gateway.provider.finished, exit, client);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await gateway.done;
  await exit;
  await gateway.close();
  if (outcome.kind !== 'completed') throw new Error(`the run failed: ${JSON.stringify(outcome)}`);
  const events = gateway.ctx.stream.lastSeq;
  console.log(`BENCH gateway_event_ack_roundtrips_${client} ${Math.round(events / seconds)} round_trips/s`);
  console.log(
    `BENCH gateway_event_ack_server_cpu_${client} ${((used.user + used.system) / events).toFixed(1)} us/round_trip`,
  );
  console.log(`BENCH gateway_event_ack_events_${client} ${events} events`);
}

const FLOOR_SECONDS = 3;
const FLOOR_EVENT = JSON.stringify({
  type: 'candle',
  bar: {
    symbol: 'C:BTCUSD',
    provider: 'simulation',
    timeframe: '1m',
    timestamp: '2024-01-01T00:00:00.000Z',
    open: '42283.58',
    high: '42298.62',
    low: '42261.02',
    close: '42298.61',
    volume: '35.92724',
  },
  timestamp: '2024-01-01T00:01:00.000Z',
  seq: 1,
});

/** bench/gateway-floor.c, built with the system's C compiler: undefined when there is none. */
function cFloor(mode: 'blocking' | 'epoll'): number | undefined {
  const dir = join(tmpdir(), 'hindsight-bench-gateway-floor');
  const binary = join(dir, 'floor');
  try {
    if (!existsSync(binary)) {
      execFileSync('mkdir', ['-p', dir]);
      execFileSync('cc', ['-O2', '-o', binary, fileURLToPath(new URL('gateway-floor.c', import.meta.url))]);
    }
    const args = mode === 'epoll' ? ['-e', String(FLOOR_SECONDS)] : [String(FLOOR_SECONDS)];
    return Number(execFileSync(binary, args, { encoding: 'utf8' }).trim().split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * The floors under the round-trip figure on this machine: the same exchange (a ~300-byte event out,
 * a ~120-byte ack back, one at a time) between two processes over loopback TCP
 * - in C (bench/gateway-floor.c: blocking reads, and epoll as an event loop waits): the kernel's
 *   share, what no implementation gets under;
 * - in Node over bare TCP (no WebSocket framing, no JSON): Node's event loop on both sides;
 * - in Node over `ws`: a `ws` server that sends the same event text again and again, and the
 *   benchmark's own minimal ack client (`ackClient`), with nothing behind the server (no engine,
 *   no gateway): what the gateway's round trips would be if the gateway cost nothing (`wsFloor`).
 */
async function loopbackFloors(): Promise<void> {
  for (const mode of ['blocking', 'epoll'] as const) {
    const rate = cFloor(mode);
    if (rate !== undefined) console.log(`BENCH gateway_loopback_c_floor_${mode} ${rate} round_trips/s`);
  }
  const { createServer } = await import('node:net');
  const event = Buffer.from(FLOOR_EVENT);
  // Timed from the connection to the last ack, so that neither client's start-up counts.
  let count = 0;
  let deadline = 0;
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', () => {
      count++;
      if (performance.now() < deadline) socket.write(event);
      else socket.end();
    });
    deadline = performance.now() + FLOOR_SECONDS * 1000;
    socket.write(event);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const client = `const s=require('node:net').connect(${port},'127.0.0.1');s.setNoDelay(true);const ack=Buffer.alloc(120,97);s.on('data',()=>s.write(ack));s.on('end',()=>process.exit(0));`;
  await runProcess(process.execPath, ['-e', client]);
  server.close();
  console.log(`BENCH gateway_loopback_tcp_floor ${Math.round(count / FLOOR_SECONDS)} round_trips/s`);

  await wsFloor(false);
  await wsFloor(true);
}

/**
 * The `ws` floor: a `ws` server that answers each ack with the same event text, nothing behind it,
 * and the benchmark's minimal ack client. `polling`: both sides keep their event loops turning for
 * 0.2 ms after they write (`..._floor_polling`), so neither is woken: what busy-polling could at
 * best give a Node strategy's round trips when the gateway costs nothing.
 */
async function wsFloor(polling: boolean): Promise<void> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => wss.on('listening', resolve));
  let count = 0;
  let deadline = 0;
  let cpu = process.cpuUsage();
  const poller = eventLoopPoller(0.2);
  wss.on('connection', (ws, request) => {
    request.socket.setNoDelay(true);
    deadline = performance.now() + FLOOR_SECONDS * 1000;
    cpu = process.cpuUsage();
    ws.on('message', () => {
      count++;
      if (performance.now() >= deadline) {
        ws.close(1000);
        return;
      }
      ws.send(FLOOR_EVENT);
      if (polling) poller.poll();
    });
    ws.send(FLOOR_EVENT);
  });
  const url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
  const client = polling ? 'polling-ack-client' : 'ack-client';
  await runProcess(process.execPath, [
    '--conditions=source',
    '--import',
    'tsx',
    fileURLToPath(import.meta.url),
    client,
    url,
  ]);
  const used = process.cpuUsage(cpu);
  wss.close();
  const name = `gateway_loopback_ws_floor${polling ? '_polling' : ''}`;
  console.log(`BENCH ${name} ${Math.round(count / FLOOR_SECONDS)} round_trips/s`);
  console.log(`BENCH ${name}_server_cpu ${((used.user + used.system) / count).toFixed(1)} us/round_trip`);
}

interface LoadResult {
  '2xx': number;
  non2xx: number;
  errors: number;
  duration: number;
  latency: { p50: number; p99: number };
}

/** 16 connections for 5 s of MARKET orders alternating BUY and SELL 0.001, from a child process. */
async function loadInChild(url: string): Promise<LoadResult> {
  const script = `
    const autocannon = require('autocannon');
    const body = (side) => JSON.stringify({ symbol: 'C:BTCUSD', side, quantity: '0.001', order_type: 'MARKET' });
    const headers = { 'content-type': 'application/json' };
    autocannon({ url: ${JSON.stringify(url)}, connections: 16, duration: 5, requests: [
      { method: 'POST', path: '/v1/orders', headers, body: body('BUY') },
      { method: 'POST', path: '/v1/orders', headers, body: body('SELL') },
    ] }).then((r) => process.stdout.write(JSON.stringify({ '2xx': r['2xx'], non2xx: r.non2xx, errors: r.errors,
      duration: r.duration, latency: { p50: r.latency.p50, p99: r.latency.p99 } })));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', () => resolve(JSON.parse(out) as LoadResult));
  });
}

/**
 * A gateway for the order benchmarks (January 2024, every order event subscribed) with its strategy
 * client (a mode of this file) in its own process, once that client says it is ready.
 */
async function orderBenchRun(store: BarStore, mode: 'holding-client' | 'sequential-order-client') {
  const gateway = await gatewayFor(store, {
    subscriptions: [
      { instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update', 'trade_update', 'position_update'] },
    ],
    startTime: '2024-01-01T00:00:00Z',
    endTime: '2024-02-01T00:00:00Z',
  });
  const client = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', fileURLToPath(import.meta.url), mode, wsUrl(gateway)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => client.stdout.once('data', () => resolve()));
  return { gateway, client };
}

async function orderSubmissions(store: BarStore): Promise<void> {
  // A strategy that holds time at its first candle (it reads events, never acks), in its own process
  // so that its reading is not counted as the gateway's CPU; it says "ready" at the first candle.
  const { gateway, client: holder } = await orderBenchRun(store, 'holding-client');
  // autocannon runs in its own process, so the figure is the gateway's, not shared with the load generator.
  const cpu = process.cpuUsage();
  const result = await loadInChild(gateway.url);
  const used = process.cpuUsage(cpu);
  const holderExit = new Promise((resolve) => holder.once('close', resolve));
  await gateway.close();
  await holderExit;
  const ok = result['2xx'];
  if (result.non2xx > 0 || result.errors > 0)
    console.log(`# ${result.non2xx} non-2xx, ${result.errors} errors`);
  console.log(`BENCH gateway_rest_order_submissions ${Math.round(ok / result.duration)} orders/s`);
  console.log(`BENCH gateway_rest_order_p99 ${result.latency.p99} ms`);
  console.log(
    `BENCH gateway_rest_order_server_cpu ${((used.user + used.system) / result['2xx']).toFixed(0)} us/order`,
  );
  console.log(`BENCH gateway_rest_order_p50 ${result.latency.p50} ms`);
}

interface SequentialOrders {
  orders: number;
  failed: number;
  seconds: number;
  p50: number;
  p99: number;
}

/**
 * What a strategy waits per order: one MARKET order at a time (as the SMA example places them), as a
 * request over its WebSocket (docs/gateway.md, REST over the socket) and as `POST /v1/orders` over a
 * kept-alive HTTP connection (`node:http`), 3 s each, from a child process that also holds time at
 * its first candle. Neither client busy-polls, so both pay the same wake-ups.
 */
async function sequentialOrders(store: BarStore): Promise<void> {
  const { gateway, client } = await orderBenchRun(store, 'sequential-order-client');
  let out = '';
  client.stdout.on('data', (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((resolve) => client.once('close', resolve));
  await gateway.close();
  if (code !== 0) throw new Error(`the sequential order client exited with code ${code}`);
  const results = JSON.parse(out) as Record<'socket' | 'http', SequentialOrders>;
  for (const [transport, result] of Object.entries(results)) {
    if (result.failed > 0) console.log(`# ${transport}: ${result.failed} orders not accepted`);
    console.log(
      `BENCH gateway_sequential_order_${transport} ${Math.round(result.orders / result.seconds)} orders/s`,
    );
    console.log(`BENCH gateway_sequential_order_${transport}_p50 ${result.p50.toFixed(3)} ms`);
    console.log(`BENCH gateway_sequential_order_${transport}_p99 ${result.p99.toFixed(3)} ms`);
  }
}

/** The client of `sequentialOrders`: says "ready" at the first candle, then orders one at a time. */
function sequentialOrderClient(url: string): void {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  const rest = `${url.replace(/^ws/, 'http').replace(/\/ws$/, '')}/orders`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const answers = new Map<string, (status: number) => void>();
  let requests = 0;
  const body = (n: number) =>
    JSON.stringify({
      symbol: 'C:BTCUSD',
      side: n % 2 === 0 ? 'BUY' : 'SELL',
      quantity: '0.001',
      order_type: 'MARKET',
    });
  const overSocket = (n: number) =>
    new Promise<number>((resolve) => {
      const id = String(++requests);
      answers.set(id, resolve);
      ws.send(
        `{"type":"request","request_id":"${id}","method":"POST","path":"/v1/orders","body":${body(n)}}`,
      );
    });
  const overHttp = (n: number) =>
    new Promise<number>((resolve, reject) => {
      const request = http.request(
        rest,
        { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
      request.end(body(n));
    });
  const measure = async (order: (n: number) => Promise<number>): Promise<SequentialOrders> => {
    const latencies: number[] = [];
    let failed = 0;
    const started = performance.now();
    for (let n = 0; performance.now() - started < 3000; n++) {
      const sent = performance.now();
      if ((await order(n)) !== 201) failed++;
      latencies.push(performance.now() - sent);
    }
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] as number;
    return { orders: latencies.length - failed, failed, seconds, p50: at(0.5), p99: at(0.99) };
  };
  let started = false;
  ws.on('message', async (data) => {
    const event = JSON.parse(data.toString()) as { type: string; request_id?: string; status?: number };
    if (event.type === 'ping') ws.send('{"type":"pong"}');
    if (event.type === 'response' && event.request_id !== undefined) {
      answers.get(event.request_id)?.(event.status ?? 0);
      answers.delete(event.request_id);
    }
    if (started || event.type !== 'candle') return;
    started = true;
    process.stdout.write('ready\n');
    const socket = await measure(overSocket);
    const overHttpResult = await measure(overHttp);
    process.stdout.write(JSON.stringify({ socket, http: overHttpResult }), () => process.exit(0));
  });
}

async function endToEnd(store: BarStore, language: 'typescript' | 'python', months: number): Promise<void> {
  const subscriptions = [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }];
  const end = new Date(Date.UTC(2024, months, 1)).toISOString().replace('.000', '');
  const gateway = await gatewayFor(store, {
    subscriptions,
    startTime: '2024-01-01T00:00:00Z',
    endTime: end,
    costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '1' } },
  });
  const env = {
    PROXY_REST_URL: `${gateway.url}/v1`,
    PROXY_WS_URL: wsUrl(gateway),
    PLATFORM_SUBSCRIPTIONS: JSON.stringify(subscriptions),
  };
  // The run starts when the strategy connects (its process has started and loaded by then).
  let connected = 0;
  gateway.app.server.once('upgrade', () => {
    connected = performance.now();
  });
  const started = performance.now();
  const exit =
    language === 'typescript'
      ? runProcess(
          process.execPath,
          ['--import', 'tsx', join(EXAMPLES, 'sma-crossover-typescript', 'main.ts')],
          env,
        )
      : runProcess(PYTHON, [join(EXAMPLES, 'sma-crossover-python', 'main.py')], env);
  await unlessClientFails(gateway.provider.finished, exit, language);
  const done = await gateway.done;
  const ended = performance.now();
  const seconds = (ended - started) / 1000;
  await exit;
  await gateway.close();
  if (done.outcome.kind !== 'completed') throw new Error(`the run failed: ${JSON.stringify(done.outcome)}`);
  const bars = months === 3 ? 131_040 : 44_640;
  const trades = done.files?.metrics.totalTrades;
  console.log(`BENCH gateway_sma_${language}_end_to_end ${Math.round(bars / seconds)} bars/s`);
  console.log(
    `BENCH gateway_sma_${language}_from_connection ${Math.round(bars / ((ended - connected) / 1000))} bars/s`,
  );
  console.log(`BENCH gateway_sma_${language}_closed_trades ${trades} trades`);
}

/**
 * `GATEWAY_BENCH=roundtrips,orders,sma` runs some parts only (`sequential-orders`: the second half of
 * `orders`; `sma-typescript`, `sma-python` and `backtrader`: one of the three runs of `sma`).
 */
export async function run(): Promise<void> {
  const only = process.env.GATEWAY_BENCH?.split(',');
  const wanted = (part: string) => only === undefined || only.includes(part);
  const store = await btcStore(BTC_MONTHS);
  if (wanted('roundtrips')) {
    await loopbackFloors();
    await roundTrips(store, 'node', 3);
    await roundTrips(store, 'node_polling', 3);
    await roundTrips(store, 'python', 1);
  }
  if (wanted('orders')) await orderSubmissions(store);
  if (wanted('orders') || wanted('sequential-orders')) await sequentialOrders(store);
  if (wanted('sma') || wanted('sma-typescript')) await endToEnd(store, 'typescript', 3);
  if (wanted('sma') || wanted('sma-python')) await endToEnd(store, 'python', 1);
  if (wanted('sma') || wanted('backtrader')) await backtraderSma(BTC_MONTHS);
}

/**
 * backtrader on the same machine and the same bars: the same crossover in-process
 * (`bench/backtrader-sma.py`), with its default observers and without them, when the benchmark's
 * python3 imports it (`BACKTRADER_PATH`: `bench/python-yardsticks.ts`).
 */
async function backtraderSma(months: string[]): Promise<void> {
  const env = pythonImporting(BACKTRADER);
  if (env === undefined) return;
  await withBtcCsv(months, async (csv) => {
    for (const observers of [false, true]) {
      const args = [csv, ...(observers ? ['--stdstats'] : [])];
      const { result, processSeconds } = runYardstick('backtrader-sma.py', args, env);
      const name = `gateway_sma_backtrader${observers ? '_stdstats' : ''}`;
      // `cerebro.run()` alone (as from_connection), and the whole process (as end_to_end: the
      // interpreter's start and backtrader's import included).
      console.log(`BENCH ${name} ${Math.round(result.bars / result.seconds)} bars/s`);
      console.log(`BENCH ${name}_end_to_end ${Math.round(result.bars / processSeconds)} bars/s`);
      console.log(`BENCH ${name}_orders ${result.orders} orders`);
    }
  });
}

/** The strategy of the order benchmark: prints "ready" at the first candle, then reads and never acks. */
function holdingClient(url: string): void {
  const ws = new WebSocket(url, { perMessageDeflate: false });
  let ready = false;
  ws.on('message', (data) => {
    if (!ready && data.toString().includes('"type":"candle"')) {
      ready = true;
      process.stdout.write('ready\n');
    }
  });
  ws.on('close', () => process.exit(0));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv[2] === 'ack-client') ackClient(process.argv[3] as string, false);
  if (process.argv[2] === 'polling-ack-client') ackClient(process.argv[3] as string, true);
  if (process.argv[2] === 'holding-client') holdingClient(process.argv[3] as string);
  if (process.argv[2] === 'sequential-order-client') sequentialOrderClient(process.argv[3] as string);
}
