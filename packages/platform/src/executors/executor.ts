import type { Socket } from 'node:net';
import type { LimitBreach } from './strategy-limits.ts';

/**
 * How a worker runs one scenario's strategy: the seam between the queue (which knows scenarios) and the
 * place a strategy process lives (a child process under bubblewrap, a Docker container, later a
 * Kubernetes pod). An executor knows images and processes, never scenarios' results or the database.
 *
 * The worker's sequence for one scenario:
 * 1. `prepare` (scenario PENDING): fetch the version's image from the built-in registry and set up what
 *    the run needs (unpacked layers, a container network). It answers where the scenario's gateway must
 *    listen so that this strategy, and only it, can reach it.
 * 2. The worker starts the scenario's gateway on `gatewayBindHost` (a free port) and calls `start` with
 *    the environment layered on top of the image's own (`TRADING_GATEWAY_URL` etc. use
 *    `gatewayAdvertisedHost`).
 * 3. `exited` settles when the process ends by itself; `stop` ends it (cancel, end of run, shutdown).
 * 4. `release` frees what `prepare` set up, whether or not `start` was called.
 */

/** A strategy version's image in the built-in registry (management-api.md, decision 19d). */
export interface StrategyImage {
  versionId: string;
  /** The manifest digest recorded for the version (`sha256:...`). */
  digest: string;
  /** The registry's base URL as the worker reaches it, e.g. `http://127.0.0.1:8000` (it serves `/v2/`). */
  registryUrl: string;
  /** Repository path inside the registry: `v/<versionId>`. */
  repository: string;
  /** A pull-only credential for that repository: `Authorization: Bearer <token>` or basic-auth password. */
  pullToken: string;
}

export interface PrepareRequest {
  scenarioId: string;
  image: StrategyImage;
  /**
   * Aborted when the scenario is cancelled while it is being prepared: `prepare` then rejects promptly
   * with the signal's reason (an `AbortError`), leaving nothing behind.
   */
  signal?: AbortSignal;
}

/** Receives a strategy's output as it is written; the worker keeps a bounded copy. */
export type OutputSink = (chunk: Buffer) => void;

/** The scenario's gateway, as the executor connects the strategy to it. */
export interface GatewayEndpoint {
  /** The port it listens on at `gatewayBindHost`; the `docker` executor opens exactly this port to the container. */
  port: number;
  /**
   * Hands the gateway a connection the executor accepted elsewhere (on the sandbox's own loopback):
   * the gateway serves it as one made to its own address.
   */
  accept(socket: Socket): void;
}

export interface StartRequest {
  /**
   * The configuration's env, the run's env and the platform's values (`TRADING_GATEWAY_URL`,
   * `PROXY_REST_URL`, `PROXY_WS_URL`, `PLATFORM_*`), already merged and checked: the executor lays this
   * map over the image's own `Env` (the map wins on equal keys) and adds nothing else a strategy could
   * rely on, except what a process needs to start (`PATH` and `HOME` when the image sets none).
   */
  env: Record<string, string>;
  gateway: GatewayEndpoint;
  stdout: OutputSink;
  stderr: OutputSink;
}

export interface StrategyExit {
  /** The exit code, or null when a signal ended the process. */
  code: number | null;
  signal: string | null;
  /** The limit the strategy ran into: it was stopped for it (or the kernel ended it). */
  breach?: LimitBreach;
  /**
   * The limits it ran under, said when the executor could not tell whether one was reached (rlimits
   * only: a refused allocation or fork shows only as the strategy's own error).
   */
  limits?: string;
}

export interface StrategyProcess {
  /** Settles once the process (container) is gone, however it ended. Never rejects. */
  readonly exited: Promise<StrategyExit>;
  /**
   * SIGTERM (docker stop), then SIGKILL after `graceMs`; resolves with the exit once it is gone. A
   * strategy that runs into a limit is stopped by the executor itself (`StrategyExit.breach`).
   */
  stop(graceMs: number): Promise<StrategyExit>;
}

export interface PreparedRun {
  /** The address the scenario's gateway must bind (loopback for `local`, a private bridge for `docker`). */
  gatewayBindHost: string;
  /** The host name or address the strategy uses to reach that gateway. */
  gatewayAdvertisedHost: string;
  /**
   * The port the strategy uses to reach it, when not the one the gateway listens on (the `local`
   * executor brings the gateway into the sandbox's own loopback at a fixed port).
   */
  gatewayAdvertisedPort?: number;
  /** The image config's `Env`, as a map (lowest layer of the environment). */
  imageEnv: Record<string, string>;
  /** Starts the image's entrypoint (`Entrypoint` + `Cmd`, in `WorkingDir`). Called at most once. */
  start(request: StartRequest): Promise<StrategyProcess>;
  /** Frees what `prepare` set up; idempotent; stops the process first if it still runs. */
  release(): Promise<void>;
}

export interface Executor {
  /** `local`, `docker` (and later `kubernetes`). */
  readonly kind: string;
  /** How strategies are kept apart and bounded here, in a few words (for the start's banner). */
  readonly isolation: string;
  /**
   * Fetches and readies the image. Rejects with `ExecutorError` (a platform fault: the registry is
   * unreachable, the image cannot be unpacked, Docker is down) or `ImageRunError` (the image itself
   * cannot run: no entrypoint, a platform the host cannot run), the latter counted as a strategy error.
   */
  prepare(request: PrepareRequest): Promise<PreparedRun>;
  /** Stops every process this executor still runs and frees shared resources (worker shutdown). */
  close(): Promise<void>;
}

/** An infrastructure fault on our side: the scenario fails with `errorType: platform`. */
export class ExecutorError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ExecutorError';
  }
}

/** The image cannot run as given (no command, wrong platform): the scenario fails with `errorType: strategy`. */
export class ImageRunError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ImageRunError';
  }
}
