import {
  GATEWAY_VERSION,
  headline,
  type RunningGateway,
  readGatewaySettings,
  ScenarioError,
  SettingsError,
  startGateway,
} from '@hindsight/gateway';
import { onStopSignal } from '../stop-signals.ts';

/**
 * `hindsight gateway`: the trading gateway, configured by the environment only
 * (GATEWAY_PROVIDER, GATEWAY_MODE, GATEWAY_HOST, GATEWAY_PORT, GATEWAY_API_KEY, ENABLE_SWAGGER,
 * RUST_LOG; with the simulation provider also HINDSIGHT_SCENARIO, HINDSIGHT_DATA_DIR,
 * HINDSIGHT_RESULTS_DIR). A backtest ends by itself: results written, headline metrics printed,
 * exit 0 (3 when the strategy failed the run). SIGTERM, SIGINT and SIGHUP drain and exit 0
 * (stop-signals.ts).
 */
export const STRATEGY_FAILURE_EXIT_CODE = 3;

function fail(error: unknown): never {
  if (error instanceof SettingsError || error instanceof ScenarioError) {
    console.error(`hindsight gateway: ${error.message}`);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
}

export async function runGateway(): Promise<void> {
  let gateway: RunningGateway;
  /** Set by whichever comes first, a stop signal or the run's own end; the other then leaves it be. */
  let ending: 'signal' | 'run' | undefined;
  try {
    const settings = readGatewaySettings(process.env);
    gateway = await startGateway(settings);
    // Before the address is printed: whoever reads it may signal at once.
    onStopSignal(async () => {
      // The run's end is being reported already: that path exits with the run's code.
      if (ending === 'run') return new Promise<never>(() => {});
      ending = 'signal';
      await gateway.shutdown();
    });
    const ws = `${gateway.url.replace(/^http/, 'ws')}/v1/ws`;
    console.log(
      [
        `Hindsight trading gateway ${GATEWAY_VERSION} (provider ${gateway.provider.name}, mode ${gateway.provider.mode}) at ${gateway.url}`,
        `  REST:      ${gateway.url}/v1   (OpenAPI: ${gateway.url}/v1/openapi.json)`,
        `  Events:    ${ws}`,
        gateway.provider.mode === 'simulation'
          ? '  The backtest starts when the strategy connects to the event stream.'
          : '',
      ]
        .filter(Boolean)
        .join('\n'),
    );
  } catch (error) {
    fail(error);
  }

  const end = await gateway.done;
  if (ending === 'signal') return;
  ending = 'run';
  if (end.outcome.kind === 'completed') {
    const lines = ['Backtest complete.'];
    if (end.files) lines.push(...headline(end.files.metrics).map((line) => `  ${line}`));
    if (end.resultsDir) lines.push(`  Results:   ${end.resultsDir}`);
    console.log(lines.join('\n'));
    await gateway.close();
    process.exit(0);
  }
  console.error(`hindsight gateway: the run failed (${end.outcome.errorType}): ${end.outcome.message}`);
  await gateway.close();
  process.exit(end.outcome.errorType === 'strategy' ? STRATEGY_FAILURE_EXIT_CODE : 1);
}
