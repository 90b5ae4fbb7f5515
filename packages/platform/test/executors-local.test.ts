import assert from 'node:assert/strict';
import { chmodSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createExecutor,
  ExecutorError,
  ImageRunError,
  LocalExecutor,
  type PreparedRun,
  type StrategyExit,
} from '../src/executors/index.ts';
import {
  appLayer,
  busyboxLayer,
  DEFAULT_ENV,
  type PushedVersion,
  pushVersion,
  strategyImage,
  textSink,
} from './support/executor-images.ts';
import { storageBackends, tempDir } from './support/storage-backends.ts';
import { withTestPlatform } from './support/test-platform.ts';

/**
 * The `local` executor against a real platform: images pushed to its registry, pulled over HTTP with a
 * pull token, unpacked into a cache and run under bubblewrap (the host's python3 and node for `/app`
 * images, busybox for a full-rootfs image), and without it in trusted-code mode.
 */
const t = withTestPlatform(storageBackends()[0] as ReturnType<typeof storageBackends>[number]);

/** A cache folder strategies (nobody, when the tests run as root) can reach. */
function cacheDir(): string {
  const dir = tempDir('executor-cache');
  chmodSync(dir, 0o755);
  return dir;
}

interface Ran {
  exit: StrategyExit;
  stdout: string;
  stderr: string;
}

async function runToEnd(prepared: PreparedRun, env: Record<string, string> = {}): Promise<Ran> {
  const stdout = textSink();
  const stderr = textSink();
  const strategy = await prepared.start({ env, stdout: stdout.write, stderr: stderr.write });
  const exit = await strategy.exited;
  return { exit, stdout: stdout.text(), stderr: stderr.text() };
}

const PYTHON_MAIN = `import os, sys
print("cwd=" + os.getcwd())
print("env=" + ",".join(k + ":" + os.environ.get(k, "-") for k in ["A", "B", "C", "HOME"]))
print("pid=%d uid=%d" % (os.getpid(), os.getuid()))
print("root-visible=%s work-visible=%s" % (os.path.exists("/root"), os.path.exists("/work")))
print("to stderr", file=sys.stderr)
sys.exit(3)
`;

