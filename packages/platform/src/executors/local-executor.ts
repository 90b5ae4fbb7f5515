import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  bubblewrapArgs,
  DEFAULT_HOST_PATHS,
  findBubblewrap,
  probeBubblewrap,
  type SandboxUser,
  sandboxRoot,
} from './bubblewrap.ts';
import { CgroupUnavailableError, cgroupSupport, StrategyCgroup, sweepStaleCgroups } from './cgroups.ts';
import { ChildStrategyProcess } from './child-process.ts';
import {
  type Executor,
  ExecutorError,
  ImageRunError,
  type PreparedRun,
  type PrepareRequest,
  type StartRequest,
  type StrategyProcess,
} from './executor.ts';
import { type CachedImage, ImageCache } from './image-cache.ts';
import { DEFAULT_PATH, imageCommand } from './image-command.ts';
import { ResourceGuard } from './resource-guard.ts';
import {
  findNsenter,
  SANDBOX_GATEWAY_PORT,
  type SandboxNetwork,
  SandboxNetworks,
} from './sandbox-network.ts';
import { DEFAULT_STRATEGY_LIMITS, formatBytes, type StrategyLimits } from './strategy-limits.ts';

/**
 * The `local` executor (the default): a strategy runs as a child process of the worker, under
 * bubblewrap (`docs/executors.md`, `docs/security.md`). The image is fetched from the registry over HTTP
 * and unpacked into a cache keyed by digest; its files are laid over a read-only view of the host's
 * system folders, so an image carrying only `/app/main.py` runs on the host's `python3`, and a
 * full-rootfs image runs on its own files.
 *
 * Each sandbox has its own network namespace: the strategy reaches its gateway at the loopback address
 * it is given and nothing else (`sandbox-network.ts`). Memory, processes and CPU are bounded by a cgroup
 * per run where the worker may create them (root), else by rlimits; the writable `/tmp` is a tmpfs of
 * the scratch size (`strategy-limits.ts`).
 *
 * Without bubblewrap it refuses to run strategies, unless told to run them unsandboxed (`bwrap: false`):
 * trusted-code mode, for a developer's own strategies on their own machine.
 */
export interface ExecutorLog {
  warn(message: string): void;
  info(message: string): void;
}

export interface LocalExecutorOptions {
  /** Where unpacked images are kept (`<dataDir>/images` is a good place). Its parents must be traversable by `user`. */
  cacheDir: string;
  /** Bound of the cache (bytes of unpacked files, default 10 GiB). */
  maxCacheBytes?: number;
  /**
   * The bubblewrap binary; default: `bwrap` in /usr/bin, /bin or /usr/local/bin (without one, `prepare`
   * refuses). `false`: trusted-code mode, strategies run unsandboxed.
   */
  bwrap?: string | false;
  /** What one strategy may use (`DEFAULT_STRATEGY_LIMITS` for what is not given). */
  limits?: Partial<StrategyLimits>;
  /**
   * Bound memory, processes and CPU with a cgroup per run where the worker may create one (default);
   * `false` uses rlimits only, as a worker without that right does.
   */
  cgroups?: boolean;
  /**
   * The user strategies run as. Default: nobody (65534:65534) when the worker runs as root, else the
   * worker's own user; `null` keeps the worker's user even as root.
   */
  user?: SandboxUser | null;
  /** Host folders visible (read-only) beside the image's files, by top-level name (`DEFAULT_HOST_PATHS`). */
  hostPaths?: readonly string[];
  log?: ExecutorLog;
}

const NOBODY: SandboxUser = { uid: 65534, gid: 65534 };
const LOOPBACK = '127.0.0.1';
const silent: ExecutorLog = { warn() {}, info() {} };

function defaultUser(option: SandboxUser | null | undefined): SandboxUser | undefined {
  if (option === null) return undefined;
  if (option) return option;
  return process.getuid?.() === 0 ? NOBODY : undefined;
}

