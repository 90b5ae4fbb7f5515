import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  issuePullToken,
  issueVersionAccessToken,
  RegistryPushClient,
  type RunningPlatform,
  readSettings,
  startPlatform,
} from '@hindsight/platform';
import autocannon from 'autocannon';
import { run as runScenarios } from './scenarios.ts';

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

const LAYER_BYTES = 128 * 1024 * 1024;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * The built-in registry: a 128 MiB incompressible layer pushed in 16 MiB chunks (the CLI's client:
 * POST, PATCH with Content-Range, PUT with the digest, which the server verifies), then pulled back
 * whole. Median of 3, each into a fresh version.
 */
async function registryThroughput(platform: RunningPlatform, userId: string, scratch: string): Promise<void> {
  const strategy = await platform.ctx.strategies.create(userId, userId, { name: 'registry bench' });
  const push: number[] = [];
  const pull: number[] = [];
  for (let i = 0; i < 3; i++) {
    const layer = join(scratch, `layer-${i}`);
    const bytes = randomBytes(LAYER_BYTES);
    writeFileSync(layer, bytes);
    const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    const version = await platform.ctx.versions.create(userId, strategy.strategyId, {});
    const { token } = await issuePullToken(platform.ctx.signingSecret, version.versionId);
    const pushToken = await issueVersionAccessToken(platform.ctx.signingSecret, version.versionId);
    const client = new RegistryPushClient({
      baseUrl: platform.url,
      repository: `v/${version.versionId}`,
      accessToken: pushToken.token,
    });
    let started = performance.now();
    await client.pushBlob(digest, LAYER_BYTES, (start, end) => createReadStream(layer, { start, end }));
    push.push(LAYER_BYTES / 1e6 / ((performance.now() - started) / 1000));
    started = performance.now();
    const response = await fetch(`${platform.url}/v2/v/${version.versionId}/blobs/${digest}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    let received = 0;
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) received += chunk.length;
    if (received !== LAYER_BYTES) throw new Error(`pulled ${received} bytes of ${LAYER_BYTES}`);
    pull.push(LAYER_BYTES / 1e6 / ((performance.now() - started) / 1000));
    rmSync(layer);
  }
  console.log(`BENCH platform_registry_push_throughput ${median(push).toFixed(0)} MB/s`);
  console.log(`BENCH platform_registry_pull_throughput ${median(pull).toFixed(0)} MB/s`);
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
    await registryThroughput(platform, user.id, dataDir);
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  await runScenarios();
}
