import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import type Docker from 'dockerode';
import { cgroupCountersOf } from './cgroups.ts';
import { ContainerFirewall, type FirewallHole } from './container-firewall.ts';
import {
  type Executor,
  ExecutorError,
  ImageRunError,
  type OutputSink,
  type PreparedRun,
  type PrepareRequest,
  type StartRequest,
  type StrategyExit,
  type StrategyProcess,
} from './executor.ts';
import { whenAborted } from './image-cache.ts';
import { checkPlatform, imageCommand } from './image-command.ts';
import { ResourceGuard } from './resource-guard.ts';
import { DEFAULT_STRATEGY_LIMITS, type StrategyLimits } from './strategy-limits.ts';

/**
 * The `docker` executor: each strategy runs in a container of the Docker Engine (API through
 * `dockerode`). The daemon pulls the version's image from the built-in registry by digest
 * (`<registry host:port>/v/<versionId>@<digest>`, the pull token as registry password; Docker speaks
 * plain HTTP to registries on 127.0.0.0/8). Each scenario gets its own internal bridge network (no route
 * out, no traffic between containers) whose gateway address, on the host, is where the scenario's
 * gateway listens; firewall rules on that bridge let the container reach that one address and port and
 * nothing else of the host (`container-firewall.ts`, `docs/executors.md`).
 */
/** The user a container runs as when its image names none: nobody, never the container's root. */
export const UNPRIVILEGED_USER = '65534:65534';

export interface DockerExecutorOptions {
  /** The Docker client; default: the local daemon's socket (`/var/run/docker.sock`). */
  docker?: Docker;
  /** Where the daemon's socket is, when `docker` is not given. */
  socketPath?: string;
  /** What one strategy may use (`DEFAULT_STRATEGY_LIMITS` for what is not given). */
  limits?: Partial<StrategyLimits>;
  /** The iptables command (default `iptables`); `false` leaves the host's other ports reachable from containers. */
  iptables?: string | false;
}

const LABEL = 'org.hindsight.executor';
const SCENARIO_LABEL = 'org.hindsight.scenario';
/** How long the log stream may lag behind the container's end. */
const DRAIN_MS = 1000;

const sinkStream = (sink: OutputSink) =>
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      sink(chunk);
      done();
    },
  });

/**
 * dockerode (with its SSH and gRPC dependencies) is loaded only when a docker executor is made: every
 * other command and the local executor start without paying for it.
 */
function dockerClient(): typeof Docker {
  return createRequire(import.meta.url)('dockerode') as typeof Docker;
}

/** The `host:port` Docker names the registry by (from `http://host:port`). */
const registryHost = (url: string) => new URL(url).host;

function daemonError(error: unknown, what: string): ExecutorError {
  const message = (error as { json?: { message?: string }; message?: string }).json?.message;
  return new ExecutorError(`${what}: ${message ?? (error as Error).message}`, { cause: error });
}

export class DockerExecutor implements Executor {
  readonly kind = 'docker';
  readonly isolation = 'a container per strategy, limits by Docker';
  readonly docker: Docker;
  /** Labels everything this executor creates (`org.hindsight.executor=<id>`), for `close` and operators. */
  readonly instanceId = randomBytes(6).toString('hex');
  readonly limits: StrategyLimits;
  private readonly firewall: ContainerFirewall | undefined;
  private readonly runs = new Set<PreparedRun>();
  private closed = false;

  constructor(options: DockerExecutorOptions = {}) {
    this.docker =
      options.docker ?? new (dockerClient())({ socketPath: options.socketPath ?? '/var/run/docker.sock' });
    this.limits = { ...DEFAULT_STRATEGY_LIMITS, ...options.limits };
    this.firewall = options.iptables === false ? undefined : new ContainerFirewall(options.iptables);
  }