/** Every parent of `dir` must let others through when the strategy runs as another user. */
function checkTraversable(dir: string, user: SandboxUser | undefined): void {
  if (!user || user.uid === process.getuid?.()) return;
  for (let path = dir; ; path = dirname(path)) {
    const info = existsSync(path) ? statSync(path) : undefined;
    if (info && info.uid !== user.uid && (info.mode & 0o001) === 0) {
      throw new ExecutorError(
        `strategies run as uid ${user.uid}, which cannot enter ${path} (mode ${(info.mode & 0o777).toString(8)}) to reach the image cache ${dir}: chmod o+x it or choose another cacheDir`,
      );
    }
    if (dirname(path) === path) return;
  }
}

/** What a run's sandbox holds beyond its process: freed when its run is released. */
interface SandboxParts {
  network?: SandboxNetwork;
  cgroup?: StrategyCgroup;
  guard?: ResourceGuard;
}

const run = promisify(execFile);

/** The `read` system call's number, to see bubblewrap wait on its block fd (`/proc/<pid>/syscall`). */
const READ_SYSCALL: Partial<Record<NodeJS.Architecture, number>> = {
  x64: 0,
  arm64: 63,
  riscv64: 63,
  loong64: 63,
  ia32: 3,
  arm: 3,
  ppc64: 3,
  s390x: 3,
};
const BLOCK_FD = 4;
const SETUP_TIMEOUT_MS = 30_000;

export class LocalExecutor implements Executor {
  readonly kind = 'local';
  /** The bubblewrap binary used, or undefined without a sandbox. */
  readonly bwrap: string | undefined;
  readonly cache: ImageCache;
  readonly limits: StrategyLimits;
  private readonly user: SandboxUser | undefined;
  private readonly hostPaths: readonly string[];
  private readonly log: ExecutorLog;
  private readonly nsenter: string | undefined;
  private readonly networks: SandboxNetworks | undefined;
  private useCgroups: boolean;
  private probed: Promise<void> | undefined;
  private readonly runs = new Set<PreparedRun>();
  private closed = false;

  constructor(private readonly options: LocalExecutorOptions) {
    this.log = options.log ?? silent;
    this.bwrap = options.bwrap === false ? undefined : (options.bwrap ?? findBubblewrap());
    this.user = defaultUser(options.user);
    this.hostPaths = options.hostPaths ?? DEFAULT_HOST_PATHS;
    this.limits = { ...DEFAULT_STRATEGY_LIMITS, ...options.limits };
    this.nsenter = findNsenter();
    this.networks =
      this.bwrap && this.nsenter
        ? new SandboxNetworks({
            bwrap: this.bwrap,
            nsenter: this.nsenter,
            ...(this.user && { user: this.user }),
          })
        : undefined;
    this.useCgroups = options.cgroups !== false && this.bwrap !== undefined;
    if (this.useCgroups) {
      sweepStaleCgroups();
      // Found out now, so that the start's log and banner say what applies.
      this.cgroup('probe')
        ?.remove()
        .catch(() => undefined);
    }
    this.cache = new ImageCache({
      dir: options.cacheDir,
      ...(options.maxCacheBytes !== undefined && { maxBytes: options.maxCacheBytes }),
      ...(this.user && { owner: this.user }),
    });
    if (options.bwrap === false) {
      this.log.warn(
        'local executor: sandbox disabled; strategies run unsandboxed, with the host network and no limits (trusted-code mode)',
      );
    } else if (!this.bwrap) {
      this.log.warn(
        'local executor: bubblewrap (bwrap) is not installed, so scenarios cannot run: install the bubblewrap package, or run strategies unsandboxed with HINDSIGHT_SANDBOX=none (trusted code only; docs/security.md)',
      );
    }
  }

  /** Whether strategies run under bubblewrap. */
  get sandboxed(): boolean {
    return this.bwrap !== undefined;
  }

  /** How limits are enforced here: `cgroup v1`, `cgroup v2`, `rlimits` or `none` (no sandbox). */
  get enforcement(): string {
    if (!this.bwrap) return 'none';
    if (!this.useCgroups) return 'rlimits';
    const support = cgroupSupport();
    return 'version' in support ? `cgroup v${support.version}` : 'rlimits';
  }

