import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSettings, startPlatform } from '@hindsight/platform';
import autocannon from 'autocannon';

/** Management API throughput on the embedded store: public catalog, an authenticated list, a validated write. */
const DURATION_SECONDS = 5;
const CONNECTIONS = 16;

async function load(name: string, options: autocannon.Options): Promise<void> {
  const result = await autocannon({ duration: DURATION_SECONDS, connections: CONNECTIONS, ...options });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  }
  console.log(`BENCH platform_${name}_throughput ${Math.round(result.requests.average)} req/s`);
  console.log(`BENCH platform_${name}_p99 ${result.latency.p99} ms`);
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hindsight-bench-'));
  const platform = await startPlatform(readSettings(process.env, { port: '0', dataDir }), {
    logLevel: 'silent',
  });
  try {
    const user = await platform.ctx.users.create('bench@example.com', 'bench-password');
    if (!user) throw new Error('could not create the bench user');
    const { key } = await platform.ctx.apiKeys.create(user.id, 'bench');
    for (let i = 0; i < 50; i++) await platform.ctx.strategies.create(user.id, user.id, { name: `s${i}` });
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };

    await load('catalog', { url: `${platform.url}/v1/instruments` });
    await load('strategies_list', { url: `${platform.url}/v1/strategies?limit=20`, headers });
    await load('configuration_create', {
      url: `${platform.url}/v1/configurations`,
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'bench',
        subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_*m', 'order_update'] }],
        startTime: '2024-01-01T00:00:00Z',
        endTime: '2024-02-01T00:00:00Z',
        env: { FAST: '10', SLOW: '30' },
        costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '2.5' } },
      }),
    });
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
