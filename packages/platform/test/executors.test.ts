import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import {
  createExecutor,
  DockerExecutor,
  ExecutorError,
  type GatewayEndpoint,
  ImageRunError,
  LocalExecutor,
  type PreparedRun,
  type StrategyExit,
} from '../src/executors/index.ts';
import { LayerUnpacker } from '../src/executors/layer-unpack.ts';
import { SANDBOX_GATEWAY_PORT } from '../src/executors/sandbox-network.ts';
import {
  appLayer,
  busyboxLayer,
  DEFAULT_ENV,
  type PushedVersion,
  pushVersion,
  strategyImage,
  tarOf,
  textSink,
} from './support/executor-images.ts';
import { storageBackends, tempDir } from './support/storage-backends.ts';
import { withTestPlatform } from './support/test-platform.ts';

/**
 * The executors against a real platform (one for the file): images pushed to its registry and fetched
 * with a pull token.
 * - `local`: pulled over HTTP, unpacked into a cache and run under bubblewrap (the host's python3 and
 *   node for `/app` images, busybox for a full-rootfs image), and without it in trusted-code mode.
 * - `docker`: the real daemon pulls busybox images from the registry by digest; the container reaches
 *   the test's gateway on its private network and nothing else. Docker must be running (`.ci/run`
 *   installs docker.io and starts dockerd): these tests fail, never skip, without it.
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

/** A gateway endpoint for strategies that never connect to theirs. */
const NO_GATEWAY: GatewayEndpoint = { port: 40_009, accept: (socket) => socket.destroy() };

