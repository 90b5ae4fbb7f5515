import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { InstrumentDefinition } from '@hindsight/core';
import {
  checkScenario,
  compressResultFiles,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  type GatewaySettings,
  type RunEnd,
  type RunningGateway,
  SimulationProvider,
  type Scenario as SimulationScenario,
  startGateway,
} from '@hindsight/gateway';
import type { BarStore } from '@hindsight/marketdata';
import type { FastifyBaseLogger } from 'fastify';
import {
  type Executor,
  ExecutorError,
  ImageRunError,
  type PreparedRun,
  type StrategyExit,
  type StrategyProcess,
} from '../executors/executor.ts';
import { describeBreach } from '../executors/strategy-limits.ts';
import { issuePullToken, repositoryName } from '../registry/access.ts';
import type { RegistryStore } from '../registry/registry-store.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { Scenario, ScenarioManifest, ScenarioRepository } from '../repositories/scenarios.ts';
import { dataFingerprint } from './data-fingerprint.ts';
import { OutputCapture } from './output-capture.ts';
import { strategyEnvironment } from './run-environment.ts';
import type { RunReport } from './run-telemetry.ts';

/** Timeouts and bounds of one run (docs/scenarios.md lists them with their settings). */
export interface RunLimits {
  /** A strategy that has not connected to its gateway this long after it started fails the run. */
  connectTimeoutMs: number;
  /** A strategy that leaves events unacknowledged this long fails the run (0 = never). */
  stallTimeoutMs: number;
  /** After the last batch: how long the strategy may take to exit before it is stopped (decision 19b). */
  exitGraceMs: number;
  /** SIGTERM to SIGKILL when a run is stopped early (cancel, failure, shutdown). */
  stopGraceMs: number;
  /** Output kept per stream: this many bytes of its start and as many of its end. */
  logHeadBytes: number;
  logTailBytes: number;
}

export interface RunDependencies {
  scenarios: ScenarioRepository;
  registry: RegistryStore;
  catalog: CatalogRepository;
  market: BarStore;
  executor: Executor;
  signingSecret: Uint8Array;
  /** The platform's base URL as the worker reaches it (its registry serves `/v2/` there). */
  registryUrl: string;
  engineVersion: string;
  limits: RunLimits;
  /** Attempts a scenario gets when its runs fail for platform reasons (decision 40). */
  maxAttempts: number;
  log: FastifyBaseLogger;
}

/**
 * Where a run tells its worker how far the replay has got: `simulatedTime` is set once the strategy
 * is connected (the replay runs) and answers the simulated epoch ms reached. The worker reads it at
 * each lease renewal; the run never waits on it.
 */
export interface RunProgressProbe {
  simulatedTime?: () => number;
}

/**
 * A failure whose `errorType` is known where it is raised. A platform failure is worth another attempt
 * unless `final` (the image is gone: every attempt would fail alike).
 */
class RunFailure extends Error {
  constructor(
    readonly errorType: 'strategy' | 'platform',
    message: string,
    readonly final = false,
  ) {
    super(message);
  }
}

const sleep = (ms: number) =>
  new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref());

function abortedPromise(signal: AbortSignal): Promise<'aborted'> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
}

const describeExit = (exit: StrategyExit) =>
  exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;

/**
 * Runs one claimed (PENDING) scenario to its end and records the end: COMPLETE with its result files,
 * or FAILED with `errorType` and a message that says what happened. When `signal` aborts (the scenario
 * was cancelled or deleted, or the worker lost its lease or is shutting down) the strategy and the
 * simulation are stopped and the row, already changed by whoever aborted, is left as it is. Answers
 * what it recorded (for the worker's metrics).
 */
