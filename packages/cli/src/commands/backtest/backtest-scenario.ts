import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkScenario, readScenarioFile, type Scenario, ScenarioError } from '@hindsight/gateway';
import type { BarStore } from '@hindsight/marketdata';
import type { Strategy } from '@hindsight/sdk';

/**
 * The scenario of `hindsight backtest`: the file's, its subscriptions the strategy's declared ones
 * when it has none (docs/sdk.md, Subscriptions). The gateway of `--wire` and the sweep's workers
 * read a file, so a merged scenario is written to a temporary one, removed by `cleanup`.
 */
export interface BacktestScenario {
  scenario: Scenario;
  /** The file to hand on: the user's, or the merged one. */
  file: string;
  cleanup(): Promise<void>;
}

export async function readBacktestScenario(
  file: string,
  store: BarStore,
  strategy: Strategy,
): Promise<BacktestScenario> {
  let body: unknown;
  try {
    body = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    // Unreadable or not JSON: readScenarioFile says which, in its words.
    return { scenario: await readScenarioFile(file, store), file, cleanup: async () => {} };
  }
  // Read once: the body as it is, checked.
  const asIs = async () => ({
    scenario: await checkScenario(file, body, store),
    file,
    cleanup: async () => {},
  });
  if (body === null || typeof body !== 'object' || Array.isArray(body) || 'subscriptions' in body) {
    return asIs();
  }
  if (!strategy.subscriptions) {
    return asIs().catch((error: unknown) => {
      if (!(error instanceof ScenarioError)) throw error;
      const message = error.message.slice(`${file}: `.length);
      throw new ScenarioError(
        file,
        `${message}; or the strategy declares them: defineStrategy({ subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m'] }], ... })`,
        error.details,
      );
    });
  }
  const merged = { ...body, subscriptions: strategy.subscriptions };
  const scenario = await checkScenario(file, merged, store);
  const dir = await mkdtemp(join(tmpdir(), 'hindsight-scenario-'));
  const mergedFile = join(dir, 'scenario.json');
  await writeFile(mergedFile, `${JSON.stringify(merged, null, 2)}\n`);
  return { scenario, file: mergedFile, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
