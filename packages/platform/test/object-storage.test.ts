import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { S3Client } from '@aws-sdk/client-s3';
import { CachedObjectStore, S3ObjectStore } from '@hindsight/marketdata';
import {
  openDatabase,
  readStorageSettings,
  SettingsError,
  type StorageSettings,
  withMarketImportLock,
} from '@hindsight/platform';
import { type S3TestServer, startS3Server } from '../../marketdata/test/s3-server.ts';
import { createVersion, pushTypeScriptExampleWithSkopeo } from './support/scenario-images.ts';
import { postgresServer, storageBackends, tempDir } from './support/storage-backends.ts';
import { startTestPlatform, type TestPlatform } from './support/test-platform.ts';

/**
 * The platform with its bytes in a bucket (HINDSIGHT_STORAGE_URL=s3://...), against a real S3-protocol
 * server (s3rver) on loopback: an image pushed by skopeo, a scenario run to COMPLETE by the in-process
 * worker reading market data through its bounded cache, and result files equal to those of the same run
 * on the data-dir layout. One platform start per layout.
 */
const BUCKET = 'hindsight';
const CACHE_BYTES = 600_000; // one month of the sample's BTCUSD (~365 kB) fits, two do not
const window = { startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-03T00:00:00Z' };
const btc = [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }];
const FILES = ['metadata', 'timeseries', 'trades'] as const;
type ResultFiles = Record<(typeof FILES)[number], Buffer>;

let server: S3TestServer | undefined;
const s3Env = (): NodeJS.ProcessEnv => ({
  HINDSIGHT_STORAGE_URL: `s3://${BUCKET}/site`,
  HINDSIGHT_S3_ENDPOINT: server?.endpoint,
  AWS_ACCESS_KEY_ID: server?.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: server?.credentials.secretAccessKey,
  HINDSIGHT_STORAGE_CACHE_BYTES: String(CACHE_BYTES),
});

/** Every key in the bucket under `prefix`. */
async function bucketKeys(prefix: string): Promise<string[]> {
  const settings = readStorageSettings(s3Env());
  if (settings.kind !== 's3') throw new Error('expected S3 settings');
  const bucket = new S3ObjectStore({ client: new S3Client(settings.client), bucket: BUCKET });
  return bucket.list(prefix);
}

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

interface StarterRun {
  files: ResultFiles;
  key: string;
  strategyId: string;
  versionId: string;
  scenarioId: string;
}

