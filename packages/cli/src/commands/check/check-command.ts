import { resolve } from 'node:path';
import { checkScenario, fileStoreWithSample, readScenarioFile, ScenarioError } from '@hindsight/gateway';
import { judge } from './checks.ts';
import { type CheckReport, jsonReport, textReport } from './report.ts';
import { runCheck } from './run-check.ts';
import { StrategyUsageError, strategyCommand } from './strategy-process.ts';

/**
 * `hindsight check <strategy>`: runs a strategy (an SDK module, or any program with `--cmd`) over
 * the wire against a scripted gateway and reports the protocol faults a normal backtest would hide
 * (docs/check.md). Exit 0 without faults, 1 with any, 2 for a mistake in the command.
 */
export interface CheckOptions {
  cmd?: string;
  scenario?: string;
  dataDir?: string;
  timeout?: string;
  json?: boolean;
  verbose?: boolean;
  /** False with `--no-drop`: the socket is never cut, `resume` is not exercised. */
  drop?: boolean;
}

/** A short window of the bundled BTC sample, with order events: a day of 1-minute candles. */
export const DEFAULT_SCENARIO = {
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
  startTime: '2024-01-02T00:00:00Z',
  endTime: '2024-01-03T00:00:00Z',
};

const DEFAULT_TIMEOUT_SECONDS = 300;
/** A day: longer than any timer Node keeps (2^31 ms) would fire at once. */
const MAX_TIMEOUT_SECONDS = 86_400;
/**
 * How long a batch may wait for its event_ack before the check calls it a stall: longer than the
 * scripted 429's wait and the pong wait (events held back meanwhile), so neither counts as one.
 */
const ACK_TIMEOUT_SECONDS = 8;

class UsageError extends Error {}

export async function runCheckCommand(strategyArg: string, options: CheckOptions): Promise<void> {
  let report: CheckReport;
  try {
    const timeout = Number(options.timeout ?? DEFAULT_TIMEOUT_SECONDS);
    if (!(timeout > 0 && timeout <= MAX_TIMEOUT_SECONDS)) {
      throw new UsageError(
        `--timeout ${options.timeout}: expected seconds above 0, at most ${MAX_TIMEOUT_SECONDS}`,
      );
    }
    const cmd = options.cmd === undefined ? undefined : await splitCmd(options.cmd);
    const strategy = strategyCommand(strategyArg, cmd);
    const store = await fileStoreWithSample(resolve(options.dataDir ?? '.hindsight'));
    const scenario = options.scenario
      ? await readScenarioFile(options.scenario, store)
      : await checkScenario('the default scenario', DEFAULT_SCENARIO, store);
    const seen = await runCheck({
      strategy,
      scenario,
      store,
      ackTimeoutSeconds: ACK_TIMEOUT_SECONDS,
      timeoutMs: timeout * 1000,
      echo: options.verbose === true,
      ...(options.drop === false && { timings: { dropAfterEvents: Number.POSITIVE_INFINITY } }),
    });
    const checks = judge(seen);
    report = {
      strategy: strategy.label,
      scenario: {
        startTime: scenario.startTime,
        endTime: scenario.endTime,
        instruments: scenario.subscriptions.map((s) => s.instrument),
      },
      checks,
      faults: checks.filter((c) => c.verdict === 'FAIL').length,
    };
  } catch (error) {
    if (
      error instanceof UsageError ||
      error instanceof StrategyUsageError ||
      error instanceof ScenarioError
    ) {
      const details = error instanceof ScenarioError && error.details ? `\n${error.details}` : '';
      console.error(`hindsight check: ${error.message}${details}`);
      process.exit(2);
    }
    // Not the strategy's fault but the checker's (or the machine's): the stack, exit 1.
    console.error(`hindsight check: the check could not run: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  }
  process.stdout.write(options.json ? jsonReport(report) : textReport(report));
  process.exit(report.faults === 0 ? 0 : 1);
}

async function splitCmd(line: string): Promise<string[]> {
  const { splitCommand } = await import('@hindsight/platform');
  try {
    return splitCommand(line);
  } catch (error) {
    throw new UsageError(`--cmd: ${(error as Error).message}`);
  }
}