export async function runScenario(
  deps: RunDependencies,
  scenario: Scenario,
  workerId: string,
  signal: AbortSignal,
  progress: RunProgressProbe = {},
): Promise<RunReport> {
  const { limits } = deps;
  const id = scenario.scenarioId;
  // Every line about this run carries its scenario id, its gateway's lines included.
  const log = deps.log.child({ scenarioId: id });
  const stdout = new OutputCapture(limits.logHeadBytes, limits.logTailBytes);
  const stderr = new OutputCapture(limits.logHeadBytes, limits.logTailBytes);
  let prepared: PreparedRun | undefined;
  let gateway: RunningGateway | undefined;
  let strategy: StrategyProcess | undefined;
  let outcome:
    | { kind: 'complete'; end: RunEnd; simulatedAt: number }
    | { kind: 'failed'; failure: RunFailure }
    | undefined;
  // Where the worker's time goes, phase by phase (logged at the end: the platform's overhead per run).
  const phases: Record<string, number> = {};
  let last = performance.now();
  // From RUNNING to the end, for the run-duration metric.
  let runningSince: number | undefined;
  const stopped = (): RunReport => ({ outcome: 'stopped', ...sinceRunning(runningSince) });
  const mark = (phase: string) => {
    const now = performance.now();
    phases[phase] = Math.round(now - last);
    last = now;
  };
  try {
    // Its reads ride out a database outage as the worker's writes do (docs/scenarios.md).
    const { simulation, manifest } = await deps.scenarios.retrying(id, () => resolveRun(deps, scenario));
    mark('resolved');
    await deps.scenarios.recordManifest(id, workerId, manifest);
    prepared = await deps.executor.prepare({
      scenarioId: id,
      image: {
        versionId: scenario.strategyVersionId,
        digest: manifest.imageDigest,
        registryUrl: deps.registryUrl,
        repository: repositoryName(scenario.strategyVersionId),
        pullToken: (await issuePullToken(deps.signingSecret, scenario.strategyVersionId)).token,
      },
      signal,
    });
    mark('prepared');
    if (signal.aborted) return stopped();

    let connected!: () => void;
    const connection = new Promise<'connected'>((resolve) => {
      connected = () => resolve('connected');
    });
    const provider = new ConnectionReportingProvider(connected, {
      scenario: simulation,
      store: deps.market,
      engineVersion: deps.engineVersion,
      rateLimitPerMinute: DEFAULT_RATE_LIMIT_PER_MINUTE,
      mode: 'simulation',
    });
    const apiKey = randomBytes(24).toString('base64url');
    gateway = await startGateway(gatewaySettings(prepared.gatewayBindHost, apiKey, limits), {
      provider,
      writeResults: false,
      logDestination: gatewayLog(log.child({ part: 'gateway' })),
    });
    mark('gateway');
    const port = Number(new URL(gateway.url).port);
    const server = gateway.app.server;
    strategy = await prepared.start({
      env: strategyEnvironment(id, scenario, {
        host: prepared.gatewayAdvertisedHost,
        port: prepared.gatewayAdvertisedPort ?? port,
        apiKey,
      }),
      gateway: { port, accept: (socket) => server.emit('connection', socket) },
      stdout: stdout.write,
      stderr: stderr.write,
    });
    mark('started');
    const exited = strategy.exited;

    const first = await Promise.race([
      connection,
      exited,
      sleep(limits.connectTimeoutMs),
      abortedPromise(signal),
    ]);
    if (first === 'aborted') return stopped();
    if (first === 'timeout') {
      throw new RunFailure(
        'strategy',
        `the strategy did not connect to its gateway (PROXY_WS_URL) within ${limits.connectTimeoutMs / 1000} s of starting`,
      );
    }
    if (first !== 'connected') throw strategyExitFailure(first, 'before connecting to its gateway', stderr);
    mark('connected');
    if (!(await deps.scenarios.markRunning(id, workerId))) return stopped();
    runningSince = performance.now();
    progress.simulatedTime = () => provider.now;

    const done = gateway.done.then((end) => ({ end }));
    const second = await Promise.race([done, exited, abortedPromise(signal)]);
    if (second === 'aborted') return stopped();
    let end: RunEnd | undefined;
    if ('end' in second) end = second.end;
    else {
      // The exit and the last acknowledgment can arrive in either order: give the run a moment to end.
      const settled = await Promise.race([done, sleep(1000)]);
      if (settled !== 'timeout' && settled.end.outcome.kind === 'completed') end = settled.end;
      else throw strategyExitFailure(second, 'before the backtest ended', stderr);
    }
    if (end.outcome.kind === 'failed') {
      // A strategy stopped at a limit loses its connection too: the limit is the cause worth naming.
      const exit = await Promise.race([exited, sleep(1000)]);
      if (exit !== 'timeout' && exit.breach)
        throw strategyExitFailure(exit, 'before the backtest ended', stderr);
      throw new RunFailure(end.outcome.errorType, end.outcome.message);
    }
    mark('replayed');
    outcome = { kind: 'complete', end, simulatedAt: provider.now };
    // Decision 19b: the strategy may exit by itself after the end; later it is stopped, and its exit
    // code no longer matters.
    await Promise.race([exited, sleep(limits.exitGraceMs)]);
    mark('exited');
  } catch (error) {
    if (signal.aborted) return stopped();
    outcome = { kind: 'failed', failure: asRunFailure(error) };
  } finally {
    await strategy?.stop(limits.stopGraceMs).catch(() => undefined);
    await gateway?.close().catch(() => undefined);
    await prepared?.release().catch((error: Error) => log.warn({ err: error }, 'release failed'));
    await saveLogs(deps, id, log, stdout, stderr);
    mark('cleaned');
  }
  let report: RunReport = { outcome: 'stopped' };
  if (outcome?.kind === 'complete') {
    report = await recordCompletion(deps, scenario, workerId, outcome.end, outcome.simulatedAt);
  } else if (outcome?.kind === 'failed') {
    report = await recordFailure(deps, id, workerId, outcome.failure);
  }
  mark('recorded');
  log.info({ outcome: outcome?.kind ?? 'stopped', phasesMs: phases }, 'scenario run ended');
  return { ...report, ...sinceRunning(runningSince) };
}