  get isolation(): string {
    if (this.bwrap) return `bubblewrap sandbox, limits by ${this.enforcement}`;
    return this.options.bwrap === false
      ? 'UNSANDBOXED (trusted code only)'
      : 'no sandbox: bubblewrap is not installed, so scenarios fail';
  }

  private probe(): Promise<void> {
    const bwrap = this.bwrap;
    if (!bwrap) {
      if (this.options.bwrap === false) return Promise.resolve();
      return Promise.reject(
        new ExecutorError(
          'bubblewrap (bwrap) is not installed on this worker: install the bubblewrap package to sandbox strategies, or run them unsandboxed with HINDSIGHT_SANDBOX=none (trusted code only; docs/security.md)',
        ),
      );
    }
    if (!this.nsenter) {
      return Promise.reject(
        new ExecutorError(
          'nsenter (util-linux) is not installed on this worker: the sandbox needs it to bring the gateway into the strategy’s network namespace',
        ),
      );
    }
    this.probed ??= probeBubblewrap(bwrap, this.user).then((problem) => {
      if (problem) {
        this.probed = undefined;
        throw new ExecutorError(
          `bubblewrap (${bwrap}) cannot create a sandbox here: ${problem}. Allow unprivileged user namespaces, or run the local executor without a sandbox (trusted code only).`,
        );
      }
    });
    return this.probed;
  }

  async prepare(request: PrepareRequest): Promise<PreparedRun> {
    if (this.closed) throw new ExecutorError('the executor is closed');
    const { image, signal } = request;
    checkTraversable(this.options.cacheDir, this.user);
    await this.probe();
    // The sandbox's network is made (or taken ready) while the image is fetched.
    const parts: SandboxParts = {};
    const network = this.networks?.take().then((taken) => {
      parts.network = taken;
    });
    network?.catch(() => undefined);
    let entry: (CachedImage & { done(): void }) | undefined;
    try {
      entry = await this.cache.acquire(image, signal);
      await network;
      if (this.closed) throw new ExecutorError('the executor is closed');
      const command = imageCommand(entry.config, `${image.repository}@${image.digest}`);
      const run = this.preparedRun(request.scenarioId, entry, command, parts);
      this.runs.add(run);
      return run;
    } catch (error) {
      entry?.done();
      await network?.catch(() => undefined);
      if (parts.network) this.networks?.give(parts.network, true);
      throw error;
    }
  }

  private preparedRun(
    scenarioId: string,
    entry: CachedImage & { done(): void },
    command: ReturnType<typeof imageCommand>,
    parts: SandboxParts,
  ): PreparedRun {
    let started: ChildStrategyProcess | undefined;
    let starting = false;
    let released = false;
    const run: PreparedRun = {
      gatewayBindHost: LOOPBACK,
      gatewayAdvertisedHost: LOOPBACK,
      ...(parts.network && { gatewayAdvertisedPort: SANDBOX_GATEWAY_PORT }),
      imageEnv: command.env,
      start: async (request: StartRequest): Promise<StrategyProcess> => {
        if (released) throw new ExecutorError('the run was released');
        if (starting) throw new ExecutorError('the strategy was already started');
        starting = true;
        started =
          this.bwrap && parts.network
            ? await this.spawnSandboxed(this.bwrap, parts.network, scenarioId, entry, command, request, parts)
            : await this.spawnTrusted(entry, command, request);
        return started;
      },
      release: async () => {
        if (released) return;
        released = true;
        this.runs.delete(run);
        try {
          await started?.stop(0);
        } finally {
          parts.guard?.close();
          // The namespace serves the next run only once nothing of this one can be left in it: its
          // sandbox never started, or its cgroup, which held all of it, is empty and removed.
          const emptied = (await parts.cgroup?.remove()) ?? false;
          if (parts.network) this.networks?.give(parts.network, !starting || emptied);
          entry.done();
        }
      },
    };
    return run;
  }

  private environment(imageEnv: Record<string, string>, env: Record<string, string>): Record<string, string> {
    const merged = { ...imageEnv, ...env };
    merged.PATH ??= DEFAULT_PATH;
    merged.HOME ??= '/tmp';
    return merged;
  }

