import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  bubblewrapArgs,
  DEFAULT_HOST_PATHS,
  findBubblewrap,
  probeBubblewrap,
  type SandboxUser,
  sandboxRoot,
} from './bubblewrap.ts';
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

/**
 * The `local` executor (the default): a strategy runs as a child process of the worker, under
 * bubblewrap when it is installed (`docs/executors.md`). The image is fetched from the registry over
 * HTTP and unpacked into a cache keyed by digest; its files are laid over a read-only view of the host's
 * system folders, so an image carrying only `/app/main.py` runs on the host's `python3`, and a
 * full-rootfs image runs on its own files. The gateway listens on loopback: the sandbox shares the host's
 * network.
 *
 * Without bubblewrap (`bwrap: false`, or none installed) it runs the entrypoint directly, with the
 * unpacked `WorkingDir` as its working directory: trusted-code mode, for a developer's own machine.
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
  /** The bubblewrap binary; default: `bwrap` in /usr/bin, /bin or /usr/local/bin. `false`: trusted-code mode. */
  bwrap?: string | false;
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

export class LocalExecutor implements Executor {
  readonly kind = 'local';
  /** The bubblewrap binary used, or undefined in trusted-code mode. */
  readonly bwrap: string | undefined;
  readonly cache: ImageCache;
  private readonly user: SandboxUser | undefined;
  private readonly hostPaths: readonly string[];
  private readonly log: ExecutorLog;
  private probed: Promise<void> | undefined;
  private readonly runs = new Set<PreparedRun>();
  private closed = false;

  constructor(private readonly options: LocalExecutorOptions) {
    this.log = options.log ?? silent;
    this.bwrap = options.bwrap === false ? undefined : (options.bwrap ?? findBubblewrap());
    this.user = defaultUser(options.user);
    this.hostPaths = options.hostPaths ?? DEFAULT_HOST_PATHS;
    this.cache = new ImageCache({
      dir: options.cacheDir,
      ...(options.maxCacheBytes !== undefined && { maxBytes: options.maxCacheBytes }),
      ...(this.user && { owner: this.user }),
    });
    if (!this.bwrap) {
      this.log.warn(
        options.bwrap === false
          ? 'local executor: sandbox disabled; strategies run unsandboxed (trusted-code mode)'
          : 'local executor: bubblewrap (bwrap) is not installed; strategies run unsandboxed (trusted-code mode). Install the bubblewrap package to sandbox them.',
      );
    }
  }

  /** Whether strategies run under bubblewrap. */
  get sandboxed(): boolean {
    return this.bwrap !== undefined;
  }

  private probe(): Promise<void> {
    const bwrap = this.bwrap;
    if (!bwrap) return Promise.resolve();
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
    const entry = await this.cache.acquire(image, signal);
    try {
      if (this.closed) throw new ExecutorError('the executor is closed');
      const command = imageCommand(entry.config, `${image.repository}@${image.digest}`);
      const run = this.preparedRun(entry, command, entry.done);
      this.runs.add(run);
      return run;
    } catch (error) {
      entry.done();
      throw error;
    }
  }

  private preparedRun(
    entry: CachedImage,
    command: ReturnType<typeof imageCommand>,
    done: () => void,
  ): PreparedRun {
    let started: ChildStrategyProcess | undefined;
    let released = false;
    const run: PreparedRun = {
      gatewayBindHost: LOOPBACK,
      gatewayAdvertisedHost: LOOPBACK,
      imageEnv: command.env,
      start: async (request: StartRequest): Promise<StrategyProcess> => {
        if (released) throw new ExecutorError('the run was released');
        if (started) throw new ExecutorError('the strategy was already started');
        started = await this.spawn(entry, command, request);
        return started;
      },
      release: async () => {
        if (released) return;
        released = true;
        this.runs.delete(run);
        try {
          await started?.stop(0);
        } finally {
          done();
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

  private async spawn(
    entry: CachedImage,
    command: ReturnType<typeof imageCommand>,
    request: StartRequest,
  ): Promise<ChildStrategyProcess> {
    const env = this.environment(command.env, request.env);
    const user = this.user ? { uid: this.user.uid, gid: this.user.gid } : {};
    let strategy: ChildStrategyProcess;
    if (this.bwrap) {
      const args = [...bubblewrapArgs(sandboxRoot(entry.rootfs, this.hostPaths), command.workingDir), '--'];
      const child = spawn(this.bwrap, [...args, ...command.argv], {
        env,
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
        ...user,
      });
      strategy = new ChildStrategyProcess({ child, sandboxInit: sandboxInitPid(child.stdio[3]) });
    } else {
      const cwd = join(entry.rootfs, command.workingDir);
      const [program, ...args] = command.argv as [string, ...string[]];
      // An absolute command the image carries runs from the unpacked files.
      const inImage = program.startsWith('/') && existsSync(join(entry.rootfs, program));
      const child = spawn(inImage ? join(entry.rootfs, program) : program, args, {
        cwd: existsSync(cwd) ? cwd : entry.rootfs,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
        ...user,
      });
      strategy = new ChildStrategyProcess({ child });
    }
    const { child } = strategy.target;
    child.stdout?.on('data', (chunk: Buffer) => request.stdout(chunk));
    child.stderr?.on('data', (chunk: Buffer) => request.stderr(chunk));
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error: NodeJS.ErrnoException) => {
        const program = this.bwrap ?? command.argv[0];
        reject(
          this.bwrap || error.code !== 'ENOENT'
            ? new ExecutorError(`cannot start ${program}: ${error.message}`, { cause: error })
            : new ImageRunError(`the command "${program}" of the image is not found on this worker`, {
                cause: error,
              }),
        );
      });
    });
    return strategy;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.runs].map((run) => run.release().catch(() => undefined)));
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
