import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { buildStrategyImage, pushToVersion } from './support/images.ts';
import { createVersion, slowedPythonStarter } from './support/scenario-images.ts';
import { postgresServer } from './support/storage-backends.ts';
import { type Account, withTestPlatform } from './support/test-platform.ts';

/**
 * Attempts (decision 40), with worker processes of their own on a real PostgreSQL server: a run whose
 * worker is killed goes back to the queue and runs again, with the very files of a run that saw no
 * kill; a stopped worker lets its run finish within its grace period, or hands it back; the limit
 * counts platform faults only, and strategy failures are never retried.
 */
const btc = [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }];
// Twelve hours of candles at >= 10 ms each: long enough to kill or stop a worker mid-run.
const halfDay = { startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-02T12:00:00Z' };
const TERMINAL = new Set(['COMPLETE', 'FAILED', 'CANCELLED']);
const FILES = ['metadata', 'timeseries', 'trades'] as const;
const workerScript = fileURLToPath(new URL('./support/worker-process.ts', import.meta.url));
/** A bound for a loaded machine, not an expectation. */
const PATIENCE_MS = 300_000;

describe('scenario attempts (postgres)', () => {
  // No worker in the API process: it requeues lapsed leases every half lease, as an API host does.
  const t = withTestPlatform(postgresServer(), {
    settings: { scenarioQuota: '100', leaseSeconds: '2', maxAttempts: '3' },
  });
  let owner: Account;
  let strategyId: string;
  let versionId: string;
  const workers: ChildProcess[] = [];

  before(async () => {
    const { api } = t.get();
    owner = await t.get().account('attempts');
    strategyId = (await api.post('/v1/strategies', { key: owner.key, body: { name: 'attempts' } })).body.data
      .strategyId;
    const version = await createVersion(api, owner.key, strategyId);
    await pushToVersion(api.baseUrl, version, await buildStrategyImage(slowedPythonStarter()));
    versionId = version.data.versionId;
  });

  after(() => {
    for (const child of workers)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  const get = async (id: string) =>
    (await t.get().api.get(`/v1/scenarios/${id}`, { key: owner.key })).body.data;

  async function create(window = halfDay): Promise<string> {
    const created = await t.get().api.post(`/v1/strategies/${strategyId}/scenarios`, {
      key: owner.key,
      body: { strategyVersionId: versionId, subscriptions: btc, ...window },
    });
    assert.equal(created.status, 201, created.text);
    return created.body.data.scenarioId;
  }

  // biome-ignore lint/suspicious/noExplicitAny: the scenario as the API answers it
  async function waitFor(id: string, done: (scenario: any) => boolean) {
    const deadline = Date.now() + PATIENCE_MS;
    for (;;) {
      const scenario = await get(id);
      if (done(scenario)) return scenario;
      if (Date.now() > deadline) throw new Error(`scenario ${id}: ${JSON.stringify(scenario)}`);
      await sleep(200);
    }
  }

  /**
   * A worker process (`hindsight worker`, one run at a time), claiming once it prints `ready`; with
   * HINDSIGHT_WORKER_PORT, `operations` is where it serves its probes and metrics.
   */
  async function startWorker(
    env: Record<string, string> = {},
  ): Promise<ChildProcess & { operations?: string }> {
    const { platform, store } = t.get();
    const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', workerScript], {
      env: {
        ...process.env,
        DATABASE_URL: store.databaseUrl,
        HINDSIGHT_DATA_DIR: store.dataDir,
        HINDSIGHT_REGISTRY_URL: platform.url,
        HINDSIGHT_WORKER_LEASE_SECONDS: '2',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    workers.push(child);
    let output = '';
    child.stdout?.setEncoding('utf8');
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: string) => {
        output += chunk;
        const ready = /^ready .*$/m.exec(output);
        if (ready) resolve(ready[0]);
      });
      child.once('exit', (code) => reject(new Error(`the worker exited (${code}) before it was ready`)));
    });
    const operations = line.split(' ')[2];
    return Object.assign(child, operations ? { operations } : {});
  }

  async function waitForProbe<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + PATIENCE_MS;
    for (;;) {
      const value = await read();
      if (done(value) || Date.now() > deadline) return value;
      await sleep(100);
    }
  }

  async function files(id: string): Promise<Record<string, Buffer>> {
    const read = async (file: string) => {
      const url = `${t.get().api.baseUrl}/v1/strategies/${strategyId}/scenarios/${id}/${file}`;
      const response = await fetch(url, { headers: { 'x-api-key': owner.key } });
      assert.equal(response.status, 200, `${id} ${file}`);
      return Buffer.from(await response.arrayBuffer());
    };
    return Object.fromEntries(await Promise.all(FILES.map(async (file) => [file, await read(file)])));
  }

  it('counts platform faults against the limit, never a hand-back, and never retries a strategy failure', async () => {
    const { scenarios } = t.get().platform.ctx;
    const id = await create();
    // Leases that outlast the test: only the lapse this test declares (a minute on) ends them.
    const claimAs = async (worker: string) => {
      const claimed = await scenarios.claim(worker, 60_000);
      assert.equal(claimed?.scenarioId, id);
      return claimed;
    };
    const later = () => new Date(Date.now() + 120_000);

    assert.equal((await claimAs('w1'))?.attempt, 1);
    assert.deepEqual(await scenarios.requeueAbandoned(2, later()), { requeued: [id], failed: [] });
    let scenario = await get(id);
    assert.equal(scenario.state, 'QUEUED');
    assert.equal(scenario.startedAt, undefined, 'a requeued scenario waits as a new one does');
    assert.equal(scenario.attempts.length, 1);
    assert.equal(scenario.attempts[0].end, 'worker_lost');

    assert.equal((await claimAs('w2'))?.attempt, 2);
    assert.equal(await scenarios.endAttempt(id, 'w2', 'worker_stopped', 'stopping', 2), 'requeued');
    assert.equal(
      await scenarios.endAttempt(id, 'w2', 'worker_stopped', 'again', 2),
      undefined,
      'w2 let it go',
    );

    await claimAs('w3');
    assert.equal(
      await scenarios.endAttempt(id, 'w3', 'platform_error', 'the image pull failed', 2),
      'failed',
    );
    scenario = await get(id);
    assert.equal(scenario.state, 'FAILED');
    assert.equal(scenario.errorType, 'platform');
    assert.equal(
      scenario.errorMessage,
      'the image pull failed (attempt 3; 2 of 2 allowed attempts ended for a platform reason)',
    );
    assert.deepEqual(
      scenario.attempts.map((a: { attempt: number; end: string }) => [a.attempt, a.end]),
      [
        [1, 'worker_lost'],
        [2, 'worker_stopped'],
      ],
    );

    const strategyFailure = await create();
    await scenarios.claim('w4', 60_000);
    assert.ok(await scenarios.fail(strategyFailure, 'w4', 'strategy', 'exited with code 1'));
    scenario = await get(strategyFailure);
    assert.equal(scenario.state, 'FAILED');
    assert.equal(scenario.errorType, 'strategy');
    assert.deepEqual(scenario.attempts, []);
  });

  it('runs a killed worker’s scenario again, to the very files of a run that saw no kill', async () => {
    const id = await create();
    const first = await startWorker();
    await waitFor(id, (s) => s.state === 'RUNNING' || TERMINAL.has(s.state));
    const killed = once(first, 'exit');
    first.kill('SIGKILL');
    await killed;

    // The API process finds the lapsed lease and requeues the scenario.
    const requeued = await waitFor(id, (s) => s.attempts.length > 0 || TERMINAL.has(s.state));
    assert.equal(requeued.attempts.length, 1, JSON.stringify(requeued));
    const [lost] = requeued.attempts;
    assert.equal(lost.attempt, 1);
    assert.equal(lost.end, 'worker_lost');
    assert.ok(lost.runningAt, 'the first attempt was running when its worker died');
    assert.match(lost.message, /worker/);

    // The reference: the same settings, created after, run by the same next worker.
    const reference = await create();
    const second = await startWorker();
    const retried = await waitFor(id, (s) => TERMINAL.has(s.state));
    const clean = await waitFor(reference, (s) => TERMINAL.has(s.state));
    assert.equal(retried.state, 'COMPLETE', JSON.stringify(retried));
    assert.equal(clean.state, 'COMPLETE', JSON.stringify(clean));
    assert.equal(retried.attempt, 2);
    assert.equal(clean.attempt, 1);
    assert.deepEqual(clean.attempts, []);
    assert.deepEqual(retried.manifest, clean.manifest);
    const [retriedFiles, cleanFiles] = [await files(id), await files(reference)];
    for (const file of FILES) {
      assert.ok(
        retriedFiles[file]?.equals(cleanFiles[file] as Buffer),
        `${file} differs between the attempts`,
      );
    }
    const exited = once(second, 'exit');
    second.kill('SIGTERM');
    assert.deepEqual(await exited, [0, null]);
  });

  it('lets a run finish within the grace period when its worker is stopped; probes and metrics say so', async () => {
    const id = await create();
    const worker = await startWorker({
      HINDSIGHT_WORKER_STOP_GRACE_SECONDS: '300',
      HINDSIGHT_WORKER_PORT: '0',
    });
    assert.ok(worker.operations, 'the worker serves its operations endpoints');
    const probe = async (path: string) => {
      const response = await fetch(`${worker.operations}${path}`);
      return { status: response.status, text: await response.text() };
    };
    await waitFor(id, (s) => s.state === 'RUNNING' || TERMINAL.has(s.state));
    const ready = await probe('/readyz');
    assert.equal(ready.status, 200, ready.text);
    assert.deepEqual(JSON.parse(ready.text), { ready: true, checks: { database: 'ok', worker: 'ok' } });
    const metrics = (await probe('/metrics')).text;
    assert.match(metrics, /^hindsight_scenario_runs_started_total 1$/m);
    assert.match(metrics, /^hindsight_worker_active_runs 1$/m);

    const exited = once(worker, 'exit');
    worker.kill('SIGTERM');
    // While its run finishes, the worker is alive but takes no new work.
    const stopping = await waitForProbe(
      () => probe('/readyz'),
      (r) => r.status === 503,
    );
    assert.match(stopping.text, /"worker":"stopped"/);
    assert.equal((await probe('/livez')).status, 200);
    assert.deepEqual(await exited, [0, null]);
    const scenario = await get(id);
    assert.equal(scenario.state, 'COMPLETE', JSON.stringify(scenario));
    assert.deepEqual(scenario.attempts, []);
  });

  it('hands a run it cannot finish in time back to the queue, without using up an attempt', async () => {
    const id = await create();
    // One attempt allowed: a hand-back that counted would fail the scenario.
    const worker = await startWorker({
      HINDSIGHT_WORKER_STOP_GRACE_SECONDS: '0',
      HINDSIGHT_MAX_ATTEMPTS: '1',
    });
    await waitFor(id, (s) => s.state === 'RUNNING' || TERMINAL.has(s.state));
    const exited = once(worker, 'exit');
    worker.kill('SIGTERM');
    assert.deepEqual(await exited, [0, null]);
    const scenario = await get(id);
    assert.equal(scenario.state, 'QUEUED', JSON.stringify(scenario));
    assert.equal(scenario.attempts.length, 1);
    assert.equal(scenario.attempts[0].end, 'worker_stopped');
    assert.equal(scenario.attempt, 1);
    const cancelled = await t.get().api.post(`/v1/strategies/${strategyId}/scenarios/${id}/cancel`, {
      key: owner.key,
    });
    assert.equal(cancelled.status, 200);
  });
});