async function runToEnd(
  prepared: PreparedRun,
  env: Record<string, string> = {},
  gateway: GatewayEndpoint = NO_GATEWAY,
): Promise<Ran> {
  const stdout = textSink();
  const stderr = textSink();
  const strategy = await prepared.start({ env, gateway, stdout: stdout.write, stderr: stderr.write });
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

const MiB = 1024 ** 2;

/** Where this process's strategies' cgroups are made in a v1 hierarchy (what these machines have). */
function cgroupParent(controller: string): string {
  const own = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find(([, controllers]) => controllers?.split(',').includes(controller))?.[2];
  assert.ok(own !== undefined, `a v1 ${controller} hierarchy (these machines have cgroup v1)`);
  return join('/sys/fs/cgroup', controller, own, 'hindsight');
}

/** Connects to each `label=host:port` of TARGETS and prints what it found; then what it can see. */
const NETWORK_PROBE = `import os, socket
for target in os.environ["TARGETS"].split():
    label, address = target.split("=")
    host, port = address.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=3) as s:
            s.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
            body = s.makefile("rb").read().decode()
            print(label + "=" + (body.split("\\r\\n\\r\\n", 1)[1] if "\\r\\n\\r\\n" in body else "no answer"))
    except ConnectionRefusedError:
        print(label + "=refused")
    except OSError as error:
        print(label + "=unreachable" if error.errno in (101, 113) else label + "=" + str(error))
listening = []
for line in open("/proc/net/tcp").read().splitlines()[1:]:
    local, state = line.split()[1], line.split()[3]
    if state == "0A":
        address, port = local.split(":")
        listening.append(".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0)) + ":" + str(int(port, 16)))
print("listening=" + ",".join(listening))
print("interfaces=" + ",".join(sorted(name for _, name in socket.if_nameindex())))
try:
    open("/escaped", "w")
    print("root=writable")
except OSError:
    print("root=read-only")
`;

/** Leaves a listening daemon behind (WHAT=leave-a-daemon), or looks for one; says which namespace it is in. */
const REUSE_PROBE = `import os, socket, sys, time
print("netns=" + os.readlink("/proc/self/ns/net"))
with socket.create_connection(("127.0.0.1", int(os.environ["GATEWAY_PORT"])), timeout=3) as s:
    s.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
    print("gateway=" + s.makefile("rb").read().decode().split("\\r\\n\\r\\n", 1)[-1])
if os.environ["WHAT"] == "leave-a-daemon":
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            server = socket.socket()
            server.bind(("127.0.0.1", 9999))
            server.listen()
            time.sleep(600)
        os._exit(0)
    time.sleep(0.5)
    sys.exit(0)
try:
    socket.create_connection(("127.0.0.1", 9999), timeout=3)
    print("daemon=answered")
except ConnectionRefusedError:
    print("daemon=refused")
for line in open("/proc/net/tcp").read().splitlines()[1:]:
    local, state = line.split()[1], line.split()[3]
    if state == "0A":
        address, port = local.split(":")
        print("listening=" + ".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0)) + ":" + str(int(port, 16)))
`;

/** Exceeds one limit (WHAT), or stays within all of them. */
const LIMITS_PROBE = `import os, subprocess, sys, time
what = os.environ["WHAT"]
if what == "memory":
    hog = bytearray(512 * 2**20)
elif what == "processes":
    subprocess.run(["/bin/sh", "-c", "f() { f | f & }; f; sleep 30"])
elif what in ("scratch", "scratch-exit"):
    try:
        with open("/tmp/fill", "wb") as f:
            while True:
                f.write(b"x" * 2**20)
    except OSError as error:
        print(error, file=sys.stderr)
    if what == "scratch-exit":
        sys.exit(1)
    time.sleep(30)
elif what == "count-forks":
    children = []
    try:
        while len(children) < 100:
            pid = os.fork()
            if pid == 0:
                time.sleep(5)
                os._exit(0)
            children.append(pid)
    except OSError:
        pass
    print("forked=%d" % len(children), flush=True)
    for pid in children:
        os.kill(pid, 9)
else:
    import signal
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    data = bytearray(32 * 2**20)
    with open("/tmp/within", "wb") as f:
        f.write(b"x" * (8 * 2**20))
    print("up", flush=True)
    time.sleep(60)
`;

describe('image layers', () => {
  it('stay inside the root: links in the way are followed inside it, and `..` stops at it', async () => {
    const outside = tempDir('outside');
    const root = tempDir('rootfs');
    const unpacker = new LayerUnpacker(root);
    const apply = async (entries: Parameters<typeof tarOf>[0]) =>
      unpacker.apply(Readable.from([await tarOf(entries)]), 'application/vnd.oci.image.layer.v1.tar');
    await apply([
      { path: 'escape', link: outside },
      { path: 'relative', link: `../../../../..${outside}` },
    ]);
    await apply([
      { path: 'escape/through-absolute', content: 'a' },
      { path: 'relative/through-relative', content: 'b' },
      { path: '../../../climbing', content: 'c' },
      // A folder replaced by a link in the same layer: its mode is not applied through the link.
      { path: 'dir/', dir: true },
      { path: 'dir', link: outside },
    ]);
    assert.deepEqual(readdirSync(outside), [], 'nothing was written outside the root');
    assert.equal(readFileSync(join(root, outside, 'through-absolute'), 'utf8'), 'a');
    assert.equal(readFileSync(join(root, outside, 'through-relative'), 'utf8'), 'b');
    assert.equal(readFileSync(join(root, 'climbing'), 'utf8'), 'c');
    assert.equal(readlinkSync(join(root, 'dir')), outside);
    assert.equal(lstatSync(outside).mode & 0o777, 0o700);
  });
});

describe('local executor', () => {
  let key: string;
  let sandboxed: LocalExecutor;
  let python: PushedVersion;
  const executors: LocalExecutor[] = [];
  const servers: Server[] = [];
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
    for (const server of servers) server.close();
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

  it('keeps the cache within its bound, evicting the least recently used images no run uses', async () => {
    const small = executor({ maxCacheBytes: 1 });
    const other = await pushVersion(t.get(), key, {
      layers: [appLayer({ 'main.py': 'print("other")\n' })],
      config: { Cmd: ['python3', 'main.py'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
    });
    const entry = (digest: string) => join(small.cache.dir, 'images', digest.replace(':', '-'));
    const first = await small.prepare({ scenarioId: 's-e1', image: python.image });
    await first.release();
    const second = await small.prepare({ scenarioId: 's-e2', image: other.image });
    assert.equal(existsSync(entry(python.image.digest)), false, 'the unused image was evicted');
    assert.equal(existsSync(entry(other.image.digest)), true);
    // The image in use stays, over the bound.
    const third = await small.prepare({ scenarioId: 's-e3', image: python.image });
    assert.equal(existsSync(entry(other.image.digest)), true);
    assert.equal(small.cache.fetches, 3);
    assert.equal((await runToEnd(second)).stdout, 'other\n');
    await Promise.all([second.release(), third.release()]);
  });

  it('stop sends SIGTERM to the strategy, then SIGKILL after the grace', async () => {
    // One image; the run's env picks what SIGTERM does.
    const v = await pushVersion(t.get(), key, {
      layers: [
        appLayer({
          'main.py':
            'import os, signal, sys, time\nbye = lambda *a: (print("bye", flush=True), sys.exit(0))\nsignal.signal(signal.SIGTERM, bye if os.environ["ON_TERM"] == "exit" else signal.SIG_IGN)\nprint("up", flush=True)\ntime.sleep(60)\n',
        }),
      ],
      config: { Cmd: ['python3', 'main.py'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
    });
    const startUp = async (onTerm: string) => {
      const run = await sandboxed.prepare({ scenarioId: 's-stop', image: v.image });
      const stdout = textSink();
      const strategy = await run.start({
        env: { ON_TERM: onTerm },
        gateway: NO_GATEWAY,
        stdout: stdout.write,
        stderr: () => {},
      });
      for (let i = 0; i < 200 && !stdout.text().includes('up'); i += 1) await sleep(25);
      assert.match(stdout.text(), /up/);
      return { run, strategy, stdout };
    };

    const polite = await startUp('exit');
    let began = Date.now();
    assert.deepEqual(await polite.strategy.stop(5000), { code: 0, signal: null });
    assert.ok(
      Date.now() - began < 2000,
      `a strategy that handles SIGTERM ends at once (${Date.now() - began} ms)`,
    );
    assert.match(polite.stdout.text(), /bye/);
    await polite.run.release();

    const stubborn = await startUp('ignore');
    began = Date.now();
    const exit = await stubborn.strategy.stop(500);
    const took = Date.now() - began;
    assert.ok(took >= 450 && took < 2000, `SIGKILL after the 500 ms grace (${took} ms)`);
    assert.ok(exit.signal === 'SIGKILL' || exit.code === 137, `killed: ${JSON.stringify(exit)}`);
    assert.deepEqual(await stubborn.strategy.exited, exit);
    await stubborn.run.release();
  });

  it('rejects a cancelled prepare promptly', async () => {
    // A registry that accepts connections and never answers.
    const silent = createServer(() => {});
    await listen(silent, '127.0.0.1');
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

  it('gives the strategy its own network: its gateway at the loopback address it is given, and nothing else', async () => {
    // The scenario's gateway as the worker runs it: an HTTP server on the host's loopback, to which the
    // executor hands the connections the strategy makes inside its sandbox.
    const gateway = answering('ok-gateway');
    const hostLoopback = answering('ok-host');
    const hostEverywhere = answering('ok-host');
    servers.push(gateway, hostLoopback, hostEverywhere);
    const gatewayPort = await listen(gateway, '127.0.0.1');
    const loopbackPort = await listen(hostLoopback, '127.0.0.1');
    const everywherePort = await listen(hostEverywhere, '0.0.0.0');
    const v = await pushVersion(t.get(), key, {
      layers: [appLayer({ 'main.py': NETWORK_PROBE })],
      config: { Cmd: ['python3', 'main.py'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
    });
    const prepared = await sandboxed.prepare({ scenarioId: 's-network', image: v.image });
    // The sandbox's loopback has the gateway at a port of its own; the host's port is not there.
    const inside = prepared.gatewayAdvertisedPort;
    assert.ok(inside !== undefined && inside !== gatewayPort);
    const ran = await runToEnd(
      prepared,
      {
        TARGETS: [
          `gateway=127.0.0.1:${inside}`,
          `gateway-host-port=127.0.0.1:${gatewayPort}`,
          `host-loopback=127.0.0.1:${loopbackPort}`,
          `host-everywhere=127.0.0.1:${everywherePort}`,
          `host-address=${hostAddress() ?? '192.0.2.1'}:${everywherePort}`,
          'postgres=127.0.0.1:5432',
          'outside=192.0.2.1:80',
        ].join(' '),
      },
      { port: gatewayPort, accept: (socket) => gateway.emit('connection', socket) },
    );
    await prepared.release();
    assert.equal(ran.stderr, '');
    assert.deepEqual(ran.exit, { code: 0, signal: null });
    assert.equal(
      ran.stdout,
      [
        'gateway=ok-gateway',
        'gateway-host-port=refused',
        'host-loopback=refused',
        'host-everywhere=refused',
        'host-address=unreachable',
        'postgres=refused',
        'outside=unreachable',
        // Its own listening sockets: only the gateway's, on its own loopback.
        `listening=127.0.0.1:${inside}`,
        'interfaces=lo',
        'root=read-only',
        '',
      ].join('\n'),
    );
  });

  it('gives a network namespace to one run after another, with nothing of the last run left in it', async () => {
    // The first run leaves a daemon listening (double fork) and exits; the next looks for it.
    const v = await pushVersion(t.get(), key, {
      layers: [appLayer({ 'main.py': REUSE_PROBE })],
      config: { Cmd: ['python3', 'main.py'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
    });
    // Each run's own gateway, as the worker gives each run one.
    const runOn = async (on: LocalExecutor, what: string) => {
      const gateway = answering(`ok-${what}`);
      servers.push(gateway);
      const prepared = await on.prepare({ scenarioId: `s-reuse-${what}`, image: v.image });
      const ran = await runToEnd(
        prepared,
        { WHAT: what, GATEWAY_PORT: String(prepared.gatewayAdvertisedPort) },
        { port: 40_009, accept: (socket) => gateway.emit('connection', socket) },
      );
      await prepared.release();
      assert.equal(ran.exit.code, 0, ran.stderr);
      return ran.stdout;
    };
    const namespace = (out: string) => /^netns=(.*)$/m.exec(out)?.[1];
    const reusing = executor();
    // Two at once have a namespace each, each run reaching its own gateway.
    const [one, other] = await Promise.all([runOn(reusing, 'look-1'), runOn(reusing, 'look-2')]);
    assert.notEqual(namespace(one), namespace(other));
    assert.match(one, /^gateway=ok-look-1$/m);
    assert.match(other, /^gateway=ok-look-2$/m);
    const first = await runOn(reusing, 'leave-a-daemon');
    const second = await runOn(reusing, 'look');
    assert.equal(namespace(first), namespace(second), 'the same namespace');
    assert.match(first, /^gateway=ok-leave-a-daemon$/m);
    assert.match(second, /^gateway=ok-look$/m);
    assert.match(second, /^daemon=refused$/m);
    assert.match(second, new RegExp(`^listening=127\\.0\\.0\\.1:${SANDBOX_GATEWAY_PORT}$`, 'm'));
    // Without a cgroup to tell that nothing of a run is left, a namespace serves one run only.
    const unsure = executor({ cgroups: false });
    const once = await runOn(unsure, 'look');
    const again = await runOn(unsure, 'look');
    assert.notEqual(namespace(once), namespace(again));
  });

  it('stops a strategy at its memory, process or scratch limit and names the limit; CPU is bounded by its cgroup', async () => {
    const limits = { memoryBytes: 96 * MiB, processes: 24, cpus: 0.5, scratchBytes: 16 * MiB };
    const limited = executor({ limits });
    assert.match(limited.enforcement, /^cgroup v[12]$/, 'the tests run as root, who may create cgroups');
    const v = await pushVersion(t.get(), key, {
      layers: [appLayer({ 'main.py': LIMITS_PROBE })],
      config: { Cmd: ['python3', 'main.py'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
    });
    const ranWith = async (what: string) => {
      const prepared = await limited.prepare({ scenarioId: `s-limit-${what}`, image: v.image });
      const ran = await runToEnd(prepared, { WHAT: what });
      await prepared.release();
      return ran;
    };
    const memory = await ranWith('memory');
    assert.deepEqual(memory.exit.breach, { resource: 'memory', limit: 96 * MiB }, JSON.stringify(memory));
    const processes = await ranWith('processes');
    assert.deepEqual(processes.exit.breach, { resource: 'processes', limit: 24 }, JSON.stringify(processes));
    // Filled, then waiting: stopped by the watch. Filled, then dead of the error: named at its exit.
    const scratch = await ranWith('scratch');
    assert.deepEqual(scratch.exit.breach, { resource: 'scratch', limit: 16 * MiB }, JSON.stringify(scratch));
    const scratchThenExit = await ranWith('scratch-exit');
    assert.deepEqual(scratchThenExit.exit.breach, { resource: 'scratch', limit: 16 * MiB });
    assert.equal(scratchThenExit.exit.code, 1);
    // Within its limits a strategy notices none of them; its group holds every limit, CPU's included.
    const prepared = await limited.prepare({ scenarioId: 's-limit-within', image: v.image });
    const stdout = textSink();
    const stderr = textSink();
    const strategy = await prepared.start({
      env: { WHAT: 'within' },
      gateway: NO_GATEWAY,
      stdout: stdout.write,
      stderr: stderr.write,
    });
    for (let i = 0; i < 400 && !stdout.text().includes('up'); i += 1) await sleep(25);
    assert.equal(stdout.text(), 'up\n', stderr.text());
    const groups = readdirSync(cgroupParent('cpu')).filter((name) => name.startsWith('s-limit-within-'));
    assert.equal(groups.length, 1);
    const limitOf = (controller: string, file: string) =>
      readFileSync(join(cgroupParent(controller), groups[0] as string, file), 'utf8').trim();
    assert.equal(limitOf('cpu', 'cpu.cfs_quota_us'), '50000');
    assert.equal(limitOf('cpu', 'cpu.cfs_period_us'), '100000');
    assert.equal(limitOf('memory', 'memory.limit_in_bytes'), String(96 * MiB));
    assert.equal(limitOf('pids', 'pids.max'), '24');
    assert.ok(Number(limitOf('pids', 'pids.current')) >= 2, 'the sandbox runs in the group');
    assert.deepEqual(await strategy.stop(5000), { code: 0, signal: null });
    await prepared.release();
    assert.deepEqual(
      readdirSync(cgroupParent('memory')).filter((name) => name.startsWith('s-limit-')),
      [],
      'the runs’ cgroups are removed',
    );
  });

  it('falls back to rlimits without cgroups: allocations and forks are refused, and a failed exit says the limits', async () => {
    const limits = { memoryBytes: 96 * MiB, processes: 24, cpus: 1, scratchBytes: 16 * MiB };
    const limited = executor({ limits, cgroups: false });
    assert.equal(limited.enforcement, 'rlimits');
    const v = await pushVersion(t.get(), key, {
      layers: [appLayer({ 'main.py': LIMITS_PROBE })],
      config: { Cmd: ['python3', 'main.py'], Env: [DEFAULT_ENV], WorkingDir: '/app' },
    });
    const ranWith = async (what: string) => {
      const prepared = await limited.prepare({ scenarioId: `s-rlimit-${what}`, image: v.image });
      const ran = await runToEnd(prepared, { WHAT: what });
      await prepared.release();
      return ran;
    };
    const memory = await ranWith('memory');
    assert.equal(memory.exit.breach, undefined);
    assert.equal(memory.exit.code, 1);
    assert.match(memory.stderr, /MemoryError/);
    assert.equal(memory.exit.limits, 'memory 96 MiB per process, 24 processes, scratch 16 MiB');
    const forks = await ranWith('count-forks');
    const forked = Number(/^forked=(\d+)$/m.exec(forks.stdout)?.[1]);
    assert.ok(forked > 0 && forked < 24, `forks stop below the limit: ${forks.stdout}`);
    // The scratch space is a sized tmpfs either way, and watched.
    const scratch = await ranWith('scratch');
    assert.deepEqual(scratch.exit.breach, { resource: 'scratch', limit: 16 * MiB });
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

const run = promisify(execFile);

const APPLETS = ['sh', 'cat', 'echo', 'sleep', 'nc', 'id', 'grep', 'printf'];

/** Asks `host:port` for `/` from inside the container; prints `<label>=<first body word or "refused">`. */
const probe = (label: string, host: string, port: string) =>
  `if r=$(printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${host} ${port} 2>/dev/null) && [ -n "$r" ]; then echo "${label}=$(echo "$r" | grep -o 'ok-[a-z]*')"; else echo "${label}=refused"; fi`;

/** A non-loopback IPv4 address of this host outside Docker's bridges (the machine's own address). */
function hostAddress(): string | undefined {
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (name.startsWith('docker') || name.startsWith('br-') || name.startsWith('hs')) continue;
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return found.address;
  }
  return undefined;
}

function answering(body: string): Server {
  return createServer((_request, response) => response.end(body));
}

const listen = (server: Server, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('docker executor', () => {
  let key: string;
  let executor: DockerExecutor;
  let docker: Docker;
  let network: PushedVersion;
  const servers: Server[] = [];

  before(async () => {
    docker = new Docker({ socketPath: '/var/run/docker.sock' });
    try {
      await docker.ping();
    } catch (error) {
      throw new Error(
        `Docker is not reachable at /var/run/docker.sock (${(error as Error).message}): install docker.io and start dockerd (.ci/run does both)`,
      );
    }
    executor = createExecutor('docker', { cacheDir: '/nonexistent', docker: { docker } }) as DockerExecutor;
    key = (await t.get().account('docker')).key;
    network = await pushVersion(t.get(), key, {
      layers: [busyboxLayer(APPLETS)],
      config: {
        Entrypoint: ['/bin/sh', '-c'],
        Cmd: [
          [
            'echo "env=$A,$B,$C uid=$(id -u):$(id -g) home=$HOME"',
            'if touch /escaped 2>/dev/null; then echo root=writable; else echo root=read-only; fi',
            'if echo x > /tmp/scratch; then echo tmp=writable; fi',
            probe('gateway', '$GW_HOST', '$GW_PORT'),
            probe('other-port', '$GW_HOST', '$OTHER_PORT'),
            probe('host-address', '$HOST_IP', '$OTHER_PORT'),
            probe('loopback', '127.0.0.1', '$OTHER_PORT'),
            'echo to-stderr >&2',
            'exit 7',
          ].join('; '),
        ],
        Env: [DEFAULT_ENV, 'A=image', 'B=image'],
      },
    });
  });
  after(async () => {
    await executor?.close();
    for (const server of servers) server.close();
    // The images this run pulled (the daemon keeps pulled images as its cache).
    const prefix = `${new URL(t.get().platform.url).host}/v/`;
    for (const image of (await docker?.listImages()) ?? []) {
      const names = [...(image.RepoTags ?? []), ...(image.RepoDigests ?? [])];
      if (names.some((name) => name.startsWith(prefix))) {
        await docker
          .getImage(image.Id)
          .remove({ force: true })
          .catch(() => undefined);
      }
    }
  });

  it('runs the image pulled from the registry by digest, reaching its gateway and nothing else of the host', async () => {
    const prepared = await executor.prepare({ scenarioId: 'docker-network', image: network.image });
    assert.equal(prepared.gatewayBindHost, prepared.gatewayAdvertisedHost);
    assert.match(prepared.gatewayBindHost, /^\d+\.\d+\.\d+\.1$/);
    assert.deepEqual(prepared.imageEnv, { PATH: DEFAULT_ENV.slice(5), A: 'image', B: 'image' });
    // The scenario's gateway on the network's gateway address, and a host service on every address.
    const gateway = answering('ok-gateway');
    const hostService = answering('ok-host');
    servers.push(gateway, hostService);
    const gatewayPort = await listen(gateway, prepared.gatewayBindHost);
    const otherPort = await listen(hostService, '0.0.0.0');
    const stdout = textSink();
    const stderr = textSink();
    const host = prepared.gatewayAdvertisedHost;
    const strategy = await prepared.start({
      env: {
        B: 'run',
        C: 'run',
        TRADING_GATEWAY_URL: `http://${host}:${gatewayPort}`,
        GW_HOST: host,
        GW_PORT: String(gatewayPort),
        OTHER_PORT: String(otherPort),
        HOST_IP: hostAddress() ?? '192.0.2.1',
      },
      gateway: { port: gatewayPort, accept: (socket) => socket.destroy() },
      stdout: stdout.write,
      stderr: stderr.write,
    });
    const exit = await strategy.exited;
    await prepared.release();
    assert.deepEqual(exit, { code: 7, signal: null });
    assert.equal(
      stdout.text(),
      [
        // Not the container's root: nobody, with a writable HOME, on read-only files but /tmp.
        'env=image,run,run uid=65534:65534 home=/tmp',
        'root=read-only',
        'tmp=writable',
        'gateway=ok-gateway',
        'other-port=refused',
        'host-address=refused',
        'loopback=refused',
        '',
      ].join('\n'),
    );
    assert.equal(stderr.text(), 'to-stderr\n');
  });

  it('runs a container as the user its image names', async () => {
    const v = await pushVersion(t.get(), key, {
      layers: [busyboxLayer(APPLETS)],
      config: {
        Entrypoint: ['/bin/sh', '-c', 'echo "uid=$(id -u):$(id -g)"'],
        Env: [DEFAULT_ENV],
        User: '1234:5678',
      },
    });
    const prepared = await executor.prepare({ scenarioId: 'docker-user', image: v.image });
    const ran = await runToEnd(prepared);
    await prepared.release();
    assert.deepEqual(ran.exit, { code: 0, signal: null });
    assert.equal(ran.stdout, 'uid=1234:5678\n');
  });

  it('stops a container with SIGTERM then SIGKILL after the grace, and release removes container, network and rules', async () => {
    // One image (one pull); the run's env carries the script.
    const v = await pushVersion(t.get(), key, {
      layers: [busyboxLayer(APPLETS)],
      config: { Entrypoint: ['/bin/sh', '-c', 'eval "$SCRIPT"'], Env: [DEFAULT_ENV] },
    });
    const startUp = async (script: string) => {
      const prepared = await executor.prepare({ scenarioId: 'docker-stop', image: v.image });
      const stdout = textSink();
      const strategy = await prepared.start({
        env: { SCRIPT: script },
        gateway: NO_GATEWAY,
        stdout: stdout.write,
        stderr: () => {},
      });
      for (let i = 0; i < 200 && !stdout.text().includes('up'); i += 1) await sleep(25);
      assert.match(stdout.text(), /up/);
      return { prepared, strategy, stdout };
    };
    const polite = await startUp("trap 'echo bye; exit 0' TERM; echo up; while true; do sleep 0.1; done");
    let began = Date.now();
    assert.deepEqual(await polite.strategy.stop(5000), { code: 0, signal: null });
    assert.ok(Date.now() - began < 2000, `SIGTERM reached the strategy (${Date.now() - began} ms)`);
    assert.match(polite.stdout.text(), /bye/);

    const stubborn = await startUp("trap '' TERM; echo up; while true; do sleep 0.1; done");
    began = Date.now();
    const exit = await stubborn.strategy.stop(500);
    const took = Date.now() - began;
    assert.ok(took >= 450 && took < 2500, `killed after the 500 ms grace (${took} ms)`);
    assert.equal(exit.code, 137);

    for (const { prepared } of [polite, stubborn]) {
      const { networkName } = prepared as PreparedRun & { networkName: string };
      await prepared.release();
      await prepared.release();
      await assert.rejects(docker.getContainer(`${networkName}-strategy`).inspect(), { statusCode: 404 });
      await assert.rejects(docker.getNetwork(networkName).inspect(), { statusCode: 404 });
    }
    const rules = (await run('iptables', ['-w', '5', '-S', 'INPUT'])).stdout;
    assert.doesNotMatch(rules, new RegExp(`hindsight:${executor.instanceId}`));
  });

  it('refuses an image without a command, reports a missing one as exit 127, and refuses an unreachable registry, a missing daemon and a cancelled pull', async () => {
    const v = await pushVersion(t.get(), key, {
      layers: [busyboxLayer(APPLETS)],
      config: { Env: [DEFAULT_ENV] },
    });
    await assert.rejects(executor.prepare({ scenarioId: 'docker-nocmd', image: v.image }), ImageRunError);
    const left = await docker.listNetworks({
      filters: { label: [`org.hindsight.executor=${executor.instanceId}`] },
    });
    assert.deepEqual(left, [], 'no network is left behind');

    const missing = await pushVersion(t.get(), key, {
      layers: [busyboxLayer(APPLETS)],
      config: { Cmd: ['/bin/no-such-program'], Env: [DEFAULT_ENV] },
    });
    // docker-init (PID 1) reports a command it cannot run as exit 127, the way a shell does.
    const prepared = await executor.prepare({ scenarioId: 'docker-missing', image: missing.image });
    const stderr = textSink();
    const strategy = await prepared.start({
      env: {},
      gateway: NO_GATEWAY,
      stdout: () => {},
      stderr: stderr.write,
    });
    assert.equal((await strategy.exited).code, 127);
    assert.match(stderr.text(), /no-such-program/);
    await prepared.release();

    const unreachable = { ...network.image, registryUrl: 'http://127.0.0.1:1' };
    await assert.rejects(
      executor.prepare({ scenarioId: 'docker-unreachable', image: unreachable }),
      ExecutorError,
    );
    const noDaemon = new DockerExecutor({ socketPath: '/nonexistent/docker.sock' });
    await assert.rejects(
      noDaemon.prepare({ scenarioId: 'docker-down', image: network.image }),
      (error: Error) => {
        assert.ok(error instanceof ExecutorError, String(error));
        assert.match(error.message, /Docker daemon is not reachable/);
        return true;
      },
    );

    // A registry that accepts connections and never answers: the pull hangs until the cancel.
    const silent = createServer(() => {});
    servers.push(silent);
    const port = await listen(silent, '127.0.0.1');
    const controller = new AbortController();
    const hanging = { ...network.image, registryUrl: `http://127.0.0.1:${port}` };
    const pending = executor.prepare({
      scenarioId: 'docker-cancel',
      image: hanging,
      signal: controller.signal,
    });
    await sleep(500);
    const began = Date.now();
    controller.abort();
    await assert.rejects(pending, { name: 'AbortError' });
    assert.ok(Date.now() - began < 500);
    silent.closeAllConnections();
  });
});
