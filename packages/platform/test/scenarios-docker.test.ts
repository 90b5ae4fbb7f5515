import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import Docker from 'dockerode';
import ts from 'typescript';
import { DEFAULT_ENV, type LayerEntry, pushVersion } from './support/executor-images.ts';
import { TYPESCRIPT_EXAMPLE } from './support/scenario-images.ts';
import { storageBackends } from './support/storage-backends.ts';
import { withTestPlatform } from './support/test-platform.ts';

/**
 * A scenario run by the `docker` executor end to end: the worker has the real daemon pull the version's
 * image from our registry by digest, puts the container on its own internal bridge with the scenario's
 * gateway bound to that bridge, and the TypeScript starter inside trades through it to COMPLETE. The
 * image is built from local files (public registries are unreachable): the host's `node` with the
 * shared libraries it loads, and the starter compiled to JavaScript with its one dependency, `ws`.
 */
const window = { startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-03T00:00:00Z' };

function nodeRuntime(): LayerEntry[] {
  const node = realpathSync(process.execPath);
  const libraries = execFileSync('ldd', [node], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /(\/\S+) \(0x/.exec(line)?.[1])
    .filter((path): path is string => path !== undefined);
  const entries: LayerEntry[] = [];
  const dirs = new Set<string>();
  for (const file of [node, ...libraries]) {
    for (let dir = dirname(file); dir !== '/'; dir = dirname(dir)) dirs.add(dir);
    entries.push({ path: file.slice(1), content: readFileSync(file), mode: 0o755 });
  }
  entries.push({ path: 'usr/local/bin/node', link: `/${node.slice(1)}` });
  dirs.add('/usr/local/bin');
  dirs.add('/usr/local');
  dirs.add('/usr');
  dirs.add('/tmp');
  return [...[...dirs].sort().map((dir) => ({ path: `${dir.slice(1)}/`, dir: true as const })), ...entries];
}

function typeScriptStarter(): LayerEntry[] {
  const source = readFileSync(join(TYPESCRIPT_EXAMPLE, 'main.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const entries: LayerEntry[] = [
    { path: 'app/', dir: true },
    { path: 'app/main.js', content: outputText },
    { path: 'app/package.json', content: JSON.stringify({ type: 'module' }) },
    { path: 'app/node_modules/', dir: true },
  ];
  const wsDir = dirname(createRequire(import.meta.url).resolve('ws/package.json'));
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const inImage = `app/node_modules/ws/${relative(wsDir, path)}`;
      if (statSync(path).isDirectory()) {
        entries.push({ path: `${inImage}/`, dir: true });
        walk(path);
      } else entries.push({ path: inImage, content: readFileSync(path) });
    }
  };
  entries.push({ path: 'app/node_modules/ws/', dir: true });
  walk(wsDir);
  return entries;
}

for (const backend of storageBackends().slice(0, 1)) {
  describe(`scenario run with the docker executor (${backend.name})`, () => {
    const t = withTestPlatform(backend, {
      settings: { workers: '1', executor: 'docker', connectTimeoutSeconds: '60', stallTimeoutSeconds: '30' },
      platform: { runLimits: { exitGraceMs: 3000 } },
    });

    it('runs the TypeScript starter in a container that pulls its image from our registry', async () => {
      const docker = new Docker({ socketPath: '/var/run/docker.sock' });
      await docker.ping().catch((error: Error) => {
        throw new Error(
          `Docker is not reachable (${error.message}): install docker.io and start dockerd (.ci/run does both)`,
        );
      });
      const { api, platform } = t.get();
      const owner = await t.get().account('docker-run');
      const pushed = await pushVersion(t.get(), owner.key, {
        layers: [{ entries: nodeRuntime(), compression: 'none' }, { entries: typeScriptStarter() }],
        config: { Cmd: ['node', 'main.js'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
      });
      const strategyId = (await platform.ctx.versions.byId(pushed.versionId))?.version.strategyId as string;
      const created = await api.post(`/v1/strategies/${strategyId}/scenarios`, {
        key: owner.key,
        body: {
          strategyVersionId: pushed.versionId,
          subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
          ...window,
        },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.scenarioId;
      const deadline = Date.now() + 180_000;
      let scenario = created.body.data;
      while (!['COMPLETE', 'FAILED', 'CANCELLED'].includes(scenario.state) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        scenario = (await api.get(`/v1/scenarios/${id}`, { key: owner.key })).body.data;
      }
      try {
        assert.equal(scenario.state, 'COMPLETE', JSON.stringify(scenario));
        const metrics = await api.get(`/v1/strategies/${strategyId}/scenarios/${id}/metrics`, {
          key: owner.key,
        });
        assert.ok(metrics.body.data.totalTrades > 0, 'the starter traded through its gateway');
        const logs = await api.get(`/v1/strategies/${strategyId}/scenarios/${id}/logs`, { key: owner.key });
        assert.match(logs.text, /C:BTCUSD/, 'the container’s output was kept');
      } finally {
        const left = await docker.listContainers({
          all: true,
          filters: { name: [`hindsight-${id.slice(0, 8)}`] },
        });
        assert.deepEqual(left, [], 'the container was removed');
        for (const image of await docker.listImages()) {
          if ((image.RepoDigests ?? []).some((d) => d.includes(pushed.versionId))) {
            await docker.getImage(image.Id).remove({ force: true });
          }
        }
      }
    });
  });
}
