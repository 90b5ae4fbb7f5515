import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import {
  type GatewayOptions,
  type RunningGateway,
  readGatewaySettings,
  startGateway,
} from '../../src/index.ts';
import { ApiClient } from './api-client.ts';
import { type SampleSymbol, sampleData } from './sample-store.ts';

/** A real gateway on a loopback port over the real sample data, with a contract-checking client. */
export interface TestGateway {
  gateway: RunningGateway;
  api: ApiClient;
  url: string;
  resultsDir: string;
  logs: string[];
}

export const BTC_SCENARIO = {
  subscriptions: [
    {
      instrument: 'C:BTCUSD',
      events: ['candle_{1,5}m', 'order_update', 'position_update', 'account_update', 'trade_update'],
    },
  ],
  startTime: '2024-01-02T00:00:00Z',
  endTime: '2024-01-02T06:00:00Z',
  costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '1' } },
};

/** A MARKET order request on the sample's BTC. */
export const marketOrder = (side: 'BUY' | 'SELL', quantity: string, extra: Record<string, unknown> = {}) => ({
  symbol: 'C:BTCUSD',
  side,
  quantity,
  order_type: 'MARKET',
  ...extra,
});

export interface TestGatewayOptions extends Omit<GatewayOptions, 'logDestination'> {
  scenario?: unknown;
  env?: Record<string, string>;
  samples?: SampleSymbol[];
}

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const { dataDir, store } = await sampleData(options.samples);
  const dir = await mkdtemp(join(tmpdir(), 'hindsight-gateway-run-'));
  const scenarioFile = join(dir, 'scenario.json');
  await writeFile(scenarioFile, JSON.stringify(options.scenario ?? BTC_SCENARIO));
  const resultsDir = join(dir, 'results');
  const settings = readGatewaySettings({
    GATEWAY_PROVIDER: 'simulation',
    GATEWAY_PORT: '0',
    HINDSIGHT_SCENARIO: scenarioFile,
    HINDSIGHT_DATA_DIR: dataDir,
    HINDSIGHT_RESULTS_DIR: resultsDir,
    RUST_LOG: 'info',
    ...options.env,
  });
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(chunk.toString());
      callback();
    },
  });
  const { scenario: _s, env: _e, samples: _x, ...gatewayOptions } = options;
  const gateway = await startGateway(settings, { store, logDestination, ...gatewayOptions });
  const key = settings.apiKey;
  const api = new ApiClient(gateway.url, key ? { key } : {});
  await api.loadContract();
  return { gateway, api, url: gateway.url, resultsDir, logs };
}