/** Pushes the TypeScript starter with skopeo and runs it over one day; the result files as served. */
async function runStarter(t: TestPlatform): Promise<StarterRun> {
  const owner = await t.account('storage');
  const strategyId = (await t.api.post('/v1/strategies', { key: owner.key, body: { name: 'storage' } })).body
    .data.strategyId as string;
  const version = await pushTypeScriptExampleWithSkopeo(t.api, owner.key, strategyId);
  const created = await t.api.post(`/v1/strategies/${strategyId}/scenarios`, {
    key: owner.key,
    body: { strategyVersionId: version.data.versionId, subscriptions: btc, ...window },
  });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.scenarioId as string;
  for (let i = 0; ; i++) {
    const scenario = (await t.api.get(`/v1/scenarios/${id}`, { key: owner.key })).body.data;
    if (['COMPLETE', 'FAILED', 'CANCELLED'].includes(scenario.state)) {
      assert.equal(scenario.state, 'COMPLETE', JSON.stringify(scenario));
      break;
    }
    if (i > 1500) throw new Error(`scenario ${id} still ${scenario.state}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const files = {} as ResultFiles;
  for (const file of FILES) {
    const response = await fetch(`${t.api.baseUrl}/v1/strategies/${strategyId}/scenarios/${id}/${file}`, {
      headers: { 'x-api-key': owner.key },
    });
    assert.equal(response.status, 200, file);
    files[file] = Buffer.from(await response.arrayBuffer());
  }
  return { files, key: owner.key, strategyId, versionId: version.data.versionId, scenarioId: id };
}

async function withPlatform<T>(storage: StorageSettings, task: (t: TestPlatform) => Promise<T>): Promise<T> {
  const [backend] = storageBackends();
  const t = await startTestPlatform(backend as NonNullable<typeof backend>, {
    settings: { workers: '1' },
    platform: { storage },
  });
  try {
    return await task(t);
  } finally {
    await t.platform.close();
    await t.store.dispose();
  }
}

describe('object storage: the platform on an S3 bucket (s3rver)', () => {
  const serverDir = tempDir('s3rver');
  before(async () => {
    server = await startS3Server(serverDir, [BUCKET]);
  });
  after(async () => {
    await server?.close();
    rmSync(serverDir, { recursive: true, force: true });
  });

  const results: Partial<Record<'dataDir' | 's3', ResultFiles>> = {};

  it('runs the starter to COMPLETE on the data-dir layout (the default)', async () => {
    results.dataDir = await withPlatform({ kind: 'data-dir' }, async (t) => {
      const { files } = await runStarter(t);
      assert.ok(existsSync(join(t.store.dataDir, 'market', 'bars', 'C_BTCUSD', '2024-01.hsb')));
      return files;
    });
  });

  it('keeps market data, registry blobs and result files in the bucket, reading bars through a bounded cache', async () => {
    results.s3 = await withPlatform(readStorageSettings(s3Env()), async (t) => {
      const run = await runStarter(t);
      const { dataDir } = t.store;
      // the sample was seeded into the bucket, the image's blobs went there, and the data dir holds neither
      assert.equal(existsSync(join(dataDir, 'market')), false);
      assert.ok(
        (await bucketKeys('site/market/bars/C_BTCUSD/')).includes('site/market/bars/C_BTCUSD/2024-01.hsb'),
      );
      assert.equal(existsSync(join(dataDir, 'registry', 'blobs')), false);
      const blobs = await bucketKeys('site/registry/blobs/sha256/');
      assert.ok(blobs.length >= 2, `config and layer in the bucket: ${blobs.join(', ')}`);
      assert.deepEqual(readdirSync(join(dataDir, 'registry', 'uploads')), [], 'no upload is left on disk');

      // the worker read its month through the cache; reading every month stays within the bound
      const cache = t.platform.ctx.market.objects as CachedObjectStore;
      assert.ok(cache instanceof CachedObjectStore);
      assert.ok(cache.stats().hits > 0, JSON.stringify(cache.stats()));
      for (const month of await t.platform.ctx.market.months('C:BTCUSD')) {
        assert.ok(await t.platform.ctx.market.readMonth('C:BTCUSD', month));
      }
      const stats = cache.stats();
      assert.ok(stats.evictions > 0, JSON.stringify(stats));
      assert.ok(stats.bytes <= CACHE_BYTES, JSON.stringify(stats));
      assert.ok(bytesUnder(join(dataDir, 'cache', 'market')) <= CACHE_BYTES);

      // the result files are objects of the run's attempt, and go with the scenario
      const resultKeys = await bucketKeys(`site/results/${run.scenarioId}/`);
      assert.equal(resultKeys.length, 3, resultKeys.join(', '));
      for (const key of resultKeys) {
        const [, file] =
          new RegExp(`^site/results/${run.scenarioId}/\\d+/(\\w+)\\.json\\.zst$`).exec(key) ?? [];
        assert.ok(file === 'metadata' || file === 'timeseries' || file === 'trades', key);
      }
      const deleted = await t.api.delete(`/v1/strategies/${run.strategyId}/scenarios/${run.scenarioId}`, {
        key: run.key,
      });
      assert.ok(deleted.status < 300, deleted.text);
      assert.deepEqual(await bucketKeys(`site/results/${run.scenarioId}/`), []);

      // a layer larger than a multipart part goes up in parts and streams back whole
      const large = await createVersion(t.api, run.key, run.strategyId);
      const layer = randomBytes(17 * 1024 * 1024);
      const digest = `sha256:${createHash('sha256').update(layer).digest('hex')}`;
      const registry = `${t.api.baseUrl}/v2/v/${large.data.versionId}`;
      const auth = { authorization: `Bearer ${large.accessToken}` };
      const pushed = await fetch(`${registry}/blobs/uploads/?digest=${digest}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/octet-stream' },
        body: layer,
      });
      assert.equal(pushed.status, 201, await pushed.text());
      assert.ok(
        (await bucketKeys('site/registry/blobs/')).includes(
          `site/registry/blobs/sha256/${digest.slice(7, 9)}/${digest.slice(7)}`,
        ),
      );
      const pulled = await fetch(`${registry}/blobs/${digest}`, { headers: auth });
      assert.equal(pulled.status, 200);
      assert.equal(pulled.headers.get('content-length'), String(layer.length));
      const hash = createHash('sha256');
      for await (const chunk of pulled.body as unknown as AsyncIterable<Uint8Array>) hash.update(chunk);
      assert.equal(`sha256:${hash.digest('hex')}`, digest);
      assert.deepEqual(readdirSync(join(dataDir, 'registry', 'uploads')), []);

      // evicting the images removes their blobs from the bucket
      for (const versionId of [run.versionId, large.data.versionId]) {
        const evicted = await t.api.delete(`/v1/strategies/${run.strategyId}/versions/${versionId}/image`, {
          key: run.key,
        });
        assert.ok(evicted.status < 300, evicted.text);
      }
      assert.deepEqual(await bucketKeys('site/registry/blobs/'), []);
      return run.files;
    });
  });

  it('serves result files equal to those of the data-dir layout', () => {
    assert.ok(results.dataDir && results.s3, 'both runs completed');
    for (const file of FILES) assert.deepEqual(results.s3[file], results.dataDir[file], file);
  });

  it('imports into one bucket take turns across processes (a PostgreSQL advisory lock)', async () => {
    const store = await postgresServer().create();
    const url = store.databaseUrl as string;
    const [first, second] = [
      await openDatabase({ kind: 'postgres', url }),
      await openDatabase({ kind: 'postgres', url }),
    ];
    try {
      const events: string[] = [];
      const importing = (name: string) => async () => {
        events.push(`${name} starts`);
        await new Promise((resolve) => setTimeout(resolve, 300));
        events.push(`${name} ends`);
        return name;
      };
      const done = await Promise.all([
        withMarketImportLock(first.db, importing('a')),
        withMarketImportLock(second.db, importing('b')),
      ]);
      assert.deepEqual(done, ['a', 'b']);
      const [one, two] = [events[0]?.split(' ')[0], events[2]?.split(' ')[0]];
      assert.deepEqual(events, [`${one} starts`, `${one} ends`, `${two} starts`, `${two} ends`]);
    } finally {
      await first.close();
      await second.close();
      await store.dispose();
    }
  });

  it('refuses bad storage settings with one line naming the variable', () => {
    const cases: [NodeJS.ProcessEnv, string][] = [
      [{ HINDSIGHT_STORAGE_URL: 's3://Not_A_Bucket/x' }, 'HINDSIGHT_STORAGE_URL'],
      [{ HINDSIGHT_STORAGE_URL: '/var/lib/hindsight' }, 'HINDSIGHT_STORAGE_URL'],
      [{ HINDSIGHT_STORAGE_URL: 'gs://bucket/x' }, 'HINDSIGHT_STORAGE_URL'],
      [{ HINDSIGHT_STORAGE_URL: 's3://bucket', HINDSIGHT_S3_ENDPOINT: 'ftp://x' }, 'HINDSIGHT_S3_ENDPOINT'],
      [
        { HINDSIGHT_STORAGE_URL: 's3://bucket', HINDSIGHT_STORAGE_CACHE_BYTES: 'lots' },
        'HINDSIGHT_STORAGE_CACHE_BYTES',
      ],
      [{ HINDSIGHT_STORAGE_URL: 's3://bucket', AWS_ACCESS_KEY_ID: 'only-one' }, 'AWS_ACCESS_KEY_ID'],
    ];
    for (const [env, variable] of cases) {
      assert.throws(
        () => readStorageSettings(env),
        (error: unknown) =>
          error instanceof SettingsError &&
          error.variable === variable &&
          error.message.startsWith(`${variable}: `) &&
          !error.message.includes('\n'),
        JSON.stringify(env),
      );
    }
    assert.deepEqual(readStorageSettings({}), { kind: 'data-dir' });
    const parsed = readStorageSettings({
      HINDSIGHT_STORAGE_URL: 's3://bucket/a/b',
      HINDSIGHT_STORAGE_CACHE_BYTES: '512MiB',
    });
    assert.equal(parsed.kind === 's3' && parsed.cacheBytes, 512 * 1024 * 1024);
    assert.equal(parsed.kind === 's3' && parsed.prefix, 'a/b');
  });
});
