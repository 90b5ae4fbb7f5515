import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { isTransientDatabaseError } from '../src/db/transient.ts';
import { buildStrategyImage, pushToVersion } from './support/images.ts';
import { type PrivatePostgres, startPrivatePostgres } from './support/private-postgres.ts';
import { createVersion, slowedPythonStarter } from './support/scenario-images.ts';
import { postgres } from './support/storage-backends.ts';
import { type Account, startTestPlatform, type TestPlatform } from './support/test-platform.ts';

/**
 * Scenarios run through a restart of their PostgreSQL server (a cluster of this test's own): the
 * worker's writes retry until the server is back, its runs go on meanwhile, and every scenario ends
 * COMPLETE with the very files of runs that saw no restart. During the outage the API answers the
 * error envelope and the process stays up; afterwards it serves again over fresh connections.
 */
const btc = [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }];
// A day of candles lasts through the outage; four hours end during it (its logs and COMPLETE
// are written while the server is down, and the freed slot's next claim waits for the server).
const long = { startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-03T00:00:00Z' };
const short = { startTime: '2024-01-04T00:00:00Z', endTime: '2024-01-04T04:00:00Z' };
const TERMINAL = new Set(['COMPLETE', 'FAILED', 'CANCELLED']);
const FILES = ['metadata', 'timeseries', 'trades'] as const;

describe('scenarios through a PostgreSQL restart (a private cluster)', () => {
  let server: PrivatePostgres | undefined;
  let t!: TestPlatform;
  let owner: Account;
  let strategyId: string;
  let versionId: string;

  before(async () => {
    server = await startPrivatePostgres();
    t = await startTestPlatform(postgres(server.url), {
      // The outage is shorter than the lease: no run may fail for it.
      settings: { workers: '2', leaseSeconds: '30', connectTimeoutSeconds: '60' },
      platform: { runLimits: { exitGraceMs: 3000 } },
    });
    owner = await t.account('restart');
    strategyId = (await t.api.post('/v1/strategies', { key: owner.key, body: { name: 'restart' } })).body.data
      .strategyId;
    const version = await createVersion(t.api, owner.key, strategyId);
    await pushToVersion(t.api.baseUrl, version, await buildStrategyImage(slowedPythonStarter()));
    versionId = version.data.versionId;
  });

  after(async () => {
    if (t) {
      await t.platform.close();
      await t.store.dispose();
    }
    await server?.dispose();
  });

  const get = (id: string) => t.api.get(`/v1/scenarios/${id}`, { key: owner.key });

  async function create(window: { startTime: string; endTime: string }): Promise<string> {
    const created = await t.api.post(`/v1/strategies/${strategyId}/scenarios`, {
      key: owner.key,
      body: { strategyVersionId: versionId, subscriptions: btc, ...window },
    });
    assert.equal(created.status, 201, created.text);
    return created.body.data.scenarioId;
  }

  async function waitUntil(id: string, done: (state: string) => boolean, timeoutMs = 300_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const scenario = (await get(id)).body.data;
      if (done(scenario.state)) return scenario;
      if (Date.now() > deadline) throw new Error(`scenario ${id} still ${scenario.state}`);
      await sleep(200);
    }
  }

  async function files(id: string): Promise<Record<(typeof FILES)[number], Buffer>> {
    const read = async (file: string) => {
      const response = await fetch(`${t.api.baseUrl}/v1/strategies/${strategyId}/scenarios/${id}/${file}`, {
        headers: { 'x-api-key': owner.key },
      });
      assert.equal(response.status, 200, `${id} ${file}`);
      return Buffer.from(await response.arrayBuffer());
    };
    return {
      metadata: await read('metadata'),
      timeseries: await read('timeseries'),
      trades: await read('trades'),
    };
  }

  it('runs every scenario to COMPLETE through a restart, with the files of runs that saw none', async () => {
    const db = t.platform.database.db;
    // References: the same runs without a restart.
    const references = { long: await create(long), short: await create(short) };
    const expected: Record<string, { manifest: unknown; files: Record<string, Buffer> }> = {};
    for (const [name, id] of Object.entries(references)) {
      const scenario = await waitUntil(id, (state) => TERMINAL.has(state));
      assert.equal(scenario.state, 'COMPLETE', JSON.stringify(scenario));
      expected[name] = { manifest: scenario.manifest, files: await files(id) };
    }

    const batch = [
      { window: 'long', id: await create(long) },
      { window: 'short', id: await create(short) },
      { window: 'long', id: await create(long) },
      { window: 'short', id: await create(short) },
    ];
    const [first, second] = batch.map((run) => run.id) as [string, string];
    await waitUntil(first, (state) => state === 'RUNNING' || TERMINAL.has(state));
    await waitUntil(second, (state) => state === 'RUNNING' || TERMINAL.has(state));

    // What the server's stop does to work in flight: a statement running is ended with
    // admin_shutdown (57P01); a transaction waiting between statements finds its connection gone at
    // its next statement (and the process survives the connection's error meanwhile).
    const running = db.execute(sql`SELECT pg_sleep(60)`).then(
      () => assert.fail('the statement outlived the server'),
      (error: unknown) => error,
    );
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const transaction = db
      .transaction(async (tx) => {
        await tx.execute(sql`SELECT 1`);
        await paused;
        await tx.execute(sql`SELECT 2`);
      })
      .then(
        () => assert.fail('the transaction outlived the server'),
        (error: unknown) => error,
      );
    await sleep(200);

    await (server as PrivatePostgres).stop();
    resume();
    const statementError = await running;
    assert.ok(isTransientDatabaseError(statementError), `transient: ${String(statementError)}`);
    const transactionError = await transaction;
    assert.ok(isTransientDatabaseError(transactionError), `transient: ${String(transactionError)}`);

    // The API during the outage: the spec's retryable error (documented for the operation; the client
    // checks it against openapi.json), nothing of the driver's, no crash.
    const during = await t.api.get(`/v1/scenarios/${first}`, { key: owner.key });
    const body = during.body as { error?: { code?: string; message?: string } };
    assert.equal(during.status, 503, during.text);
    assert.deepEqual(Object.keys(body), ['error'], JSON.stringify(body));
    assert.equal(body.error?.code, 'SERVICE_UNAVAILABLE');
    assert.doesNotMatch(JSON.stringify(body), /ECONNREFUSED|Failed query|node_modules|\.ts:\d+/);
    await sleep(6000);
    await (server as PrivatePostgres).start();

    // After the outage the API serves again, and every run ends as if nothing had happened.
    assert.equal((await get(first)).status, 200);
    for (const { window, id } of batch) {
      const scenario = await waitUntil(id, (state) => TERMINAL.has(state));
      assert.equal(scenario.state, 'COMPLETE', JSON.stringify(scenario));
      const reference = expected[window] as (typeof expected)[string];
      assert.deepEqual(scenario.manifest, reference.manifest, `${id}: the manifest of its reference`);
      const got = await files(id);
      for (const file of FILES) {
        assert.ok(
          got[file].equals(reference.files[file] as Buffer),
          `${id} (${window}): ${file} as without a restart`,
        );
      }
      const stdout = await t.api.get(`/v1/strategies/${strategyId}/scenarios/${id}/logs`, {
        key: owner.key,
        query: { stream: 'stdout' },
      });
      assert.match(stdout.text, /trading C:BTCUSD/, `${id}: the strategy's output was stored`);
    }
  });
});
