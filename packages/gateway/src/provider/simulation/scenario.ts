import { readFile } from 'node:fs/promises';
import {
  type CatalogLookup,
  type Costs,
  catalogIssues,
  configurationFieldsSchema,
  formatIssues,
  type InstrumentDefinition,
  type InstrumentView,
  parseIsoTimestamp,
  type Subscription,
} from '@hindsight/core';
import type { BarStore } from '@hindsight/marketdata';
import { instrumentDefinition } from './instruments.ts';

/**
 * The scenario a simulation gateway replays: an inline scenario configuration (management-api.md,
 * the management API's schema without `strategyVersionId`) read from `HINDSIGHT_SCENARIO`, checked
 * with the same validator and the same catalog rules (decision 21) against the data in the store.
 */
export interface Scenario {
  subscriptions: Subscription[];
  startTime: string;
  endTime: string;
  /** Epoch ms of startTime and endTime. */
  window: { start: number; end: number };
  positionMode: 'netting' | 'hedging';
  initialCapital: number;
  costs: Costs | undefined;
  env: Record<string, string> | undefined;
  instruments: InstrumentDefinition[];
}

export class ScenarioError extends Error {
  constructor(
    readonly file: string,
    message: string,
    readonly details?: string,
  ) {
    super(`${file}: ${message}`);
    this.name = 'ScenarioError';
  }
}

export async function readScenarioFile(
  file: string,
  store: BarStore,
  definitions: (symbol: string) => InstrumentDefinition | undefined = instrumentDefinition,
): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ScenarioError(file, `cannot read the scenario file (${(error as Error).message})`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(file, `is not valid JSON (${(error as Error).message})`);
  }
  return checkScenario(file, body, store, definitions);
}

/** Validates an inline configuration and checks it against the store's data. */
export async function checkScenario(
  file: string,
  body: unknown,
  store: BarStore,
  definitions: (symbol: string) => InstrumentDefinition | undefined = instrumentDefinition,
): Promise<Scenario> {
  const parsed = configurationFieldsSchema.safeParse(body);
  if (!parsed.success) {
    const { message, details } = formatIssues(parsed.error);
    throw new ScenarioError(file, message, details);
  }
  const config = parsed.data;
  const views = new Map<string, InstrumentView>();
  const instruments: InstrumentDefinition[] = [];
  for (const { instrument } of config.subscriptions) {
    const definition = definitions(instrument);
    if (!definition) continue;
    const coverage = await store.dataCoverage(instrument);
    views.set(instrument, {
      symbol: instrument,
      status: coverage ? 'available' : 'coming_soon',
      ...(coverage && { dataStartDate: coverage.firstDay, dataEndDate: coverage.lastDay }),
    });
    instruments.push(definition);
  }
  const lookup: CatalogLookup = {
    bySymbol: (symbol) => views.get(symbol),
    byDataSymbol: () => undefined,
  };
  const issues = catalogIssues(config, lookup).map((issue) => ({
    ...issue,
    message: issue.message.replace(
      /is coming soon and has no data yet; .*$/,
      'has no data in the market store ($HINDSIGHT_DATA_DIR/market); the bundled sample covers C:BTCUSD, F:EURUSD, F:USDJPY and S:SPY, and `npx hindsight data import` adds files',
    ),
  }));
  if (issues.length > 0) {
    const { message, details } = formatIssues(issues);
    throw new ScenarioError(file, message, details);
  }
  return {
    subscriptions: config.subscriptions,
    startTime: config.startTime,
    endTime: config.endTime,
    window: {
      start: parseIsoTimestamp(config.startTime) as number,
      end: parseIsoTimestamp(config.endTime) as number,
    },
    positionMode: config.positionMode,
    initialCapital: config.initialCapital,
    costs: config.costs,
    env: config.env,
    instruments,
  };
}
