import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type BuiltImage, buildImage } from '@hindsight/platform';
import { ApiClient } from '../support/api-client.ts';
import { runWithChaos } from '../support/cluster/chaos.ts';
import { type Cluster, startCluster } from '../support/cluster/cluster.ts';
import { completedRuns } from '../support/cluster/run-records.ts';
import { pushToVersion } from '../support/images.ts';
import { createVersion, PYTHON_EXAMPLE } from '../support/scenario-images.ts';
import { type StorageBackend, storageBackends, tempDir } from '../support/storage-backends.ts';
import { startTestPlatform } from '../support/test-platform.ts';

/**
 * The platform on several hosts (Linux network namespaces on one private LAN; docs/developing.md):
 * an API host, two worker hosts with two `hindsight worker` processes each and their own data dirs,
 * the object store on a host of its own, PostgreSQL on the machine's side. 200 scenarios (10
 * configurations of the Python starter, 20 of each) run while worker processes are SIGKILLed at
 * random and started again, the API process is killed and started again, and PostgreSQL restarts.
 * Every scenario must end COMPLETE, no run of one may reach its end twice, and every result file must
 * be byte for byte that of the same configuration run on a single host (an embedded store, an
 * in-process worker, no network). Run by `npm run test:cluster` (root, iproute2, PostgreSQL server
 * binaries, bubblewrap).
 */
const STORAGE: 'data-dir' | 's3' = 'data-dir';
const REPEATS = 20;
const FILES = ['metadata', 'timeseries', 'trades'] as const;
const btc = [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }];
/** Two three-hour windows x five order sizes of the SMA crossover: ten distinct configurations. */
const CONFIGURATIONS = [
  { startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-02T03:00:00Z' },
  { startTime: '2024-01-03T12:00:00Z', endTime: '2024-01-03T15:00:00Z' },
].flatMap((window) =>
  ['0.01', '0.02', '0.05', '0.1', '0.25'].map((quantity) => ({
    subscriptions: btc,
    ...window,
    env: { ORDER_QUANTITY: quantity },
  })),
);
const configurationKey = (s: { startTime: string; env?: Record<string, string> }) =>
  `${s.startTime} ${s.env?.ORDER_QUANTITY}`;

interface Outcome {
  manifest: unknown;
  files: Record<(typeof FILES)[number], Buffer>;
}

/** A signed-in API key on a platform, a strategy and a version holding `image`. */
async function prepare(api: ApiClient, login: { email: string; password: string }, image: BuiltImage) {
  const { email, password } = login;
  const session = (await api.post('/v1/auth/login', { body: { email, password } })).body.data.token;
  const key = (await api.post('/v1/api-keys', { session, body: { name: 'cluster' } })).body.data.key;
  const strategyId = (await api.post('/v1/strategies', { key, body: { name: 'cluster' } })).body.data
    .strategyId;
  const version = await createVersion(api, key, strategyId);
  await pushToVersion(api.baseUrl, version, image);
  return { key, strategyId, versionId: version.data.versionId };
}

/** Creates `configurations` in batches of at most 100; answers each new scenario's id and configuration. */
async function createScenarios(
  api: ApiClient,
  target: { key: string; strategyId: string; versionId: string },
  configurations: typeof CONFIGURATIONS,
) {
  const created: { id: string; configuration: string }[] = [];
  for (let i = 0; i < configurations.length; i += 100) {
    const response = await api.post(`/v1/strategies/${target.strategyId}/scenarios/batch`, {
      key: target.key,
      body: { strategyVersionId: target.versionId, configurations: configurations.slice(i, i + 100) },
    });
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.dropped, 0);
    for (const scenario of response.body.data) {
      created.push({ id: scenario.scenarioId, configuration: configurationKey(scenario) });
    }
  }
  return created;
}

async function outcome(api: ApiClient, key: string, strategyId: string, id: string): Promise<Outcome> {
  const scenario = (await api.get(`/v1/scenarios/${id}`, { key })).body.data;
  const read = async (file: string) => {
    const response = await fetch(`${api.baseUrl}/v1/strategies/${strategyId}/scenarios/${id}/${file}`, {
      headers: { 'x-api-key': key },
    });
    assert.equal(response.status, 200, `${id} ${file}`);
    return Buffer.from(await response.arrayBuffer());
  };
  return {
    manifest: scenario.manifest,
    files: {
      metadata: await read('metadata'),
      timeseries: await read('timeseries'),
      trades: await read('trades'),
    },
  };
}

