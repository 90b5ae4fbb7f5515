import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { RegistryPushClient } from '@hindsight/platform';
import { ApiClient } from './support/api-client.ts';
import { buildLayeredImage, DEFAULT_ENV } from './support/executor-images.ts';
import { nodeRuntime, typeScriptStarter } from './support/scenario-images.ts';

/**
 * The deployable stack end to end (docs/deploy.md): the local Debian base image (deploy/base-image.sh,
 * cached), the platform's image and the compose stack built and brought up under a project name of its
 * own on free loopback ports (PostgreSQL, the S3 store, the API, two workers with the docker executor),
 * then what a user does: a user made with the image's CLI, a signed-in API key, a strategy whose version
 * is the TypeScript starter with a Node runtime pushed to the API's registry, a scenario that a worker
 * runs in a container on the host's daemon to COMPLETE, and its result files downloaded. Everything
 * comes down afterwards, volumes too, whatever happened. Slow when cold (a debootstrap and two npm
 * installs); nothing here is timed, only bounded by generous limits.
 */
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const composeFile = `${repoRoot}deploy/docker-compose.yml`;
const project = `hsdeploy${process.pid}${randomBytes(3).toString('hex')}`;
const MINUTE = 60_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeout: number): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: repoRoot, env, timeout, maxBuffer: 256 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr: stderr || (error?.message ?? '') });
      },
    );
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