describe('local executor', () => {
  let key: string;
  let sandboxed: LocalExecutor;
  let python: PushedVersion;
  const executors: LocalExecutor[] = [];
  const executor = (options: Partial<ConstructorParameters<typeof LocalExecutor>[0]> = {}) => {
    const created = new LocalExecutor({ cacheDir: cacheDir(), ...options });
    executors.push(created);
    return created;
  };

  before(async () => {
    key = (await t.get().account('executor')).key;
    sandboxed = executor();
    python = await pushVersion(t.get(), key, {
      layers: [appLayer({ 'main.py': PYTHON_MAIN })],
      config: { Cmd: ['python3', 'main.py'], Env: [DEFAULT_ENV, 'A=image', 'B=image'], WorkingDir: '/app' },
    });
  });
  after(async () => {
    await Promise.all(executors.map((e) => e.close()));
  });

  it('runs an /app image on the host python3 in a sandbox, with the run env over the image env', async () => {
    assert.ok(sandboxed.sandboxed, 'bubblewrap is installed (.ci/run installs the bubblewrap package)');
    const prepared = await sandboxed.prepare({ scenarioId: 's-python', image: python.image });
    assert.equal(prepared.gatewayBindHost, '127.0.0.1');
    assert.equal(prepared.gatewayAdvertisedHost, '127.0.0.1');
    assert.deepEqual(prepared.imageEnv, { PATH: DEFAULT_ENV.slice(5), A: 'image', B: 'image' });
    const ran = await runToEnd(prepared, { B: 'run', C: 'run' });
    await prepared.release();
    assert.deepEqual(ran.exit, { code: 3, signal: null });
    assert.match(ran.stdout, /^cwd=\/app$/m);
    assert.match(ran.stdout, /^env=A:image,B:run,C:run,HOME:\/tmp$/m);
    // Its own PID namespace (bwrap's init is 1), and an unprivileged user when the worker is root.
    const [, pid, uid] = /pid=(\d+) uid=(\d+)/.exec(ran.stdout) ?? [];
    assert.equal(pid, '2');
    if (process.getuid?.() === 0) assert.equal(uid, '65534');
    assert.match(ran.stdout, /root-visible=False work-visible=False/);
    assert.equal(ran.stderr, 'to stderr\n');
  });

  it('runs a node script on the host node', async () => {
    const v = await pushVersion(t.get(), key, {
      layers: [appLayer({ 'main.js': 'console.log("node " + process.version + " in " + process.cwd());\n' })],
      config: { Cmd: ['node', 'main.js'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
    });
    const prepared = await sandboxed.prepare({ scenarioId: 's-node', image: v.image });
    const ran = await runToEnd(prepared);
    await prepared.release();
    assert.deepEqual(ran.exit, { code: 0, signal: null });
    assert.equal(ran.stdout, `node ${process.version} in /app\n`);
  });

  it('runs a full-rootfs image on its own files, with whiteouts and opaque folders applied, from gzip, tar and zstd layers', async () => {
    const v = await pushVersion(t.get(), key, {
      layers: [
        {
          ...busyboxLayer(),
          entries: [
            ...busyboxLayer().entries,
            { path: 'data/keep', content: 'kept\n' },
            { path: 'data/gone', content: 'whited out\n' },
            { path: 'data/old/', dir: true },
            { path: 'data/old/inner', content: 'whited out too\n' },
            { path: 'opaque/lower', content: 'hidden by the opaque marker\n' },
            { path: 'etc/marker', content: 'first layer\n' },
          ],
        },
        {
          compression: 'none',
          entries: [
            { path: 'data/.wh.gone', content: '' },
            { path: 'data/.wh.old', content: '' },
            { path: 'opaque/upper', content: 'upper\n' },
            { path: 'opaque/.wh..wh..opq', content: '' },
          ],
        },
        { compression: 'zstd', entries: [{ path: 'etc/marker', content: 'third layer\n' }] },
      ],
      config: {
        Entrypoint: ['/bin/sh', '-c'],
        Cmd: ['echo bin: $(ls /bin); echo data: $(ls /data); echo opaque: $(ls /opaque); cat /etc/marker'],
        Env: [DEFAULT_ENV],
      },
    });
    const prepared = await sandboxed.prepare({ scenarioId: 's-rootfs', image: v.image });
    const ran = await runToEnd(prepared);
    await prepared.release();
    assert.equal(ran.stderr, '');
    assert.deepEqual(ran.exit, { code: 0, signal: null });
    // /bin is the image's (busybox and its applets), not the host's hundreds of programs.
    assert.equal(
      ran.stdout,
      'bin: busybox cat echo id ls nc sh sleep\ndata: keep\nopaque: upper\nthird layer\n',
    );
  });

  it('resolves a multi-platform index to linux/amd64', async () => {
    const variant = (architecture: string) => ({
      architecture,
      layers: [appLayer({ 'main.py': `print("${architecture}")\n` })],
      config: { Cmd: ['python3', 'main.py'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
    });
    const v = await pushVersion(t.get(), key, variant('arm64'), variant('amd64'));
    const prepared = await sandboxed.prepare({ scenarioId: 's-index', image: v.image });
    const ran = await runToEnd(prepared);
    await prepared.release();
    assert.equal(ran.stdout, 'amd64\n');
  });

  it('fetches an image once: concurrent and later prepares of a digest share the cached copy', async () => {
    const fresh = executor();
    const [a, b] = await Promise.all([
      fresh.prepare({ scenarioId: 's-a', image: python.image }),
      fresh.prepare({ scenarioId: 's-b', image: python.image }),
    ]);
    const c = await fresh.prepare({ scenarioId: 's-c', image: python.image });
    assert.equal(fresh.cache.fetches, 1);
    // A second executor on the same folder (another worker process) finds it on disk.
    const sibling = executor({ cacheDir: fresh.cache.dir });
    const d = await sibling.prepare({ scenarioId: 's-d', image: python.image });
    assert.equal(sibling.cache.fetches, 0);
    assert.equal((await runToEnd(d)).exit.code, 3);
    await Promise.all([a, b, c, d].map((run) => run.release()));
    // The cache is bounded: clearing removes every entry no run uses.
    assert.deepEqual(await fresh.cache.clear(), [python.image.digest]);
    assert.equal(existsSync(join(fresh.cache.dir, 'images')), true);
  });

  it('stop sends SIGTERM to the strategy, then SIGKILL after the grace', async () => {
    const script = (onTerm: string) =>
      `import signal, sys, time\nsignal.signal(signal.SIGTERM, ${onTerm})\nprint("up", flush=True)\ntime.sleep(60)\n`;
    const startUp = async (onTerm: string) => {
      const v = await pushVersion(t.get(), key, {
        layers: [appLayer({ 'main.py': script(onTerm) })],
        config: { Cmd: ['python3', 'main.py'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
      });
      const run = await sandboxed.prepare({ scenarioId: 's-stop', image: v.image });
      const stdout = textSink();
      const strategy = await run.start({ env: {}, stdout: stdout.write, stderr: () => {} });
      for (let i = 0; i < 200 && !stdout.text().includes('up'); i += 1) await sleep(25);
      assert.match(stdout.text(), /up/);
      return { run, strategy, stdout };
    };

    const polite = await startUp('lambda *a: (print("bye", flush=True), sys.exit(0))');
    let began = Date.now();
    assert.deepEqual(await polite.strategy.stop(5000), { code: 0, signal: null });
    assert.ok(
      Date.now() - began < 2000,
      `a strategy that handles SIGTERM ends at once (${Date.now() - began} ms)`,
    );
    assert.match(polite.stdout.text(), /bye/);
    await polite.run.release();

    const stubborn = await startUp('signal.SIG_IGN');
    began = Date.now();
    const exit = await stubborn.strategy.stop(500);
    const took = Date.now() - began;
    assert.ok(took >= 450 && took < 2000, `SIGKILL after the 500 ms grace (${took} ms)`);
    assert.notDeepEqual(exit, { code: 0, signal: null });
    assert.deepEqual(await stubborn.strategy.exited, exit);
    await stubborn.run.release();
  });

  it('rejects a cancelled prepare promptly', async () => {
    // A registry that accepts connections and never answers.
    const silent = createServer(() => {});
    await listen(silent);
    const image = await strategyImage(t.get(), python.versionId, python.image.digest);
    image.registryUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const controller = new AbortController();
    const fresh = executor();
    const pending = fresh.prepare({ scenarioId: 's-cancel', image, signal: controller.signal });
    await sleep(300);
    const began = Date.now();
    controller.abort();
    await assert.rejects(pending, { name: 'AbortError' });
    assert.ok(Date.now() - began < 500);
    silent.closeAllConnections();
    silent.close();
  });

  it('refuses an image without Entrypoint or Cmd (ImageRunError) and an unreachable registry (ExecutorError)', async () => {
    const v = await pushVersion(t.get(), key, {
      layers: [appLayer({ 'main.py': '' })],
      config: { Env: [DEFAULT_ENV] },
    });
    await assert.rejects(sandboxed.prepare({ scenarioId: 's-nocmd', image: v.image }), (error: Error) => {
      assert.ok(error instanceof ImageRunError, String(error));
      assert.match(error.message, /neither Entrypoint nor Cmd/);
      return true;
    });
    const image = { ...python.image, registryUrl: 'http://127.0.0.1:1' };
    await assert.rejects(executor().prepare({ scenarioId: 's-unreachable', image }), (error: Error) => {
      assert.ok(error instanceof ExecutorError, String(error));
      assert.match(error.message, /unreachable/);
      return true;
    });
    const forbidden = { ...python.image, pullToken: 'not-a-token' };
    await assert.rejects(executor().prepare({ scenarioId: 's-401', image: forbidden }), ExecutorError);
  });

  it('runs the entrypoint directly with the unpacked WorkingDir as cwd in trusted-code mode', async () => {
    const warnings: string[] = [];
    const trusted = createExecutor('local', {
      cacheDir: cacheDir(),
      local: { bwrap: false },
      log: { warn: (message) => warnings.push(message), info: () => {} },
    }) as LocalExecutor;
    executors.push(trusted);
    assert.equal(trusted.sandboxed, false);
    assert.match(warnings.join('\n'), /trusted-code mode/);
    const prepared = await trusted.prepare({ scenarioId: 's-trusted', image: python.image });
    const ran = await runToEnd(prepared, { C: 'run' });
    await prepared.release();
    assert.equal(ran.exit.code, 3);
    const cwd = /^cwd=(.*)$/m.exec(ran.stdout)?.[1] ?? '';
    assert.equal(
      cwd,
      join(trusted.cache.dir, 'images', python.image.digest.replace(':', '-'), 'rootfs', 'app'),
    );
    assert.match(ran.stdout, /^env=A:image,B:image,C:run,HOME:\/tmp$/m);
    assert.doesNotMatch(ran.stdout, /pid=2 /);
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const listen = (server: Server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
