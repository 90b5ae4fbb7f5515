import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readGatewaySettings, type Scenario, startGateway } from '@hindsight/gateway';
import type { BarStore } from '@hindsight/marketdata';
import { envName, resolveParams, type Strategy } from '@hindsight/sdk';

/**
 * `hindsight backtest --wire`: the backtest through a gateway on a loopback port, the strategy in a
 * child process speaking the protocol to it (`hindsight-strategy`, what an SDK strategy's image
 * runs), as under the platform. The result files equal the in-process run's byte for byte.
 */
export interface WireRun {
  strategyFile: string;
  strategy: Strategy;
  /** The scenario's file, its subscriptions merged in when they are the strategy's. */
  scenarioFile: string;
  dataDir: string;
  store: BarStore;
  params: Record<string, string>;
  scenario: Scenario;
}

export async function runOverWire(run: WireRun) {
  const { strategy } = run;
  // Unknown --param names are refused here: over the wire, parameters travel as variables.
  const params = resolveParams(strategy.params, run.scenario.env ?? {}, run.params);
  const settings = readGatewaySettings({
    GATEWAY_PROVIDER: 'simulation',
    GATEWAY_HOST: '127.0.0.1',
    GATEWAY_PORT: '0',
    RUST_LOG: 'warn',
    HINDSIGHT_SCENARIO: run.scenarioFile,
    HINDSIGHT_DATA_DIR: run.dataDir,
  });
  const gateway = await startGateway(settings, { store: run.store, writeResults: false });
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...run.scenario.env,
    PROXY_WS_URL: `${gateway.url.replace(/^http/, 'ws')}/v1/ws`,
    PROXY_REST_URL: `${gateway.url}/v1`,
    TRADING_GATEWAY_URL: gateway.url,
    PLATFORM_SUBSCRIPTIONS: JSON.stringify(run.scenario.subscriptions),
  };
  for (const [name, value] of Object.entries(params)) env[envName(name)] = String(value);
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      '--import',
      import.meta.resolve('tsx'),
      fileURLToPath(import.meta.resolve('@hindsight/sdk/wire-main')),
      run.strategyFile,
    ],
    { env, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const end = await Promise.race([gateway.done, exited.then((code) => ({ exited: code }))]);
  if ('exited' in end) {
    // The strategy stopped before the backtest ended: its own error is on its stderr, above.
    await gateway.close();
    throw new StrategyExited(`the strategy exited (${end.exited ?? 'no code'}) before the backtest ended`);
  }
  await exited;
  await gateway.close();
  if (end.outcome.kind !== 'completed' || !end.files) {
    throw new StrategyExited(
      `the run failed: ${end.outcome.kind === 'failed' ? end.outcome.message : 'it did not complete'}`,
    );
  }
  return { files: end.files, params: { ...params } };
}

/** The strategy process or the run ended before the backtest completed (exit code 1). */
export class StrategyExited extends Error {}
