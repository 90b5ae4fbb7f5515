import { basename, join, resolve } from 'node:path';
import type { Metrics, ResultFiles } from '@hindsight/engine';
import {
  defaultResultsDir,
  fileStoreWithSample,
  type Scenario,
  ScenarioError,
  writeRunResults,
} from '@hindsight/gateway';
import type { BarStore } from '@hindsight/marketdata';
import { type Strategy, StrategyDefinitionError } from '@hindsight/sdk';
import { runInProcess } from '@hindsight/sdk/in-process';
import { writeReport } from '../../report/index.ts';
import { type BacktestScenario, readBacktestScenario } from './backtest-scenario.ts';
import { loadStrategy } from './load-strategy.ts';
import { metricsTable } from './metrics-table.ts';
import { priceCandles } from './price-candles.ts';
import { backtestProgress } from './progress.ts';
import { runSweep } from './sweep.ts';
import { runOverWire, StrategyExited } from './wire-run.ts';

/**
 * `hindsight backtest <strategy> --scenario <file>`: one backtest of an SDK strategy, in this process
 * by default (`--wire`: through a gateway, the strategy in a child process), with a progress bar,
 * the metrics at the end, the result files and a self-contained HTML report; `--grid` runs a
 * parameter sweep on every core instead (`sweep.ts`). docs/sdk.md, Running.
 */
export interface BacktestOptions {
  scenario: string;
  param?: string[];
  grid?: string[];
  sort?: string;
  wire?: boolean;
  out?: string;
  report?: boolean;
  dataDir?: string;
  workers?: string;
}

interface RunFiles {
  files: ResultFiles & { metrics: Metrics };
}

export async function runBacktest(strategyFile: string, options: BacktestOptions): Promise<void> {
  let read: BacktestScenario | undefined;
  try {
    const dataDir = resolve(options.dataDir ?? '.hindsight');
    const store = await fileStoreWithSample(dataDir);
    const strategy = await loadStrategy(strategyFile);
    // A scenario without subscriptions takes the strategy's (a temporary file, for --wire and --grid).
    read = await readBacktestScenario(options.scenario, store, strategy);
    const { scenario, file: scenarioFile } = read;
    const params = parseAssignments(options.param ?? [], '--param');
    if (options.grid && options.grid.length > 0) {
      await runSweep({ strategyFile, strategy, scenario, scenarioFile, dataDir, params, options });
      return;
    }
    const outDir = resolve(options.out ?? defaultResultsDir());
    const end = options.wire
      ? await runOverWire({ strategyFile, strategy, scenarioFile, dataDir, store, params, scenario })
      : await runHere(strategy, scenario, store, params);
    await writeRunResults(outDir, end.files);
    console.log(`\n${basename(strategyFile)}: ${scenario.startTime} -> ${scenario.endTime}`);
    console.log(metricsTable(end.files.metrics));
    console.log(`\nresults: ${outDir}`);
    if (options.report !== false) {
      const reportFile = join(outDir, 'report.html');
      await writeReport(reportFile, {
        title: `${basename(strategyFile)} ${scenario.startTime.slice(0, 10)} - ${scenario.endTime.slice(0, 10)}`,
        files: end.files,
        candles: await priceCandles(scenario, store),
        params: end.params,
      });
      console.log(`report:  ${reportFile}`);
    }
  } catch (error) {
    await read?.cleanup(); // exitWith exits: the finally below does not run
    exitWith(error);
  } finally {
    await read?.cleanup();
  }
}

async function runHere(
  strategy: Strategy,
  scenario: Scenario,
  store: BarStore,
  params: Record<string, string>,
): Promise<RunFiles & { params: Record<string, string | number | boolean> }> {
  const progress = backtestProgress(scenario.window);
  let end: Awaited<ReturnType<typeof runInProcess>>;
  try {
    end = await runInProcess(strategy, { scenario, store, params, onProgress: progress.update });
  } finally {
    progress.stop();
  }
  if (end.outcome.kind !== 'completed' || !end.files) {
    throw new BacktestFailed(
      end.outcome.kind === 'failed' ? end.outcome.message : 'the run did not complete',
    );
  }
  return { files: end.files, params: { ...end.params } };
}

export class BacktestFailed extends Error {}

/** `name=value` pairs (`--param fast=5`); a malformed one is a usage error. */
export function parseAssignments(items: readonly string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`${flag} ${item}: expected name=value, e.g. ${flag} fast=5`);
    out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return out;
}

export class UsageError extends Error {}

/** One line for what the user can fix (exit 2); the strategy's own error with its stack (exit 1). */
export function exitWith(error: unknown): never {
  if (
    error instanceof UsageError ||
    error instanceof ScenarioError ||
    error instanceof StrategyDefinitionError
  ) {
    const details = error instanceof ScenarioError && error.details ? `\n${error.details}` : '';
    console.error(`hindsight backtest: ${error.message}${details}`);
    process.exit(2);
  }
  if (error instanceof StrategyExited) {
    console.error(`hindsight backtest: ${error.message}`);
    process.exit(1);
  }
  if (error instanceof BacktestFailed) {
    console.error(`hindsight backtest: the run failed: ${error.message}`);
    process.exit(1);
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`hindsight backtest: the strategy failed: ${stack}`);
  process.exit(1);
}