describe('the platform on several hosts, through killed workers and restarts', () => {
  let image: BuiltImage;
  const references = new Map<string, Outcome>();
  let cluster: Cluster | undefined;

  before(async () => {
    image = await buildImage(
      { dir: PYTHON_EXAMPLE, cmd: ['python3', 'main.py'] },
      join(tempDir('layer'), 'layer.tar.gz'),
    );
  });

  let passed = false;
  after(async () => {
    await cluster?.dispose({ keepLogs: !passed });
  });

  it('runs each configuration on a single host for reference', async () => {
    // The first backend is always the embedded store (PGlite).
    const single = await startTestPlatform(storageBackends()[0] as StorageBackend, {
      settings: { workers: '1', scenarioQuota: '100' },
    });
    try {
      const account = await single.account('reference');
      const target = await prepare(single.api, account, image);
      for (const { id, configuration } of await createScenarios(single.api, target, CONFIGURATIONS)) {
        let state = '';
        while (!['COMPLETE', 'FAILED', 'CANCELLED'].includes(state)) {
          await sleep(200);
          state = (await single.api.get(`/v1/scenarios/${id}`, { key: target.key })).body.data.state;
        }
        assert.equal(state, 'COMPLETE', `reference ${configuration}`);
        references.set(configuration, await outcome(single.api, target.key, target.strategyId, id));
      }
    } finally {
      await single.platform.close();
      await single.store.dispose();
    }
    assert.equal(references.size, CONFIGURATIONS.length);
  });

  it('ends 200 scenarios COMPLETE, each run once to its end, with the single-host files', async (t) => {
    cluster = await startCluster({
      workerHosts: ['w1', 'w2'],
      storage: STORAGE,
      // A short lease so a killed worker's runs go back to the queue soon; attempts enough that random
      // kills cannot use them up.
      workerEnv: { HINDSIGHT_WORKER_LEASE_SECONDS: '4', HINDSIGHT_MAX_ATTEMPTS: '10' },
      apiEnv: {
        HINDSIGHT_SCENARIO_QUOTA: '1000',
        HINDSIGHT_WORKER_LEASE_SECONDS: '4',
        HINDSIGHT_MAX_ATTEMPTS: '10',
      },
    });
    const api = new ApiClient(cluster.apiUrl);
    await api.loadContract();
    const target = await prepare(api, cluster.admin, image);
    const scenarios = await createScenarios(
      api,
      target,
      Array.from({ length: REPEATS }, () => CONFIGURATIONS).flat(),
    );
    assert.equal(scenarios.length, 200);
    for (const host of ['w1', 'w1', 'w2', 'w2']) await cluster.startWorker(host);

    const chaos = await runWithChaos(cluster, scenarios.length, { killEvery: 12, timeoutMs: 30 * 60_000 });
    t.diagnostic(`faults: ${JSON.stringify(chaos)}`);
    // Stopped as asked, so every survivor's log is complete.
    await Promise.all(cluster.workers.map((w) => w.process.stop('SIGTERM')));

    const failed: string[] = [];
    const retried: string[] = [];
    for (const { id } of scenarios) {
      const scenario = (await api.get(`/v1/scenarios/${id}`, { key: target.key })).body.data;
      if (scenario.state !== 'COMPLETE') {
        failed.push(`${id} ${scenario.state} ${scenario.errorType ?? ''} ${scenario.errorMessage ?? ''}`);
      }
      if ((scenario.attempts ?? []).length > 0) retried.push(id);
    }
    assert.deepEqual(failed, [], `every scenario COMPLETE (${JSON.stringify(chaos)})`);
    // The faults did reach runs: some scenarios needed another attempt.
    assert.ok(
      chaos.workerKills >= 10 && retried.length > 0,
      `${JSON.stringify(chaos)}, retried ${retried.length}`,
    );
    t.diagnostic(`scenarios that needed more than one attempt: ${retried.length}`);

    // Each run that reaches the end of its replay logs it once; a kill can swallow at most one such line.
    const runs = completedRuns(cluster.logDir);
    const twice = scenarios.filter(({ id }) => (runs.get(id) ?? 0) > 1).map(({ id }) => id);
    assert.deepEqual(twice, [], 'no scenario ran to its end twice');
    const logged = scenarios.filter(({ id }) => runs.get(id) === 1).length;
    assert.ok(logged >= scenarios.length - chaos.workerKills, `${logged} runs to the end logged`);
    t.diagnostic(`runs to the end logged once: ${logged} of ${scenarios.length}`);

    for (const { id, configuration } of scenarios) {
      const got = await outcome(api, target.key, target.strategyId, id);
      const reference = references.get(configuration) as Outcome;
      assert.deepEqual(got.manifest, reference.manifest, `${id}: the manifest of its single-host reference`);
      for (const file of FILES) {
        assert.ok(
          got.files[file].equals(reference.files[file]),
          `${id} (${configuration}): ${file} as on one host`,
        );
      }
    }
    passed = true;
  });
});
