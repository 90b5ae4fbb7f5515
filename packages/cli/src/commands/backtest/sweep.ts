import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Metrics } from '@hindsight/engine';
import { defaultResultsDir, type Scenario } from '@hindsight/gateway';
import { resolveParams, type Strategy, subscriptionWarnings } from '@hindsight/sdk';
import { type BacktestOptions, parseAssignments, UsageError } from './backtest-command.ts';
import { formatTable, METRIC_COLUMNS, metricText } from './metrics-table.ts';
import type { CellResult, SweepJob } from './sweep-worker.ts';

/**
 * `hindsight backtest --grid fast=5,10,20 --grid slow=30,50`: every combination of the grid's values
 * (over `--param`s), run in-process on worker threads, one per core, each cell's result files under
 * `<out>/<cell>/`; then one table of the cells' metrics sorted by `--sort` (best first).
 */
export interface SweepRun {
  strategyFile: string;
  strategy: Strategy;
  scenario: Scenario;
  /** The scenario's file, its subscriptions merged in when they are the strategy's. */
  scenarioFile: string;
  dataDir: string;
  params: Record<string, string>;
  options: BacktestOptions;
}

/** Metrics where smaller is better; every other one sorts largest first. */
const SMALLER_IS_BETTER = new Set<keyof Metrics>([
  'maxDrawdownPct',
  'maxDrawdownDurationDays',
  'totalCommission',
]);

export function gridCells(
  grid: readonly string[],
  params: Readonly<Record<string, string>>,
): Record<string, string>[] {
  const axes = Object.entries(parseAssignments(grid, '--grid')).map(([name, values]) => {
    const list = values
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    if (list.length === 0) throw new UsageError(`--grid ${name}: give values, e.g. --grid ${name}=5,10,20`);
    if (name in params) throw new UsageError(`${name} is both a --param and a --grid axis`);
    return [name, list] as const;
  });
  let cells: Record<string, string>[] = [{ ...params }];
  for (const [name, values] of axes)
    cells = cells.flatMap((cell) => values.map((value) => ({ ...cell, [name]: value })));
  return cells;
}

export async function runSweep(run: SweepRun): Promise<void> {
  const cells = gridCells(run.options.grid ?? [], run.params);
  const sortKey = (run.options.sort ?? 'sharpeRatio') as keyof Metrics;
  if (!METRIC_COLUMNS.some((c) => c.key === sortKey) && sortKey !== 'maxDrawdownDurationDays') {
    throw new UsageError(`--sort ${sortKey}: sort by one of ${METRIC_COLUMNS.map((c) => c.key).join(', ')}`);
  }
  // Every cell's parameters are checked here first: a misspelled name is one line, before any thread starts.
  const { strategy, scenario } = run;
  for (const cell of cells) resolveParams(strategy.params, {}, cell);
  // The cells' logs are silent: the subscription warnings are said once, here.
  const handlers = strategy.create(resolveParams(strategy.params, scenario.env ?? {}, cells[0]));
  for (const line of subscriptionWarnings(strategy.subscriptions, handlers, scenario.subscriptions)) {
    console.error(`warning: ${line}`);
  }
  const outDir = resolve(run.options.out ?? defaultResultsDir());
  const threads = Math.max(1, Math.min(cells.length, Number(run.options.workers ?? availableParallelism())));
  const started = performance.now();
  const results: CellResult[] = new Array(cells.length);
  let next = 0;
  let done = 0;
  const job: SweepJob = {
    strategyFile: resolve(run.strategyFile),
    scenarioFile: run.scenarioFile,
    dataDir: run.dataDir,
    outDir,
  };
  // Run from the TypeScript sources (the tests), the worker loads them through tsx's API, as a
  // worker thread does not take the loader hooks of this one.
  const startWorker = () =>
    import.meta.url.endsWith('.ts')
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ tsImport }) => tsImport(${JSON.stringify(new URL('./sweep-worker.ts', import.meta.url).href)}, 'file:///'))`,
          { eval: true, workerData: job },
        )
      : new Worker(new URL('./sweep-worker.js', import.meta.url), { workerData: job });
  await Promise.all(
    Array.from({ length: threads }, async () => {
      const worker = startWorker();
      const ask = (index: number) =>
        new Promise<CellResult>((resolveCell, reject) => {
          worker.once('message', resolveCell);
          worker.once('error', reject);
          worker.postMessage({ index, params: cells[index] });
        });
      try {
        while (next < cells.length) {
          const index = next++;
          const result = await ask(index);
          if (result.error) throw new Error(`cell ${formatCell(cells[index] ?? {})}: ${result.error}`);
          results[index] = result;
          done++;
          process.stderr.write(`\r  ${done}/${cells.length} cells`);
        }
      } finally {
        await worker.terminate();
      }
    }),
  );
  process.stderr.write('\n');
  const seconds = (performance.now() - started) / 1000;
  const order = results
    .map((result, index) => ({ result, cell: cells[index] ?? {} }))
    .sort((a, b) => compare(a.result.metrics, b.result.metrics, sortKey));
  const names = Object.keys(cells[0] ?? {});
  const columns = METRIC_COLUMNS.filter(
    (c) =>
      ['netPnl', 'totalReturn', 'maxDrawdownPct', 'sharpeRatio', 'totalTrades', 'winRatePct'].includes(
        c.key,
      ) || c.key === sortKey,
  );
  console.log(
    formatTable(
      [...names, ...columns.map((c) => (c.unit ? `${c.label} (${c.unit})` : c.label))],
      order.map(({ result, cell }) => [
        ...names.map((n) => cell[n] ?? ''),
        ...columns.map((c) => metricText(result.metrics as Metrics, c.key)),
      ]),
    ),
  );
  console.log(
    `\n${cells.length} cells on ${threads} threads in ${seconds.toFixed(1)} s; sorted by ${sortKey}; results: ${outDir}`,
  );
}

function compare(a: Metrics | undefined, b: Metrics | undefined, key: keyof Metrics): number {
  const value = (m: Metrics | undefined) => {
    const v = m?.[key];
    return typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
  };
  const x = value(a);
  const y = value(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : -1;
  return SMALLER_IS_BETTER.has(key) ? x - y : y - x;
}

export const formatCell = (cell: Record<string, string>) =>
  Object.entries(cell)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