  /**
   * bwrap, started inside the run's network namespace and held at its block fd once the sandbox is set
   * up; then the sandbox is put in its cgroup (or given its rlimits), its scratch space is watched, the
   * gateway's listener is connected, and only then does the strategy start. Whatever fails on the way
   * leaves nothing running.
   */
  private async spawnSandboxed(
    bwrap: string,
    network: SandboxNetwork,
    scenarioId: string,
    entry: CachedImage,
    command: ReturnType<typeof imageCommand>,
    request: StartRequest,
    parts: SandboxParts,
  ): Promise<ChildStrategyProcess> {
    const limits = this.limits;
    parts.cgroup = this.cgroup(scenarioId);
    const [program, ...args] = network.enter([
      bwrap,
      ...bubblewrapArgs(sandboxRoot(entry.rootfs, this.hostPaths), command.workingDir, limits.scratchBytes),
      '--',
      ...command.argv,
    ]) as [string, ...string[]];
    const child = spawn(program, args, {
      env: this.environment(command.env, request.env),
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      ...(this.user && { uid: this.user.uid, gid: this.user.gid }),
    });
    let setupOutput = '';
    child.stdout?.on('data', (chunk: Buffer) => request.stdout(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      if (setupOutput.length < 4000) setupOutput += chunk.toString('utf8');
      request.stderr(chunk);
    });
    // The pipes close under us when bwrap ends; their errors say nothing the exit does not.
    child.stdio[3]?.on('error', () => undefined);
    child.stdio[4]?.on('error', () => undefined);
    const init = sandboxInitPid(child.stdio[3]);
    try {
      await spawned(child, program);
      const pid = await init;
      if (pid === undefined) throw new Error('bubblewrap ended before its sandbox was set up');
      await waitUntilBlocked(child, pid);
      if (parts.cgroup) parts.cgroup.add(pid);
      else await this.applyRlimits(pid);
      network.attach((socket) => request.gateway.accept(socket));
      parts.guard = new ResourceGuard(limits, {
        ...(parts.cgroup && { counters: parts.cgroup }),
        scratchPath: `/proc/${pid}/root/tmp`,
      });
      (child.stdio[4] as NodeJS.WritableStream).end('1');
      return new ChildStrategyProcess({
        child,
        sandboxInit: init,
        guard: parts.guard,
        ...(!parts.cgroup && { limits: this.rlimitsNote() }),
      });
    } catch (error) {
      child.kill('SIGKILL');
      void init.then((pid) => pid !== undefined && killQuietly(pid));
      if (error instanceof ExecutorError) throw error;
      const output = setupOutput.trim();
      throw new ExecutorError(
        `cannot start the sandbox: ${(error as Error).message}${output ? `: ${output}` : ''}`,
        {
          cause: error,
        },
      );
    }
  }

  /** The run's cgroup, or undefined when this worker cannot make one (it then uses rlimits). */
  private cgroup(scenarioId: string): StrategyCgroup | undefined {
    if (!this.useCgroups) return undefined;
    try {
      return StrategyCgroup.create(`${scenarioId}-${randomBytes(3).toString('hex')}`, this.limits);
    } catch (error) {
      if (!(error instanceof CgroupUnavailableError)) throw error;
      this.useCgroups = false;
      this.log.warn(
        `local executor: strategies' memory, processes and CPU are bounded by rlimits, not cgroups (${error.message}); see docs/security.md`,
      );
      return undefined;
    }
  }

