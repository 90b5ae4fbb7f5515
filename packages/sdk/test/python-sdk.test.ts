import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { RunEnd } from '@hindsight/gateway';
import { startTestGateway, type TestGateway } from '../../gateway/test/support/test-gateway.ts';

/**
 * The Python SDK (sdk/python) as strategies run it: Debian's /usr/bin/python3 (python3-websockets
 * from apt; the pyenv python3 on PATH has no websockets) with PYTHONPATH=sdk/python, as a real
 * process against a real gateway on loopback replaying the real BTCUSDT sample. The SDK's example
 * strategy, and the probes in support/python_probes.py, cover parameters, orders, rejections, the
 * retry schedule, reconnecting and exit statuses; the SDK's pure parts have their own unittest suite
 * (sdk/python/tests), run from here too. The cases run concurrently: each has its own gateway.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SDK_DIR = join(ROOT, 'sdk', 'python');
const EXAMPLE = join(ROOT, 'examples', 'sma-crossover-python', 'strategy.py');
const HAND_WRITTEN_EXAMPLE = join(ROOT, 'examples', 'sma-crossover-python', 'main.py');
const PROBES = fileURLToPath(new URL('./support/python_probes.py', import.meta.url));
const PYTHON =
  process.env.HINDSIGHT_TEST_PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

const week = (events: string[]) => ({
  subscriptions: [{ instrument: 'C:BTCUSD', events }],
  startTime: '2024-01-02T00:00:00Z',
  endTime: '2024-01-09T00:00:00Z',
  costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '1' } },
});
const twoHours = (events: string[]) => ({ ...week(events), endTime: '2024-01-02T02:00:00Z' });
const PROBE_EVENTS = ['candle_1m', 'order_update'];

interface PythonRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Backtest extends PythonRun {
  end: RunEnd | undefined;
  /** The `RESULT <json>` lines the probe printed, merged. */
  results: Record<string, unknown>;
}