const sinceRunning = (since: number | undefined) =>
  since === undefined ? {} : { runningSeconds: (performance.now() - since) / 1000 };

/** The simulation's view of the scenario and the manifest that pins it; refusals are platform faults. */
async function resolveRun(
  deps: RunDependencies,
  scenario: Scenario,
): Promise<{ simulation: SimulationScenario; manifest: ScenarioManifest }> {
  const repository = await deps.registry.repository(scenario.strategyVersionId);
  if (repository?.imageStatus !== 'ready' || !repository.imageDigest) {
    throw new RunFailure(
      'platform',
      repository?.imageStatus === 'evicted'
        ? `the image of version ${scenario.strategyVersionId} was evicted after the scenario was queued (IMAGE_EVICTED); upload a new version`
        : `version ${scenario.strategyVersionId} has no pushed image`,
      true,
    );
  }
  const instruments = new Map<string, InstrumentDefinition>(
    (await deps.catalog.all()).map((i) => [i.symbol, i]),
  );
  const { env: _env, ...settings } = scenario;
  let simulation: SimulationScenario;
  try {
    simulation = await checkScenario(
      `scenario ${scenario.scenarioId}`,
      {
        subscriptions: settings.subscriptions,
        startTime: settings.startTime,
        endTime: settings.endTime,
        positionMode: settings.positionMode,
        initialCapital: settings.initialCapital,
        ...(settings.costs && { costs: settings.costs }),
      },
      deps.market,
      (symbol) => instruments.get(symbol),
    );
  } catch (error) {
    throw new RunFailure(
      'platform',
      `the scenario's market data is no longer usable: ${(error as Error).message}`,
    );
  }
  const configuration = {
    subscriptions: scenario.subscriptions,
    startTime: scenario.startTime,
    endTime: scenario.endTime,
    positionMode: scenario.positionMode,
    initialCapital: scenario.initialCapital,
    ...(scenario.env && { env: scenario.env }),
    ...(scenario.costs && { costs: scenario.costs }),
  };
  return {
    simulation,
    manifest: {
      imageDigest: repository.imageDigest,
      dataFingerprint: await dataFingerprint(
        deps.market,
        simulation.instruments.map((i) => i.symbol),
        simulation.window,
      ),
      engineVersion: deps.engineVersion,
      configuration,
    },
  };
}

