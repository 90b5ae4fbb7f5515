import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { ensureZstd, zstdDecompress } from '@hindsight/marketdata';
import Docker from 'dockerode';
import { busyboxLayer, DEFAULT_ENV, pushVersion } from './support/executor-images.ts';
import {
  connectedPython,
  nodeRuntime,
  pushPythonScript,
  typeScriptStarter,
} from './support/scenario-images.ts';
import { storageBackends } from './support/storage-backends.ts';
import { type Account, type TestPlatform, withTestPlatform } from './support/test-platform.ts';

/**
 * Strategies written to get out of their box, run as scenarios through the API under each executor,
 * beside an honest one:
 * - a prober connects to PostgreSQL, the management API, another scenario's gateway, a listener this
 *   test opens on every address of the host, and a address outside, and looks for the platform's data
 *   dir, the repository and the host's password hashes: it reaches its own gateway and nothing else;
 * - a fork bomb, a memory hog and a disk filler each end FAILED (`strategy`) naming their limit;
 * - the TypeScript starter, run alone first and then beside all of them, gives byte-identical results.
 * The limits are set small (`HINDSIGHT_STRATEGY_*`) so that the hogs meet them quickly.
 */
const LIMITS = {
  strategyMemory: '256MiB',
  strategyProcesses: '64',
  strategyCpus: '1',
  strategyScratch: '32MiB',
};
const window = { startTime: '2024-01-02T00:00:00Z', endTime: '2024-01-04T00:00:00Z' };
const subscriptions = [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }];
const TERMINAL = new Set(['COMPLETE', 'FAILED', 'CANCELLED']);
const RESULT_FILES = ['metadata', 'timeseries', 'trades'] as const;

/** One image, what it does chosen by WHAT (env values are single lines, so the script is a file). */
const HOSTILE_SCRIPT = `
probe() {
  if answer=$(printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 "$2" "$3" 2>/dev/null) && [ -n "$answer" ]; then
    echo "$1=answered"
  else
    echo "$1=refused"
  fi
}
case "$WHAT" in
  probe)
    gateway=\${TRADING_GATEWAY_URL#http://}
    probe own-gateway "\${gateway%:*}" "\${gateway##*:}"
    probe listener-via-gateway-address "\${gateway%:*}" "$LISTENER_PORT"
    for target in $TARGETS; do
      address=\${target#*=}
      probe "\${target%%=*}" "\${address%:*}" "\${address##*:}"
    done
    for dir in $HOST_DIRS; do
      if ls "$dir" >/dev/null 2>&1; then echo "sees $dir"; else echo "cannot see $dir"; fi
    done
    if cat /etc/shadow >/dev/null 2>&1; then echo "shadow=readable"; else echo "shadow=unreadable"; fi
    if touch /escaped 2>/dev/null; then echo "root=writable"; else echo "root=read-only"; fi
    ;;
  # The bomb goes off in a subshell and the script's shell execs its sleep: a shell that cannot fork
  # exits at once, and this one must stay until the executor's guard sees the limit.
  fork-bomb) (bomb() { bomb | bomb & }; bomb); exec sleep 60 ;;
  memory-hog) dd if=/dev/zero of=/dev/null bs=512M count=1; sleep 60 ;;
  disk-filler) dd if=/dev/zero of=/tmp/fill bs=1M count=200; sleep 60 ;;
  sleeper) sleep 300 ;;
esac
`;

/** Connects, takes its first batch, then allocates past its memory limit. */
const HOG_AFTER_CONNECTING = connectedPython(`    await ws.recv()
    hog = bytearray(512 * 2**20)
    await asyncio.sleep(60)`);

const APPLETS = ['sh', 'nc', 'dd', 'ls', 'cat', 'echo', 'sleep', 'printf', 'touch'];

/** Listening TCP sockets of this process (`address:port`): where its scenarios' gateways listen. */
function listeningSockets(): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match) inodes.add(match[1] as string);
    } catch {
      // closed while we looked
    }
  }
  const found = new Set<string>();
  for (const line of readFileSync('/proc/self/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[3] !== '0A' || !inodes.has(fields[9] as string)) continue;
    const [hex = '', port = ''] = (fields[1] as string).split(':');
    const address = [6, 4, 2, 0].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join('.');
    found.add(`${address}:${Number.parseInt(port, 16)}`);
  }
  return found;
}