describe('the compose stack (deploy/)', () => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  const compose = (args: string[], timeout = 10 * MINUTE) =>
    run('docker-compose', ['-p', project, '-f', composeFile, ...args], env, timeout);
  const mustCompose = async (args: string[], timeout?: number) => {
    const result = await compose(args, timeout);
    if (result.code !== 0) {
      const logs = await compose(['logs', '--no-color', '--tail', '60']);
      throw new Error(
        `docker-compose ${args.join(' ')} failed (${result.code}):\n${result.stderr.slice(-4000)}\n--- logs ---\n${logs.stdout.slice(-8000)}`,
      );
    }
    return result;
  };
  let api: ApiClient;
  let up = false;
  const pulled: string[] = [];

  before(async () => {
    const docker = await run('docker', ['info', '--format', '{{.ServerVersion}}'], env, MINUTE);
    assert.equal(
      docker.code,
      0,
      `Docker is not reachable: install docker.io and start dockerd\n${docker.stderr}`,
    );
    const composeVersion = await run('docker-compose', ['version', '--short'], env, MINUTE);
    assert.equal(composeVersion.code, 0, `docker-compose is missing: apt-get install docker-compose`);
    const [apiPort, postgresPort, s3Port] = [await freePort(), await freePort(), await freePort()];
    Object.assign(env, {
      HINDSIGHT_API_PORT: String(apiPort),
      HINDSIGHT_POSTGRES_PORT: String(postgresPort),
      HINDSIGHT_S3_PORT: String(s3Port),
      HINDSIGHT_SECRET: randomBytes(24).toString('hex'),
      POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
      // Short enough that the teardown's stop does not wait long for idle workers.
      HINDSIGHT_WORKER_STOP_GRACE_SECONDS: '5',
      HINDSIGHT_WORKER_STOP_PERIOD: '20s',
    });
    api = new ApiClient(`http://127.0.0.1:${apiPort}`);
  });

  after(async () => {
    if (!up) return;
    await compose(['down', '--volumes', '--remove-orphans', '--timeout', '30'], 5 * MINUTE);
    // The daemon keeps the strategy images it pulled as its cache; this test's are removed.
    for (const versionId of pulled) {
      const images = await run(
        'docker',
        ['images', '-q', '--digests', '--filter', `reference=*/v/${versionId}`],
        env,
        MINUTE,
      );
      for (const id of new Set(images.stdout.split(/\s+/).filter(Boolean))) {
        await run('docker', ['rmi', '-f', id], env, MINUTE);
      }
    }
  });

  it('builds the images, runs a scenario through API, worker and the docker executor, and tears down', async (t) => {
    let since = Date.now();
    const base = await run(`${repoRoot}deploy/base-image.sh`, [], env, 30 * MINUTE);
    assert.equal(base.code, 0, `deploy/base-image.sh failed:\n${base.stderr.slice(-4000)}`);
    t.diagnostic(`base image: ${seconds(since)} (${base.stdout.trim()})`);

    since = Date.now();
    await mustCompose(['build'], 60 * MINUTE);
    t.diagnostic(`images built: ${seconds(since)}`);

    since = Date.now();
    up = true;
    await mustCompose(['up', '-d', '--scale', 'worker=2'], 15 * MINUTE);
    // Nothing waits on the workers in the compose file: their own /readyz (healthcheck) says they claim.
    const workers = (await mustCompose(['ps', '-q', 'worker'])).stdout.split(/\s+/).filter(Boolean);
    assert.equal(workers.length, 2, 'two workers');
    const healthDeadline = Date.now() + 10 * MINUTE;
    let health: string[] = [];
    while (Date.now() < healthDeadline) {
      const inspected = await run(
        'docker',
        ['inspect', '-f', '{{.State.Health.Status}}', ...workers],
        env,
        MINUTE,
      );
      health = inspected.stdout.split(/\s+/).filter(Boolean);
      if (health.length === 2 && health.every((status) => status === 'healthy')) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    assert.deepEqual(health, ['healthy', 'healthy'], 'both workers answer /readyz');
    t.diagnostic(`stack up and healthy: ${seconds(since)}`);

    since = Date.now();
    const email = 'deploy@example.com';
    const password = randomBytes(12).toString('hex');
    // The image's own CLI, in the running API container, against the stack's PostgreSQL.
    await mustCompose([
      'exec',
      '-T',
      'api',
      '/opt/hindsight/deploy/entrypoint.sh',
      'users',
      'create',
      '--email',
      email,
      '--password',
      password,
    ]);
    await api.loadContract();
    const login = await api.post('/v1/auth/login', { body: { email, password } });
    assert.equal(login.status, 200, login.text);
    const session = login.body.data.token as string;
    const keyCreated = await api.post('/v1/api-keys', { session, body: { name: 'deploy test' } });
    assert.equal(keyCreated.status, 201, keyCreated.text);
    const key = keyCreated.body.data.key as string;

    const strategy = await api.post('/v1/strategies', { key, body: { name: 'Deploy test SMA' } });
    assert.equal(strategy.status, 201, strategy.text);
    const strategyId = strategy.body.data.strategyId as string;
    const version = await api.post(`/v1/strategies/${strategyId}/versions`, { key, body: { label: 'v1' } });
    assert.equal(version.status, 201, version.text);
    const versionId = version.body.data.versionId as string;
    pulled.push(versionId);

    // The TypeScript starter with a Node runtime (the docker executor runs the image on its own files).
    const image = await buildLayeredImage({
      layers: [{ entries: nodeRuntime(), compression: 'none' }, { entries: typeScriptStarter() }],
      config: { Cmd: ['node', 'main.js'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
    });
    const client = new RegistryPushClient({
      baseUrl: api.baseUrl,
      repository: `v/${versionId}`,
      accessToken: version.body.accessToken,
    });
    for (const part of image.blobs) {
      await client.pushBlob(part.digest, part.size, (start, end) =>
        Readable.from([part.bytes.subarray(start, end + 1)]),
      );
    }
    await client.pushManifest('latest', image.manifest.mediaType, image.manifest.bytes);

    const created = await api.post(`/v1/strategies/${strategyId}/scenarios`, {
      key,
      body: {
        strategyVersionId: versionId,
        subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
        startTime: '2024-01-02T00:00:00Z',
        endTime: '2024-01-03T00:00:00Z',
      },
    });
    assert.equal(created.status, 201, created.text);
    const scenarioId = created.body.data.scenarioId as string;
    let scenario = created.body.data;
    const deadline = Date.now() + 20 * MINUTE;
    while (!['COMPLETE', 'FAILED', 'CANCELLED'].includes(scenario.state) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      scenario = (await api.get(`/v1/scenarios/${scenarioId}`, { key })).body.data;
    }
    if (scenario.state !== 'COMPLETE') {
      const logs = await compose(['logs', '--no-color', '--tail', '80', 'worker', 'api']);
      assert.fail(`scenario ended ${JSON.stringify(scenario)}\n--- logs ---\n${logs.stdout.slice(-8000)}`);
    }
    t.diagnostic(`user, key, push and scenario to COMPLETE: ${seconds(since)}`);

    const metrics = await api.get(`/v1/strategies/${strategyId}/scenarios/${scenarioId}/metrics`, { key });
    assert.equal(metrics.status, 200, metrics.text);
    assert.ok(metrics.body.data.totalTrades > 0, 'the starter traded through its gateway');
    for (const file of ['metadata', 'timeseries', 'trades']) {
      const response = await fetch(
        `${api.baseUrl}/v1/strategies/${strategyId}/scenarios/${scenarioId}/${file}`,
        {
          headers: { 'x-api-key': key },
        },
      );
      assert.equal(response.status, 200, `${file}: ${response.status}`);
      assert.ok((await response.arrayBuffer()).byteLength > 0, `${file} has content`);
    }
    const logs = await api.get(`/v1/strategies/${strategyId}/scenarios/${scenarioId}/logs`, { key });
    assert.match(logs.text, /C:BTCUSD/, 'the container’s output was kept');
  });
});