async function recordCompletion(
  deps: RunDependencies,
  scenario: Scenario,
  workerId: string,
  end: RunEnd,
  simulatedAt: number,
): Promise<RunReport> {
  const files = end.files;
  if (!files) {
    return recordFailure(
      deps,
      scenario.scenarioId,
      workerId,
      new RunFailure('platform', 'the run ended without result files'),
    );
  }
  const completed = await deps.scenarios.complete(
    scenario.scenarioId,
    workerId,
    await compressResultFiles(files),
    files.metrics,
    new Date(),
    new Date(simulatedAt),
  );
  return completed ? { outcome: 'complete' } : { outcome: 'stopped' };
}

/**
 * A strategy failure, or a platform failure on its last attempt, fails the scenario; an earlier
 * platform failure sends it back to the queue (decision 40).
 */
async function recordFailure(
  deps: RunDependencies,
  id: string,
  workerId: string,
  failure: RunFailure,
): Promise<RunReport> {
  const { errorType, message } = failure;
  if (errorType === 'platform' && !failure.final) {
    const ended = await deps.scenarios.endAttempt(id, workerId, 'platform_error', message, deps.maxAttempts);
    if (ended === 'requeued') {
      deps.log.warn({ scenarioId: id, err: failure }, 'the run failed for a platform reason; requeued');
      return { outcome: 'requeued' };
    }
    return ended === 'failed' ? { outcome: 'failed', errorType } : { outcome: 'stopped' };
  }
  return (await deps.scenarios.fail(id, workerId, errorType, message))
    ? { outcome: 'failed', errorType }
    : { outcome: 'stopped' };
}

async function saveLogs(
  deps: RunDependencies,
  id: string,
  log: FastifyBaseLogger,
  stdout: OutputCapture,
  stderr: OutputCapture,
) {
  try {
    await deps.scenarios.saveLog(id, 'stdout', stdout.contents(), stdout.totalBytes);
    await deps.scenarios.saveLog(id, 'stderr', stderr.contents(), stderr.totalBytes);
  } catch (error) {
    log.warn({ err: error }, 'could not store the strategy output');
  }
}

function strategyExitFailure(exit: StrategyExit, when: string, stderr: OutputCapture): RunFailure {
  const tail = stderr.lastText(600);
  const what = exit.breach
    ? `ran into ${describeBreach(exit.breach)} and was stopped`
    : `${describeExit(exit)}${exit.limits ? ` (it ran under these limits: ${exit.limits})` : ''}`;
  return new RunFailure(
    'strategy',
    `the strategy ${what} ${when}${tail ? `; the end of its stderr: ${tail}` : ''}`,
  );
}

function asRunFailure(error: unknown): RunFailure {
  if (error instanceof RunFailure) return error;
  if (error instanceof ImageRunError) return new RunFailure('strategy', error.message);
  if (error instanceof ExecutorError) return new RunFailure('platform', error.message);
  return new RunFailure('platform', `internal error: ${(error as Error).message ?? String(error)}`);
}

type SimulationProviderOptions = ConstructorParameters<typeof SimulationProvider>[0];

/** The simulation provider, telling the worker when the strategy's first connection arrives (RUNNING). */
class ConnectionReportingProvider extends SimulationProvider {
  constructor(
    private readonly onConnected: () => void,
    options: SimulationProviderOptions,
  ) {
    super(options);
  }

  override strategyConnected(): void {
    super.strategyConnected();
    this.onConnected();
  }
}

function gatewaySettings(host: string, apiKey: string, limits: RunLimits): GatewaySettings {
  return {
    provider: 'simulation',
    mode: 'simulation',
    host,
    port: 0,
    apiKey,
    enableSwagger: false,
    log: { defaultLevel: 'warn', targets: new Map() },
    scenarioFile: undefined,
    dataDir: '',
    resultsDir: undefined,
    stallTimeoutMs: limits.stallTimeoutMs,
    rateLimitPerMinute: DEFAULT_RATE_LIMIT_PER_MINUTE,
    replaySpeed: 1,
    gitSha: 'unknown',
  };
}

/** The embedded gateway's log lines go to the worker's log (they are JSON lines from pino). */
function gatewayLog(log: FastifyBaseLogger): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      log.warn({ line: chunk.toString('utf8').trim() }, 'gateway');
      callback();
    },
  });
}
