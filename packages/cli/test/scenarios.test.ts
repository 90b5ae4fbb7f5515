import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { bin, cleanEnv, dataDir, run, start, stop } from './support/cli-process.ts';
import { commandLine, leftovers, portIsFree, processTree } from './support/process-tree.ts';

/**
 * The README's path for a newcomer, with the real commands: `hindsight start`, a strategy through the
 * API, the Python starter pushed with `hindsight versions push`, a scenario, its metrics. Then the same
 * with the platform on PostgreSQL and the scenario run by a separate `hindsight worker`.
 */
const example = fileURLToPath(new URL('../../../examples/sma-crossover-python', import.meta.url));
const scenarioBody = (strategyVersionId: string) => ({
  strategyVersionId,
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
  startTime: '2024-01-02T00:00:00Z',
  endTime: '2024-01-03T00:00:00Z',
});

function client(url: string, key: string) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the test reads response bodies loosely.
    return { status: response.status, body: (await response.json()) as any };
  };
}

async function runScenario(url: string, key: string, extraEnv: Record<string, string> = {}) {
  const api = client(url, key);
  const strategyId = (await api('POST', '/v1/strategies', { name: 'SMA crossover' })).body.data.strategyId;
  const pushed = await run(
    ['versions', 'push', '--strategy', strategyId, example, '--cmd', 'python3 main.py', '--label', 'v1'],
    { HINDSIGHT_URL: url, HINDSIGHT_API_KEY: key, ...extraEnv },
  );
  assert.equal(pushed.code, 0, pushed.stderr);
  const versionId = /Pushed version (\S+) /.exec(pushed.stdout)?.[1] ?? '';
  const created = await api('POST', `/v1/strategies/${strategyId}/scenarios`, scenarioBody(versionId));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.scenarioId;
  const deadline = Date.now() + 600_000; // bounds for a loaded machine, not expectations
  let scenario = created.body.data;
  while (!['COMPLETE', 'FAILED', 'CANCELLED'].includes(scenario.state) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    scenario = (await api('GET', `/v1/scenarios/${id}`)).body.data;
  }
  assert.equal(scenario.state, 'COMPLETE', JSON.stringify(scenario));
  const metrics = await api('GET', `/v1/strategies/${strategyId}/scenarios/${id}/metrics`);
  assert.equal(metrics.status, 200);
  assert.ok(metrics.body.data.totalTrades > 0, 'the starter traded');
  return scenario;
}

const SLOW_ACKS = `
import asyncio, json, os, websockets
async def main():
    headers = {"X-API-Key": os.environ["PLATFORM_GATEWAY_API_KEY"]}
    try:
        ws = await websockets.connect(os.environ["PROXY_WS_URL"], additional_headers=headers)
    except TypeError:
        ws = await websockets.connect(os.environ["PROXY_WS_URL"], extra_headers=headers)
    async for message in ws:
        events = json.loads(message)
        events = events if isinstance(events, list) else [events]
        seqs = [e["seq"] for e in events if "seq" in e]
        if seqs:
            await asyncio.sleep(0.05)
            await ws.send(json.dumps({"type": "event_ack", "last_seq": seqs[-1]}))
asyncio.run(main())
`;

