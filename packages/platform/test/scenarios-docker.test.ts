import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Docker from 'dockerode';
import { DEFAULT_ENV, pushVersion } from './support/executor-images.ts';
import { nodeRuntime, typeScriptStarter } from './support/scenario-images.ts';
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
      const deadline = Date.now() + 300_000;
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