/** A non-loopback IPv4 address of this host outside Docker's bridges. */
function hostAddress(): string {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (name.startsWith('docker') || name.startsWith('br-') || name.startsWith('hs')) continue;
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return found.address;
  }
  return '192.0.2.1';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const executor of ['local', 'docker'] as const) {
  describe(`hostile strategies under the ${executor} executor`, () => {
    const t = withTestPlatform(storageBackends()[0] as ReturnType<typeof storageBackends>[number], {
      settings: {
        workers: '6',
        executor,
        ...LIMITS,
        connectTimeoutSeconds: '300',
        stallTimeoutSeconds: '60',
      },
      platform: { runLimits: { exitGraceMs: 3000 } },
    });
    let listener: Server;
    let listenerPort: number;
    let listenerRequests = 0;
    before(async () => {
      if (executor === 'docker') {
        await new Docker({ socketPath: '/var/run/docker.sock' }).ping().catch((error: Error) => {
          throw new Error(
            `Docker is not reachable (${error.message}): install docker.io and start dockerd (.ci/run does both)`,
          );
        });
      }
      listener = createServer((_request, response) => {
        listenerRequests += 1;
        response.end('ok-listener');
      });
      listenerPort = await new Promise<number>((resolve) =>
        listener.listen(0, '0.0.0.0', () => resolve((listener.address() as AddressInfo).port)),
      );
    });
    after(async () => {
      listener?.close();
      if (executor !== 'docker') return;
      // The images this run pulled (the daemon keeps pulled images as its cache).
      const docker = new Docker({ socketPath: '/var/run/docker.sock' });
      const prefix = `${new URL(t.get().platform.url).host}/v/`;
      for (const image of await docker.listImages()) {
        if ([...(image.RepoTags ?? []), ...(image.RepoDigests ?? [])].some((n) => n.startsWith(prefix))) {
          await docker
            .getImage(image.Id)
            .remove({ force: true })
            .catch(() => undefined);
        }
      }
    });

    it('reach only their own gateway, see none of the host’s files, and end FAILED at the limit they exceed, while a scenario beside them gives byte-identical results', async () => {
      const platform = t.get();
      const owner = await platform.account(`hostile-${executor}`);
      // Under docker the image carries its node; the local sandbox lends it the host's.
      const runtime = executor === 'docker' ? [{ entries: nodeRuntime(), compression: 'none' as const }] : [];
      const starter = await pushVersion(platform, owner.key, {
        layers: [...runtime, { entries: typeScriptStarter() }],
        config: { Cmd: ['node', 'main.js'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
      });
      const hostile = await pushVersion(platform, owner.key, {
        layers: [
          {
            entries: [
              ...busyboxLayer(APPLETS).entries,
              // No /tmp of its own: both executors mount the scratch tmpfs there.
              { path: 'hostile.sh', content: HOSTILE_SCRIPT },
            ],
          },
        ],
        config: { Entrypoint: ['/bin/sh', '/hostile.sh'], Env: [DEFAULT_ENV] },
      });
      const run = scenarios(platform, owner);

      // The honest strategy alone: the reference results.
      const reference = await run.create(starter.versionId);
      assert.equal((await run.finished(reference)).state, 'COMPLETE');
      const referenceFiles = await run.results(reference);

      // A scenario whose gateway waits for a strategy that never connects: a neighbour to attack.
      const before = listeningSockets();
      const neighbour = await run.create(hostile.versionId, { WHAT: 'sleeper' });
      let neighbourGateway: string | undefined;
      for (let i = 0; i < 600 && !neighbourGateway; i += 1) {
        neighbourGateway = [...listeningSockets()].find((socket) => !before.has(socket));
        if (!neighbourGateway) await sleep(100);
      }
      assert.ok(neighbourGateway, 'the neighbour’s gateway listens');

      const host = hostAddress();
      const apiPort = new URL(platform.platform.url).port;
      const targets = [
        'postgres=127.0.0.1:5432',
        `postgres-host-address=${host}:5432`,
        `management-api=127.0.0.1:${apiPort}`,
        `management-api-host-address=${host}:${apiPort}`,
        `other-scenario-gateway=${neighbourGateway}`,
        `listener=127.0.0.1:${listenerPort}`,
        `listener-host-address=${host}:${listenerPort}`,
        'outside=192.0.2.1:80',
      ];
      const hostDirs = [platform.store.dataDir, process.cwd(), '/root', '/home'];
      const prober = await run.create(hostile.versionId, {
        WHAT: 'probe',
        TARGETS: targets.join(' '),
        LISTENER_PORT: String(listenerPort),
        HOST_DIRS: hostDirs.join(' '),
      });
      const bomb = await run.create(hostile.versionId, { WHAT: 'fork-bomb' });
      const hog = await run.create(hostile.versionId, { WHAT: 'memory-hog' });
      const filler = await run.create(hostile.versionId, { WHAT: 'disk-filler' });
      const beside = await run.create(starter.versionId);
      // Under the local executor (the host's python3 and websockets), a hog that first connects.
      const connectedHog =
        executor === 'local'
          ? await run.create(
              (
                await pushPythonScript(
                  platform.api,
                  owner.key,
                  await run.strategyOf(starter.versionId),
                  HOG_AFTER_CONNECTING,
                )
              ).data.versionId,
            )
          : undefined;

      const probed = await run.finished(prober);
      assert.equal(probed.state, 'FAILED', 'the prober never connects to its gateway');
      assert.equal(
        await run.stdout(prober),
        [
          'own-gateway=answered',
          'listener-via-gateway-address=refused',
          ...targets.map((target) => `${target.split('=')[0]}=refused`),
          ...hostDirs.map((dir) => `cannot see ${dir}`),
          'shadow=unreadable',
          'root=read-only',
          '',
        ].join('\n'),
      );
      assert.equal(listenerRequests, 0, 'the host’s listener saw no request');
      assert.equal((await run.cancel(neighbour)).state, 'CANCELLED');

      const expected = [
        [bomb, /ran into its limit of 64 processes and threads and was stopped/],
        [hog, /ran into its memory limit of 256 MiB and was stopped/],
        [filler, /ran into its scratch space limit of 32 MiB \(the writable \/tmp\) and was stopped/],
      ] as const;
      for (const [id, message] of expected) {
        const ended = await run.finished(id);
        assert.equal(ended.state, 'FAILED', JSON.stringify(ended));
        assert.equal(ended.errorType, 'strategy', JSON.stringify(ended));
        assert.match(ended.errorMessage, message);
        assert.match(ended.errorMessage, /before connecting to its gateway/);
      }
      if (connectedHog) {
        const ended = await run.finished(connectedHog);
        assert.equal(ended.errorType, 'strategy', JSON.stringify(ended));
        assert.match(
          ended.errorMessage,
          /^the strategy ran into its memory limit of 256 MiB and was stopped before the backtest ended/,
        );
      }
      const honest = await run.finished(beside);
      assert.equal(honest.state, 'COMPLETE', JSON.stringify(honest));
      const files = await run.results(beside);
      for (const file of RESULT_FILES) {
        assert.ok(
          files[file].equals(referenceFiles[file]),
          `${file} is byte-identical beside the hostile runs`,
        );
      }
    });
  });
}

/** The scenario calls of one account, for this file (each pushed version has a strategy of its own). */
function scenarios(platform: TestPlatform, owner: Account) {
  const { api } = platform;
  const strategyOf = new Map<string, string>();
  const path = (id: string) => `/v1/strategies/${strategyOf.get(id)}/scenarios/${id}`;
  const strategyOfVersion = async (versionId: string) => {
    const strategyId = (await platform.platform.ctx.versions.byId(versionId))?.version.strategyId;
    assert.ok(strategyId, `version ${versionId} exists`);
    return strategyId;
  };
  return {
    strategyOf: strategyOfVersion,
    async create(versionId: string, env?: Record<string, string>): Promise<string> {
      const strategyId = await strategyOfVersion(versionId);
      const created = await api.post(`/v1/strategies/${strategyId}/scenarios`, {
        key: owner.key,
        body: { strategyVersionId: versionId, subscriptions, ...window, ...(env && { env }) },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.scenarioId as string;
      strategyOf.set(id, strategyId);
      return id;
    },
    async finished(id: string) {
      const deadline = Date.now() + 300_000;
      for (;;) {
        const scenario = (await api.get(`/v1/scenarios/${id}`, { key: owner.key })).body.data;
        if (TERMINAL.has(scenario.state)) return scenario;
        if (Date.now() > deadline) throw new Error(`scenario ${id} still ${scenario.state}`);
        await sleep(250);
      }
    },
    async cancel(id: string) {
      const cancelled = await api.post(`${path(id)}/cancel`, { key: owner.key });
      assert.equal(cancelled.status, 200, cancelled.text);
      return this.finished(id);
    },
    async stdout(id: string): Promise<string> {
      const logs = await api.get(`${path(id)}/logs`, { key: owner.key, query: { stream: 'stdout' } });
      assert.equal(logs.status, 200, logs.text);
      return logs.text;
    },
    async results(id: string): Promise<Record<(typeof RESULT_FILES)[number], Buffer>> {
      await ensureZstd();
      const files = {} as Record<(typeof RESULT_FILES)[number], Buffer>;
      for (const file of RESULT_FILES) {
        const response = await fetch(`${api.baseUrl}${path(id)}/${file}`, {
          headers: { 'x-api-key': owner.key },
        });
        assert.equal(response.status, 200, `${file}: ${response.status}`);
        files[file] = Buffer.from(zstdDecompress(new Uint8Array(await response.arrayBuffer())));
      }
      return files;
    },
  };
}