  /**
   * Without cgroups: per-process data size (RLIMIT_DATA: the heap and private mappings, what an
   * allocation grows) and the number of processes of the sandbox's user (RLIMIT_NPROC, counted in its
   * own user namespace), set on the sandbox's init and so inherited by everything it starts. CPU is
   * not bounded this way.
   */
  private async applyRlimits(pid: number): Promise<void> {
    const { memoryBytes, processes } = this.limits;
    try {
      // As the sandbox's user, who may lower its own processes' limits (and as a worker that is not
      // root would do it).
      await run(
        'prlimit',
        [`--pid=${pid}`, `--data=${memoryBytes}:${memoryBytes}`, `--nproc=${processes}:${processes}`],
        { ...(this.user && { uid: this.user.uid, gid: this.user.gid }) },
      );
    } catch (error) {
      throw new ExecutorError(
        `cannot set the strategy's rlimits with prlimit (util-linux): ${(error as { stderr?: string }).stderr?.trim() || (error as Error).message}`,
      );
    }
  }

  private rlimitsNote(): string {
    const { memoryBytes, processes, scratchBytes } = this.limits;
    return `memory ${formatBytes(memoryBytes)} per process, ${processes} processes, scratch ${formatBytes(scratchBytes)}`;
  }

  private async spawnTrusted(
    entry: CachedImage,
    command: ReturnType<typeof imageCommand>,
    request: StartRequest,
  ): Promise<ChildStrategyProcess> {
    const cwd = join(entry.rootfs, command.workingDir);
    const [program, ...args] = command.argv as [string, ...string[]];
    // An absolute command the image carries runs from the unpacked files.
    const inImage = program.startsWith('/') && existsSync(join(entry.rootfs, program));
    const child = spawn(inImage ? join(entry.rootfs, program) : program, args, {
      cwd: existsSync(cwd) ? cwd : entry.rootfs,
      env: this.environment(command.env, request.env),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      ...(this.user && { uid: this.user.uid, gid: this.user.gid }),
    });
    child.stdout?.on('data', (chunk: Buffer) => request.stdout(chunk));
    child.stderr?.on('data', (chunk: Buffer) => request.stderr(chunk));
    await spawned(child, program).catch((error: ExecutorError) => {
      const code = (error.cause as NodeJS.ErrnoException | undefined)?.code;
      throw code === 'ENOENT'
        ? new ImageRunError(`the command "${program}" of the image is not found on this worker`, {
            cause: error.cause,
          })
        : error;
    });
    return new ChildStrategyProcess({ child });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.runs].map((run) => run.release().catch(() => undefined)));
    this.networks?.close();
  }
}

/** Resolves once `child` has started; rejects with an ExecutorError when it cannot be started. */
function spawned(child: ChildProcess, program: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(new ExecutorError(`cannot start ${program}: ${error.message}`, { cause: error })),
    );
  });
}

/**
 * Waits until bubblewrap's init `pid` reads its block fd: bwrap reads it once the sandbox is whole (root
 * pivoted, loopback up, privileges dropped), and not before.
 */
async function waitUntilBlocked(child: ChildProcess, pid: number): Promise<void> {
  const read = READ_SYSCALL[process.arch];
  const expected = read === undefined ? undefined : `${read} 0x${BLOCK_FD.toString(16)} `;
  const deadline = Date.now() + SETUP_TIMEOUT_MS;
  for (let delay = 1; ; delay = Math.min(delay * 2, 20)) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error('bubblewrap ended before its sandbox was set up');
    }
    let syscall: string;
    try {
      syscall = readFileSync(`/proc/${pid}/syscall`, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new Error('bubblewrap ended before its sandbox was set up');
      }
      throw new Error(
        `cannot see whether the sandbox is set up (/proc/${pid}/syscall): ${(error as Error).message}`,
      );
    }
    if (expected === undefined || syscall.startsWith(expected)) return;
    if (Date.now() > deadline)
      throw new Error(`the sandbox was not set up within ${SETUP_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** Reads bwrap's `--info-fd` JSON (`{"child-pid": N}`): the sandbox's PID 1 as the host sees it. */
function sandboxInitPid(stream: unknown): Promise<number | undefined> {
  const readable = stream as NodeJS.ReadableStream | null;
  if (!readable) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let text = '';
    const settle = () => {
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      resolve(match ? Number(match[1]) : undefined);
    };
    readable.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (/"child-pid"\s*:\s*\d+/.test(text) && text.includes('}')) settle();
    });
    readable.on('end', settle);
    readable.on('error', settle);
  });
}