/** `hindsight start` on a fresh embedded store, running a strategy that acks slowly, with its scenario RUNNING. */
async function slowScenarioRunning() {
  const dir = dataDir();
  const platform = await start({ HINDSIGHT_DATA_DIR: dir });
  const url = /running at (http:\/\/\S+) /.exec(platform.banner)?.[1] ?? '';
  const key = /API key:\s+(\S+)/.exec(platform.banner)?.[1] ?? '';
  const api = client(url, key);
  const strategyId = (await api('POST', '/v1/strategies', { name: 'slow' })).body.data.strategyId;
  const folder = mkdtempSync(join(tmpdir(), 'hindsight-slow-'));
  writeFileSync(join(folder, 'main.py'), SLOW_ACKS);
  const pushed = await run(
    ['versions', 'push', '--strategy', strategyId, folder, '--cmd', 'python3 main.py'],
    {
      HINDSIGHT_URL: url,
      HINDSIGHT_API_KEY: key,
    },
  );
  assert.equal(pushed.code, 0, pushed.stderr);
  const versionId = /Pushed version (\S+) /.exec(pushed.stdout)?.[1] ?? '';
  const created = await api('POST', `/v1/strategies/${strategyId}/scenarios`, {
    ...scenarioBody(versionId),
    endTime: '2024-02-01T00:00:00Z',
  });
  const id = created.body.data.scenarioId;
  const deadline = Date.now() + 300_000;
  while ((await api('GET', `/v1/scenarios/${id}`)).body.data.state !== 'RUNNING') {
    assert.ok(Date.now() < deadline, 'the scenario started');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // The strategy's sandbox under the platform's process, and the platform's port.
  const tree = await processTree(platform.child.pid as number);
  assert.ok(
    (await Promise.all(tree.map(commandLine))).some((line) => line.includes('main.py')),
    'the strategy runs below the platform',
  );
  return { ...platform, dir, id, tree, port: Number(new URL(url).port) };
}

describe('scenarios from the command line', () => {
  it('requeues, at the next start, a scenario left RUNNING by a platform that was killed (embedded store)', async () => {
    const first = await slowScenarioRunning();
    const killed = once(first.child, 'exit');
    first.child.removeAllListeners('close');
    first.child.kill('SIGKILL');
    await killed;
    // The sandbox dies with its parent (bubblewrap's --die-with-parent).
    assert.deepEqual(await leftovers(first.tree), [], 'processes left running');
    const second = await start({ HINDSIGHT_DATA_DIR: first.dir });
    try {
      const secondUrl = /running at (http:\/\/\S+) /.exec(second.banner)?.[1] ?? '';
      const secondKey = /API key:\s+(\S+)/.exec(second.banner)?.[1] ?? '';
      const scenario = (await client(secondUrl, secondKey)('GET', `/v1/scenarios/${first.id}`)).body.data;
      // Requeued at start, before anything else could see it running, and taken by the new worker.
      assert.equal(scenario.attempts.length, 1, JSON.stringify(scenario));
      assert.equal(scenario.attempts[0].end, 'worker_lost');
      assert.equal(scenario.attempts[0].attempt, 1);
      assert.ok(scenario.attempts[0].runningAt, 'the first attempt had started running');
      assert.ok(['QUEUED', 'PENDING', 'RUNNING'].includes(scenario.state), scenario.state);
      assert.ok(scenario.attempt <= 2, `attempt ${scenario.attempt}`);
    } finally {
      await stop(second.child);
    }
  });

  it('stops a running scenario, its strategy and its gateway when the platform is stopped with SIGINT', async () => {
    const platform = await slowScenarioRunning();
    const exited = new Promise((resolve) => platform.child.on('exit', resolve));
    platform.child.removeAllListeners('close');
    platform.child.kill('SIGINT');
    assert.equal(await exited, 0);
    assert.deepEqual(await leftovers(platform.tree), [], 'processes left running');
    assert.ok(await portIsFree(platform.port), 'the port is still held');
  });

  describe('npm start, then the README commands', () => {
    let child: ChildProcess | undefined;
    let url = '';
    let key = '';
    before(async () => {
      const started = await start({ HINDSIGHT_DATA_DIR: dataDir() });
      child = started.child;
      url = /running at (http:\/\/\S+) /.exec(started.banner)?.[1] ?? '';
      key = /API key:\s+(\S+)/.exec(started.banner)?.[1] ?? '';
    });
    after(async () => {
      if (child) await stop(child);
    });

    it('runs the Python starter pushed with `hindsight versions push` and serves its metrics', async () => {
      await runScenario(url, key);
    });
  });

  describe('hindsight worker', () => {
    it('refuses to run on the embedded store, naming DATABASE_URL', async () => {
      const refused = await run(['worker'], { HINDSIGHT_DATA_DIR: dataDir() });
      assert.equal(refused.code, 2, 'a settings error');
      assert.match(
        refused.stderr,
        /^hindsight: DATABASE_URL: a worker of its own needs the PostgreSQL server/,
      );
    });

    it('runs the scenarios of a platform on PostgreSQL that runs no worker itself', async () => {
      const server = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
      const name = `hindsight_test_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: server });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const database = new URL(server);
      database.pathname = `/${name}`;
      const dir = dataDir();
      const shared = { HINDSIGHT_DATA_DIR: dir, DATABASE_URL: database.toString() };
      let platform: ChildProcess | undefined;
      let worker: ChildProcess | undefined;
      try {
        const started = await start({ ...shared, HINDSIGHT_WORKERS: '0' });
        platform = started.child;
        const url = /running at (http:\/\/\S+) /.exec(started.banner)?.[1] ?? '';
        const key = /API key:\s+(\S+)/.exec(started.banner)?.[1] ?? '';
        worker = spawn(process.execPath, [bin, 'worker', '--concurrency', '1'], {
          env: { ...cleanEnv, ...shared, HINDSIGHT_REGISTRY_URL: url, HINDSIGHT_LOG_LEVEL: 'warn' },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        const banner = await new Promise<string>((resolve) => {
          let out = '';
          worker?.stdout?.on('data', (chunk) => {
            out += chunk;
            if (out.includes('claiming')) resolve(out);
          });
        });
        assert.match(banner, /worker .* is claiming scenarios \(executor local, 1 at once\)/);
        const scenario = await runScenario(url, key);
        assert.ok(scenario.manifest.engineVersion);
      } finally {
        if (worker) await stop(worker);
        if (platform) await stop(platform);
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    });
  });
});
