import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { Metrics } from '@hindsight/engine';
import { fileStoreWithSample, readScenarioFile, writeRunResults } from '@hindsight/gateway';
import { runInProcess } from '@hindsight/sdk/in-process';
import { loadStrategy } from './load-strategy.ts';

/**
 * One worker thread of a sweep (`sweep.ts`): loads the strategy, the data and the scenario once,
 * then runs each cell it is sent in-process and answers with its metrics (the cell's result files
 * written under the sweep's directory).
 */
export interface SweepJob {
  strategyFile: string;
  scenarioFile: string;
  dataDir: string;
  outDir: string;
}

export interface CellResult {
  index: number;
  metrics?: Metrics;
  error?: string;
}

const job = workerData as SweepJob;
const ready = (async () => {
  const store = await fileStoreWithSample(job.dataDir);
  return {
    store,
    scenario: await readScenarioFile(job.scenarioFile, store),
    strategy: await loadStrategy(job.strategyFile),
  };
})();

parentPort?.on('message', async ({ index, params }: { index: number; params: Record<string, string> }) => {
  try {
    const { store, scenario, strategy } = await ready;
    const end = await runInProcess(strategy, { scenario, store, params, log: () => undefined });
    if (end.outcome.kind !== 'completed' || !end.files) throw new Error(JSON.stringify(end.outcome));
    const cell =
      Object.entries(params)
        .map(([k, v]) => `${k}-${v}`)
        .join('_') || 'default';
    await writeRunResults(join(job.outDir, cell), end.files);
    parentPort?.postMessage({ index, metrics: end.files.metrics } satisfies CellResult);
  } catch (error) {
    parentPort?.postMessage({
      index,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    } satisfies CellResult);
  }
});