/** Runs a Python script to its exit; `onLine` sees each stdout line as it comes. */
function runPython(
  args: string[],
  env: Record<string, string>,
  onLine: (line: string) => void = () => {},
  python = PYTHON,
): Promise<PythonRun> {
  const child = spawn(python, args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PYTHONPATH: SDK_DIR,
      PYTHONDONTWRITEBYTECODE: '1',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk;
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface BacktestOptions {
  scenario: unknown;
  env?: Record<string, string>;
  gatewayEnv?: Record<string, string>;
  clock?: () => number;
  /** Called with the started gateway before the strategy starts. */
  prepare?: (gateway: TestGateway) => void;
  onLine?: (line: string, gateway: TestGateway) => void;
}

/** A strategy script against its own gateway: the strategy's exit and the run's end. */
async function backtest(script: string, options: BacktestOptions): Promise<Backtest> {
  const gateway = await startTestGateway({
    scenario: options.scenario,
    env: { GATEWAY_API_KEY: 'python-sdk-key', RUST_LOG: 'warn', ...options.gatewayEnv },
    ...(options.clock && { clock: options.clock }),
  });
  try {
    options.prepare?.(gateway);
    const subscriptions = (options.scenario as { subscriptions: unknown }).subscriptions;
    const run = await runPython(
      [script],
      {
        PROXY_WS_URL: `${gateway.url.replace(/^http/, 'ws')}/v1/ws`,
        PROXY_REST_URL: `${gateway.url}/v1`,
        PLATFORM_GATEWAY_API_KEY: 'python-sdk-key',
        PLATFORM_SUBSCRIPTIONS: JSON.stringify(subscriptions),
        ...options.env,
      },
      (line) => options.onLine?.(line, gateway),
    );
    // A strategy that exits before the end leaves the run waiting: only a clean exit ends it.
    const end = run.code === 0 ? await gateway.gateway.done : undefined;
    const results: Record<string, unknown> = {};
    for (const line of run.stdout.split('\n')) {
      if (line.startsWith('RESULT ')) Object.assign(results, JSON.parse(line.slice('RESULT '.length)));
    }
    return { ...run, end, results };
  } finally {
    await gateway.gateway.close();
  }
}

const output = (run: PythonRun) => `exit ${run.code}\n${run.stdout.slice(-1500)}\n${run.stderr.slice(-3000)}`;

function assertCompleted(run: Backtest): RunEnd {
  assert.equal(run.code, 0, output(run));
  assert.ok(run.end, 'the run ended');
  assert.equal(run.end.outcome.kind, 'completed', output(run));
  return run.end;
}

describe('the Python SDK against a real gateway', { concurrency: true }, () => {
  it('runs the SMA example to a completed week with closed trades; FAST/SLOW change the trades', async () => {
    const scenario = week(['candle_1m']);
    const [defaults, faster, byHand] = await Promise.all([
      backtest(EXAMPLE, { scenario }),
      backtest(EXAMPLE, { scenario, env: { FAST: '5', SLOW: '20' } }),
      backtest(HAND_WRITTEN_EXAMPLE, { scenario }),
    ]);
    const metrics = assertCompleted(defaults).files?.metrics;
    const fasterMetrics = assertCompleted(faster).files?.metrics;
    assert.deepEqual(
      metrics,
      assertCompleted(byHand).files?.metrics,
      'the same trades as the hand-written example',
    );
    assert.ok(metrics && fasterMetrics, 'metrics were written');
    assert.ok(metrics.totalTrades > 0, `closed trades: ${metrics.totalTrades}`);
    assert.ok(fasterMetrics.totalTrades > 0);
    assert.notDeepEqual(fasterMetrics, metrics, 'FAST=5 SLOW=20 trades differently');
    assert.ok(fasterMetrics.totalTrades > metrics.totalTrades, 'faster averages cross more often');
  });

  it('stops with status 2 naming the variable on a bad parameter, before connecting', async () => {
    const run = await runPython([EXAMPLE], { FAST: 'ten', PROXY_WS_URL: 'ws://127.0.0.1:9/v1/ws' });
    assert.equal(run.code, 2, output(run));
    assert.match(run.stderr, /FAST: 'ten' is not an integer/);
    assert.doesNotMatch(run.stderr, /Traceback/);
  });

  it('stops with status 2 on a malformed subscriptions declaration, and warns of what the run does not deliver', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-python-subscriptions-'));
    const script = async (name: string, events: string) => {
      const file = join(dir, name);
      await writeFile(
        file,
        `from hindsight import Strategy, run\n\n\nclass S(Strategy):\n    subscriptions = [{"instrument": "C:BTCUSD", "events": ${events}}]\n\n    def on_trade(self, trade, ctx):\n        pass\n\n\nrun(S)\n`,
      );
      return file;
    };
    try {
      const bad = await runPython([await script('bad.py', '["candle_3m"]')], {
        PROXY_WS_URL: 'ws://127.0.0.1:9/v1/ws',
      });
      assert.equal(bad.code, 2, output(bad));
      assert.match(
        bad.stderr,
        /^hindsight: subscriptions\[0\]\.events\[0\]: 'candle_3m' is no event; events: /,
      );
      assert.doesNotMatch(bad.stderr, /Traceback/);

      const good = await script('good.py', '["candle_1m", "order_update"]');
      const run = await backtest(good, {
        scenario: { ...twoHours(['candle_1m']), endTime: '2024-01-02T00:10:00Z' },
      });
      assertCompleted(run);
      assert.match(
        run.stderr,
        /hindsight: warning: the strategy subscribes to C:BTCUSD order_update, which this run does not deliver \(it delivers C:BTCUSD candle_1m\)\n/,
      );
      assert.match(
        run.stderr,
        /hindsight: warning: on_trade is never called: this run delivers no trade_update/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('places, modifies, cancels and closes; refuses float quantities; resolves a rejection to the REJECTED Order', async () => {
    const run = await backtest(PROBES, { scenario: twoHours(PROBE_EVENTS), env: { PROBE: 'orders' } });
    assertCompleted(run);
    // biome-ignore lint/suspicious/noExplicitAny: the probe's JSON, read loosely
    const r = run.results as Record<string, any>;
    assert.match(r.type_error, /quantity: the float 0\.01 is refused/);
    assert.equal(r.rejected.status, 'REJECTED');
    assert.equal(r.rejected.reject_reason, 'INSUFFICIENT_MARGIN');
    assert.equal(r.rejected.client_order_id, 'run-1', 'the refused float order took no client_order_id');
    assert.equal(r.filled.status, 'FILLED');
    assert.equal(r.filled.quantity, '0.01');
    assert.equal(r.filled.client_order_id, 'run-2');
    assert.equal(r.time, '2024-01-02T00:01:00.000Z');
    assert.equal(r.now, Date.parse('2024-01-02T00:01:00.000Z'));
    assert.equal(r.sync_order.status, 'FILLED');
    assert.equal(r.sync_order.client_order_id, 'run-3');
    assert.equal(r.kept, 3, 'ctx.candles kept the three candles so far');
    assert.equal(r.limit_status, 'OPEN');
    assert.equal(r.modified_price, '20001.5');
    assert.deepEqual(r.open_orders, [r.limit_id]);
    assert.equal(r.cancelled_status, 'CANCELLED');
    assert.equal(r.position.side, 'LONG');
    assert.equal(r.position.quantity, '0.02');
    assert.equal(r.close_order.status, 'FILLED');
    assert.equal(r.close_order.side, 'SELL');
    assert.equal(r.positions_after, 0);
    assert.equal(r.trades, 4, 'the buy, the sync sell, the second buy and the close');
    assert.equal(r.cancel_all.cancelled_count, 0);
    assert.equal(r.account.currency, 'USD');
    assert.deepEqual(
      (r.order_events as [string, string][]).filter(([, id]) => id === 'run-2').map(([event]) => event)[0],
      'ORDER_CREATED',
    );
  });

  it('exits 1 with the traceback when a handler raises', async () => {
    const run = await backtest(PROBES, { scenario: twoHours(PROBE_EVENTS), env: { PROBE: 'raise' } });
    assert.equal(run.code, 1, output(run));
    assert.match(run.stderr, /Traceback \(most recent call last\)/);
    assert.match(run.stderr, /RuntimeError: boom from on_candle/);
  });

  it('retries RATE_LIMITED after retry_after_seconds', async () => {
    // The gateway allows 2 requests a minute. Its rate-limit clock jumps 58.5 s once the first
    // request is counted, so the third is refused close to the window's end (retry_after_seconds
    // 1 or 2) and the retry lands in a new window.
    let offset = 0;
    const run = await backtest(PROBES, {
      scenario: { ...twoHours(PROBE_EVENTS), endTime: '2024-01-02T00:10:00Z' },
      env: { PROBE: 'ratelimit' },
      gatewayEnv: { GATEWAY_RATE_LIMIT_PER_MINUTE: '2' },
      clock: () => Date.now() + offset,
      prepare: ({ gateway }) => {
        const limit = gateway.ctx.rateLimit;
        const take = limit.take.bind(limit);
        limit.take = () => {
          const decision = take();
          offset = 58_500;
          return decision;
        };
      },
    });
    assertCompleted(run);
    const retry =
      /GET \/v1\/account: RATE_LIMITED; retrying in ([0-9.]+) s \(retry_after_seconds=([0-9]+)/.exec(
        run.stderr,
      );
    assert.ok(retry, output(run));
    assert.ok(Number(retry[1]) >= Number(retry[2]), 'the delay honours retry_after_seconds');
    assert.equal((run.results.balances as string[]).length, 3);
  });

  it('reconnects with resume_from_seq after the server kills the socket, handling no event twice', async () => {
    let killed = 0;
    const run = await backtest(PROBES, {
      scenario: twoHours(PROBE_EVENTS),
      env: { PROBE: 'reconnect' },
      onLine: (line, gateway) => {
        if (line !== 'READY') return;
        for (const socket of gateway.gateway.app.websocketServer.clients) {
          socket.terminate();
          killed++;
        }
      },
    });
    assertCompleted(run);
    assert.equal(killed, 1);
    assert.match(run.stderr, /reconnected with resume_from_seq=[1-9][0-9]*/);
    assert.equal(run.results.end, true);
    assert.equal(run.results.candles, 120, 'every 1m candle of two hours, once');
    assert.equal(run.results.distinct, run.results.candles);
  });

  it('installs with pip into a --target directory', async () => {
    // The pip that builds: Debian's (python3-pip, with python3-setuptools) when it is installed,
    // offline (no build isolation, no index); else the first python3 on PATH (pyenv's: pip, but not
    // websockets), which builds in isolation with setuptools from its configured index (PIP_*
    // settings pass through). Either builds from a copy of the folder, as a build leaves build/ and
    // *.egg-info beside the sources. The package is pure Python: Debian's python3 imports it.
    const debianPip = (await runPython(['-m', 'pip', '--version'], {})).code === 0;
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-python-sdk-'));
    try {
      await cp(SDK_DIR, join(dir, 'src'), {
        recursive: true,
        filter: (path) => !/(__pycache__|\.egg-info|[/\\]build)$/.test(path),
      });
      const target = join(dir, 'target');
      const offline = debianPip ? ['--no-build-isolation', '--no-index'] : [];
      const pipSettings = Object.fromEntries(
        Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('PIP_') && !!e[1]),
      );
      const pip = await runPython(
        ['-m', 'pip', 'install', '--quiet', '--no-deps', ...offline, '--target', target, join(dir, 'src')],
        pipSettings,
        () => {},
        debianPip ? PYTHON : 'python3',
      );
      assert.equal(pip.code, 0, output(pip));
      const check = await runPython(
        [
          '-c',
          'import hindsight, pathlib; p = pathlib.Path(hindsight.__file__).parent; print(p, (p / "py.typed").exists(), hindsight.decimal_string("1.50"))',
        ],
        { PYTHONPATH: target },
      );
      assert.equal(check.code, 0, output(check));
      assert.equal(check.stdout.trim(), `${join(target, 'hindsight')} True 1.5`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("passes the SDK's own unit tests (python3 -m unittest)", async () => {
    const run = await runPython(
      ['-m', 'unittest', 'discover', '-s', join(SDK_DIR, 'tests'), '-t', SDK_DIR],
      {},
    );
    assert.equal(run.code, 0, output(run));
    assert.match(run.stderr, /\nOK\n/);
  });
});