  async prepare(request: PrepareRequest): Promise<PreparedRun> {
    if (this.closed) throw new ExecutorError('the executor is closed');
    const { image, signal } = request;
    signal?.throwIfAborted();
    const aborted = signal ? whenAborted(signal) : undefined;
    aborted?.catch(() => undefined);
    const step = <T>(promise: Promise<T>): Promise<T> =>
      aborted ? Promise.race([promise, aborted]) : promise;

    await step(this.docker.ping()).catch((error) => {
      if (signal?.aborted) throw error;
      throw daemonError(error, 'the Docker daemon is not reachable');
    });
    const reference = `${registryHost(image.registryUrl)}/${image.repository}@${image.digest}`;
    await step(this.pull(reference, image.pullToken, image.registryUrl, signal));
    const inspected = await step(this.docker.getImage(reference).inspect()).catch((error) => {
      if (signal?.aborted) throw error;
      throw daemonError(error, `cannot inspect the pulled image ${reference}`);
    });
    checkPlatform({ os: inspected.Os, architecture: inspected.Architecture }, reference);
    const command = imageCommand(inspected.Config, reference);

    const suffix = randomBytes(6).toString('hex');
    const networkName = `hindsight-${request.scenarioId.slice(0, 8)}-${suffix}`;
    const bridge = `hs${suffix}`;
    const network = await this.docker
      .createNetwork({
        Name: networkName,
        Driver: 'bridge',
        Internal: true,
        CheckDuplicate: true,
        Options: {
          'com.docker.network.bridge.name': bridge,
          'com.docker.network.bridge.enable_icc': 'false',
          'com.docker.network.bridge.enable_ip_masquerade': 'false',
        },
        Labels: { [LABEL]: this.instanceId, [SCENARIO_LABEL]: request.scenarioId },
      })
      .catch((error) => {
        throw daemonError(error, 'cannot create the scenario network');
      });
    const run = new ContainerRun(this, {
      reference,
      network,
      networkName,
      bridge,
      scenarioId: request.scenarioId,
      imageEnv: command.env,
      user: inspected.Config?.User || UNPRIVILEGED_USER,
    });
    this.runs.add(run);
    try {
      const info = await network.inspect();
      const gateway = (info.IPAM?.Config ?? []).map((c: { Gateway?: string }) => c.Gateway).find(Boolean);
      if (!gateway) throw new ExecutorError(`the network ${networkName} has no gateway address`);
      run.gateway = gateway;
      signal?.throwIfAborted();
      if (this.closed) throw new ExecutorError('the executor is closed');
      return run;
    } catch (error) {
      await run.release();
      throw error instanceof ExecutorError || signal?.aborted
        ? error
        : daemonError(error, 'cannot inspect the scenario network');
    }
  }

  private async pull(reference: string, token: string, registryUrl: string, signal?: AbortSignal) {
    const authconfig = { username: 'hindsight', password: token, serveraddress: registryHost(registryUrl) };
    let stream: NodeJS.ReadableStream;
    try {
      stream = await this.docker.pull(reference, { authconfig, ...(signal && { abortSignal: signal }) });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw daemonError(error, `the Docker daemon could not pull ${reference}`);
    }
    signal?.addEventListener('abort', () => (stream as unknown as { destroy?(): void }).destroy?.(), {
      once: true,
    });
    const events = await new Promise<{ error?: string; errorDetail?: { message?: string } }[]>(
      (resolve, reject) =>
        this.docker.modem.followProgress(stream, (error: Error | null, output: unknown[]) =>
          error ? reject(error) : resolve(output as { error?: string }[]),
        ),
    ).catch((error) => {
      if (signal?.aborted) throw signal.reason;
      throw daemonError(error, `the Docker daemon could not pull ${reference}`);
    });
    const failed = events.find((event) => event.error || event.errorDetail);
    if (failed) {
      throw new ExecutorError(
        `the Docker daemon could not pull ${reference}: ${failed.errorDetail?.message ?? failed.error}`,
      );
    }
  }

  /** @internal */
  containerOptions(run: ContainerRun, env: Record<string, string>): Docker.ContainerCreateOptions {
    const merged = { ...env };
    // As under the local executor: a HOME that is writable when neither the image nor the run sets one.
    if (!('HOME' in run.imageEnv) && !('HOME' in merged)) merged.HOME = '/tmp';
    const { memoryBytes, cpus, processes, scratchBytes } = this.limits;
    return {
      name: `${run.networkName}-strategy`,
      Image: run.reference,
      User: run.user,
      Env: Object.entries(merged).map(([key, value]) => `${key}=${value}`),
      Labels: { [LABEL]: this.instanceId, [SCENARIO_LABEL]: run.scenarioId },
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      OpenStdin: false,
      HostConfig: {
        NetworkMode: run.networkName,
        // docker-init as PID 1 passes SIGTERM on to the strategy (a process that is PID 1 itself ignores it).
        Init: true,
        Memory: memoryBytes,
        MemorySwap: memoryBytes,
        NanoCpus: Math.round(cpus * 1e9),
        PidsLimit: processes,
        // The image's files are read-only; the one writable place is /tmp, of the scratch size.
        ReadonlyRootfs: true,
        Tmpfs: { '/tmp': `rw,nosuid,nodev,size=${scratchBytes},mode=1777` },
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
      },
    };
  }

  /** @internal */
  get firewallRules(): ContainerFirewall | undefined {
    return this.firewall;
  }

  /** @internal */
  forget(run: ContainerRun): void {
    this.runs.delete(run);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.runs].map((run) => run.release().catch(() => undefined)));
  }
}

interface RunParts {
  reference: string;
  network: Docker.Network;
  networkName: string;
  bridge: string;
  scenarioId: string;
  imageEnv: Record<string, string>;
  /** `User` of the container: the image's, or `UNPRIVILEGED_USER`. */
  user: string;
}

class ContainerRun implements PreparedRun {
  gateway = '';
  readonly imageEnv: Record<string, string>;
  readonly reference: string;
  readonly networkName: string;
  readonly scenarioId: string;
  readonly user: string;
  private container: Docker.Container | undefined;
  private process: ContainerProcess | undefined;
  private hole: FirewallHole | undefined;
  private started = false;
  private released: Promise<void> | undefined;

