import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { readGatewaySettings, type Scenario, SimulationProvider, startGateway } from '@hindsight/gateway';
import type { BarStore } from '@hindsight/marketdata';
import type { Observations } from './observations.ts';
import { startProxy } from './proxy.ts';
import { CheckScript, DEFAULT_TIMINGS, type ScriptTimings } from './script.ts';
import { type StrategyCommand, startStrategy } from './strategy-process.ts';

/**
 * One `hindsight check` run: a real gateway (the simulation provider, on a loopback port, with an
 * API key as under the platform), the checker's proxy in front of it running the script, and the
 * strategy as a child process pointed at the proxy. Ends when the backtest ends (plus the grace of
 * decision 19b for the process to exit), when the strategy exits, or at the time limit.
 */
export interface CheckRun {
  strategy: StrategyCommand;
  scenario: Scenario;
  store: BarStore;
  /** Whole seconds a batch may stay unacknowledged: the gateway's stall timeout. */
  ackTimeoutSeconds: number;
  timeoutMs: number;
  timings?: Partial<ScriptTimings>;
  /** Pass the strategy's output through to stderr as it runs. */
  echo: boolean;
}

/** Decision 19b: a strategy still running this long after DISCONNECTING is stopped. */
const EXIT_GRACE_MS = 10_000;
/** The gateway's own heartbeat stays out of the way: the script sends the one ping it judges. */
const GATEWAY_HEARTBEAT_MS = 3_600_000;

export async function runCheck(run: CheckRun): Promise<Observations> {
  const apiKey = randomBytes(16).toString('hex');
  const settings = readGatewaySettings({
    GATEWAY_PROVIDER: 'simulation',
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_PORT: '0',
    GATEWAY_API_KEY: apiKey,
    GATEWAY_STALL_TIMEOUT_SECONDS: String(run.ackTimeoutSeconds),
    RUST_LOG: 'off',
    HINDSIGHT_SCENARIO: 'scenario.json', // required by the settings; the provider below is built here
  });
  const provider = new SimulationProvider({
    scenario: run.scenario,
    store: run.store,
    rateLimitPerMinute: settings.rateLimitPerMinute,
  });
  const gateway = await startGateway(settings, {
    provider,
    writeResults: false,
    heartbeatMs: GATEWAY_HEARTBEAT_MS,
  });
  const script = new CheckScript(apiKey, { ...DEFAULT_TIMINGS, ...run.timings });
  const proxy = await startProxy(gateway.url, script);
  const { scenario } = run;
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...scenario.env,
    TRADING_GATEWAY_URL: proxy.url,
    PROXY_REST_URL: `${proxy.url}/v1`,
    PROXY_WS_URL: `${proxy.url.replace(/^http/, 'ws')}/v1/ws`,
    PLATFORM_GATEWAY_API_KEY: apiKey,
    PLATFORM_SCENARIO_ID: 'hindsight-check',
    PLATFORM_SUBSCRIPTIONS: JSON.stringify(scenario.subscriptions),
    PLATFORM_START_TIME: scenario.startTime,
    PLATFORM_END_TIME: scenario.endTime,
    PLATFORM_INITIAL_CAPITAL: String(scenario.initialCapital),
  };
  const strategy = startStrategy(run.strategy, env, run.echo);
  const seen = script.seen;
  try {
    const first = await Promise.race([
      gateway.done.then((end) => ({ ended: end })),
      strategy.exited.then((exit) => ({ exit })),
      sleep(run.timeoutMs, undefined, { ref: false }).then(() => ({ timedOut: true as const })),
    ]);
    seen.endedAt = script.now();
    if ('ended' in first) {
      seen.run =
        first.ended.outcome.kind === 'completed'
          ? { kind: 'completed' }
          : { kind: 'failed', message: first.ended.outcome.message };
      const exit = await Promise.race([strategy.exited, sleep(EXIT_GRACE_MS, undefined, { ref: false })]);
      if (exit) {
        seen.exit = { ...exit, stoppedAfterEnd: false, stoppedAtLimit: false, beforeEnd: false };
      } else {
        await stop(strategy);
        seen.exit = {
          code: null,
          signal: 'SIGTERM',
          stoppedAfterEnd: true,
          stoppedAtLimit: false,
          beforeEnd: false,
        };
      }
    } else if ('exit' in first) {
      seen.run = { kind: 'unfinished', why: 'the strategy exited before the backtest ended' };
      seen.exit = { ...first.exit, stoppedAfterEnd: false, stoppedAtLimit: false, beforeEnd: true };
    } else {
      seen.run = { kind: 'unfinished', why: `not over after the time limit (${run.timeoutMs / 1000} s)` };
      const exit = await stop(strategy);
      seen.exit = { ...exit, stoppedAfterEnd: false, stoppedAtLimit: true, beforeEnd: true };
    }
  } finally {
    script.dispose();
    if (strategy.child.exitCode === null && strategy.child.signalCode === null) await stop(strategy);
    await proxy.close();
    await gateway.close();
  }
  seen.outputTail = strategy.tail();
  return seen;
}

/** SIGTERM, then SIGKILL if it is still there 2 s later. */
async function stop(strategy: ReturnType<typeof startStrategy>) {
  strategy.child.kill('SIGTERM');
  const exit = await Promise.race([strategy.exited, sleep(2_000, undefined, { ref: false })]);
  if (exit) return exit;
  strategy.child.kill('SIGKILL');
  return strategy.exited;
}