  constructor(
    private readonly executor: DockerExecutor,
    private readonly parts: RunParts,
  ) {
    this.imageEnv = parts.imageEnv;
    this.reference = parts.reference;
    this.networkName = parts.networkName;
    this.scenarioId = parts.scenarioId;
    this.user = parts.user;
  }

  get gatewayBindHost(): string {
    return this.gateway;
  }

  get gatewayAdvertisedHost(): string {
    return this.gateway;
  }

  private get tag(): string {
    return `hindsight:${this.executor.instanceId}:${this.parts.bridge}`;
  }

  async start(request: StartRequest): Promise<StrategyProcess> {
    if (this.released) throw new ExecutorError('the run was released');
    if (this.started) throw new ExecutorError('the strategy was already started');
    this.started = true;
    const firewall = this.executor.firewallRules;
    if (firewall) {
      this.hole = { bridge: this.parts.bridge, address: this.gateway, port: request.gateway.port };
      await firewall.open(this.hole, this.tag);
    }
    const docker = this.executor.docker;
    try {
      this.container = await docker.createContainer(this.executor.containerOptions(this, request.env));
      const stream = await this.container.attach({ stream: true, stdout: true, stderr: true });
      const streamEnded = new Promise<void>((resolve) => {
        stream.on('end', resolve);
        stream.on('close', resolve);
        stream.on('error', () => resolve());
      });
      docker.modem.demuxStream(stream, sinkStream(request.stdout), sinkStream(request.stderr));
      await this.container.start();
      this.process = new ContainerProcess(
        this.container,
        stream,
        streamEnded,
        await guardOf(this.container, this.executor.limits),
      );
      return this.process;
    } catch (error) {
      if (error instanceof ExecutorError) throw error;
      const message = (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
      // The daemon's answer to an image whose command cannot start (not found, not executable).
      if (/executable file not found|no such file or directory|permission denied/i.test(message)) {
        throw new ImageRunError(`the container could not start its command: ${message}`, { cause: error });
      }
      throw daemonError(error, 'cannot start the strategy container');
    }
  }

  release(): Promise<void> {
    this.released ??= (async () => {
      this.executor.forget(this);
      if (this.process) await this.process.stop(0).catch(() => undefined);
      if (this.container) await this.container.remove({ force: true }).catch(ignoreMissing);
      if (this.hole) await this.executor.firewallRules?.close(this.hole, this.tag);
      await this.parts.network.remove().catch(ignoreMissing);
    })();
    return this.released;
  }
}

function ignoreMissing(error: { statusCode?: number }): void {
  if (error.statusCode === 404) return;
  throw error;
}

/**
 * Watches a started container's limits from this host: its cgroups' counters and its /tmp, found
 * through its first process. A daemon on another host, or a container already gone, leaves only
 * Docker's own OOMKilled to tell a breach.
 */
async function guardOf(container: Docker.Container, limits: StrategyLimits): Promise<ResourceGuard> {
  const pid = await container
    .inspect()
    .then((info: { State?: { Pid?: number } }) => info.State?.Pid)
    .catch(() => undefined);
  if (!pid) return new ResourceGuard(limits, {});
  const counters = cgroupCountersOf(pid);
  return new ResourceGuard(limits, {
    ...(counters && { counters }),
    scratchPath: `/proc/${pid}/root/tmp`,
  });
}

class ContainerProcess implements StrategyProcess {
  readonly exited: Promise<StrategyExit>;
  private ended = false;

  constructor(
    private readonly container: Docker.Container,
    stream: NodeJS.ReadableStream,
    streamEnded: Promise<void>,
    guard: ResourceGuard,
  ) {
    guard.watch(() => void container.kill({ signal: 'SIGKILL' }).catch(() => undefined));
    this.exited = container
      .wait()
      .then(
        (result: { StatusCode?: number }) => ({ code: result.StatusCode ?? null, signal: null }),
        // The daemon went away or the container was removed under us: the process is gone, its code unknown.
        (): StrategyExit => ({ code: null, signal: null }),
      )
      .then(async (exit: StrategyExit) => {
        const state = await container
          .inspect()
          .then((info: { State?: { OOMKilled?: boolean } }) => info.State)
          .catch(() => undefined);
        if (state?.OOMKilled) guard.record({ resource: 'memory', limit: guard.limits.memoryBytes });
        const breach = guard.check();
        guard.close();
        if (breach) exit.breach = breach;
        await Promise.race([streamEnded, new Promise((resolve) => setTimeout(resolve, DRAIN_MS))]);
        (stream as unknown as { destroy?(): void }).destroy?.();
        this.ended = true;
        return exit;
      });
  }

  async stop(graceMs: number): Promise<StrategyExit> {
    if (this.ended) return this.exited;
    const kill = () => this.container.kill({ signal: 'SIGKILL' }).catch(() => undefined);
    const timer = setTimeout(kill, Math.max(0, graceMs));
    try {
      if (graceMs <= 0) await kill();
      else await this.container.kill({ signal: 'SIGTERM' }).catch(() => undefined);
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
