import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ScenarioRepository } from '../repositories/scenarios.ts';
import type { RunReport, RunTelemetry } from './run-telemetry.ts';
import type { RunDependencies, RunProgressProbe } from './scenario-run.ts';
import { runScenario } from './scenario-run.ts';
import type { ScenarioSignals } from './scenario-signals.ts';

export interface WorkerOptions {
  /** Scenarios run at once by this worker. */
  concurrency: number;
  /** How long a claim holds without renewal; a worker renews every `leaseMs / 4`, at most every second. */
  leaseMs: number;
  /** How often an idle worker looks for QUEUED scenarios (a creation in this process wakes it at once). */
  pollMs: number;
  /** Attempts a scenario gets when its runs end for platform faults (decision 40). */
  maxAttempts: number;
  /** How long `stop()` lets the runs in progress finish before it hands the rest back to the queue. */
  stopGraceMs: number;
  /** Embedded store: requeue every claimed scenario at start (no other process can be running them). */
  requeueClaimedAtStart?: boolean;
  /** Told of each claim, each run's end and each abandoned scenario failed (the platform's metrics). */
  telemetry?: RunTelemetry;
}

/**
 * A worker: claims QUEUED scenarios from the shared table (any number of workers, in any number of
 * processes and machines), runs up to `concurrency` of them, renews their leases, stops those that
 * were cancelled or deleted, and requeues the scenarios of workers that died (lapsed leases) while
 * they have attempts left (decision 40). Stopping, it lets its runs finish within a grace period and
 * hands the rest back to the queue.
 *
 * Its writes ride out database outages (docs/scenarios.md, "Database outages"): a write about a run
 * retries until that run's lease, as last written, would lapse; a queue-wide one for a lease's length.
 * Its runs go on meanwhile; a run stops only when the renewal that gets through finds it taken.
 */
export class ScenarioWorker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly running = new Map<
    string,
    { abort: AbortController; done: Promise<RunReport>; progress: RunProgressProbe }
  >();
  /** When the lease this worker last wrote for each of its runs lapses (epoch ms). */
  private readonly leaseEnds = new Map<string, number>();
  private stopped = false;
  /** Set once the grace period is over: the runs still going are being handed back. */
  private handingBack = false;
  /** Cuts short the retries of queue-wide writes when the worker stops. */
  private readonly stopping = new AbortController();
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private renewal: Promise<void> | undefined;
  private readonly scenarios: ScenarioRepository;
  /** What the runs get: the same dependencies, with the retrying repository. */
  private readonly runDeps: RunDependencies;

  constructor(
    private readonly deps: RunDependencies,
    private readonly options: WorkerOptions,
    private readonly signals?: ScenarioSignals,
  ) {
    this.scenarios = deps.scenarios.withRetry((scenarioId) => {
      const leaseFromNow = Date.now() + options.leaseMs;
      const onRetry = (error: unknown, attempt: number, delayMs: number) =>
        deps.log.warn(
          { scenarioId, attempt, delayMs, err: error },
          'the database is unreachable; retrying the write',
        );
      if (scenarioId === undefined) {
        return { deadline: leaseFromNow, signal: this.stopping.signal, onRetry };
      }
      // Read again before each wait: a renewal that gets through meanwhile extends it.
      return { deadline: () => this.leaseEnds.get(scenarioId) ?? leaseFromNow, onRetry };
    });
    this.runDeps = { ...deps, scenarios: this.scenarios };
  }

  /** Starts claiming. */
  async start(): Promise<void> {
    if (this.options.requeueClaimedAtStart) {
      const ended = await this.scenarios.requeueAbandoned(this.options.maxAttempts, new Date(), true);
      this.reportAbandoned(ended, 'scenarios left running by the last run');
    }
    this.signals?.onQueued(this.nudge);
    this.signals?.onStopped(this.stopRun);
    // Renewal is also how a worker learns of a cancel made through another process: at least every
    // second, so that the run stops within 2 s of the cancel.
    this.renewTimer = setInterval(
      () => void this.renew(),
      Math.max(100, Math.min(1000, this.options.leaseMs / 4)),
    );
    this.renewTimer.unref();
    this.loop = this.claimLoop();
  }

  /** Wakes an idle worker (a scenario was just queued in this process). */
  private readonly nudge = () => {
    this.wake?.();
  };

  /** Stops a run at once (it was cancelled or deleted through this process's API). */
  private readonly stopRun = (scenarioId: string) => {
    this.running.get(scenarioId)?.abort.abort();
  };

  private async claimLoop(): Promise<void> {
    while (!this.stopped) {
      let claimed = false;
      if (this.running.size < this.options.concurrency) {
        try {
          // Renew first: after an outage longer than a lease, this worker's own runs are not lost
          // unless another worker or API process failed them before this worker got through.
          await this.renew();
          this.reportAbandoned(
            await this.scenarios.requeueAbandoned(this.options.maxAttempts),
            'scenarios of a lost worker',
          );
          const scenario = await this.scenarios.claim(this.id, this.options.leaseMs);
          if (scenario) {
            claimed = true;
            this.options.telemetry?.runStarted(scenario);
            const id = scenario.scenarioId;
            const abort = new AbortController();
            const progress: RunProgressProbe = {};
            this.leaseEnds.set(id, Date.now() + this.options.leaseMs);
            const done = runScenario(this.runDeps, scenario, this.id, abort.signal, progress)
              .catch((error: Error): RunReport => {
                this.deps.log.error({ scenarioId: id, err: error }, 'scenario run failed');
                return { outcome: 'stopped' };
              })
              .then((report) => {
                // A run stopped to be handed back is counted by `stop()`, which hands it back.
                if (!(report.outcome === 'stopped' && this.handingBack))
                  this.options.telemetry?.runEnded(report);
                return report;
              })
              .finally(() => {
                this.running.delete(id);
                this.leaseEnds.delete(id);
                this.wake?.();
              });
            this.running.set(id, { abort, done, progress });
          }
        } catch (error) {
          if (this.stopped) break;
          this.deps.log.error({ err: error }, 'claiming a scenario failed; retrying');
        }
      }
      if (!claimed && !this.stopped) await this.idle();
    }
  }

  private reportAbandoned(ended: { requeued: string[]; failed: string[] }, what: string): void {
    this.options.telemetry?.scenariosAbandoned({
      requeued: ended.requeued.length,
      failed: ended.failed.length,
    });
    if (ended.requeued.length + ended.failed.length > 0)
      this.deps.log.warn(ended, `ended the attempts of ${what}`);
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.options.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }

  /**
   * Renews the leases of the running scenarios; stops those this worker no longer holds. One renewal
   * at a time: while one retries through an outage, the timer's ticks join it.
   */
  private renew(): Promise<void> {
    this.renewal ??= this.renewHeld().finally(() => {
      this.renewal = undefined;
    });
    return this.renewal;
  }

  private async renewHeld(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0) return;
    try {
      const lost = new Set(
        await this.scenarios.renewLeases(this.id, ids, this.options.leaseMs, this.progressOf(ids)),
      );
      const leaseEnd = Date.now() + this.options.leaseMs;
      for (const id of ids) {
        if (lost.has(id)) this.running.get(id)?.abort.abort();
        else if (this.running.has(id)) this.leaseEnds.set(id, leaseEnd);
      }
    } catch (error) {
      if (!this.stopped) this.deps.log.warn({ err: error }, 'renewing scenario leases failed');
    }
  }

  /**
   * The simulated time each run has reached, for the renewal to record. A probe that throws or
   * answers nonsense is left out: progress is a display, never a reason for a run to fail.
   */
  private progressOf(ids: string[]): Map<string, number> {
    const progress = new Map<string, number>();
    for (const id of ids) {
      try {
        const at = this.running.get(id)?.progress.simulatedTime?.();
        if (at !== undefined && Number.isFinite(at)) progress.set(id, at);
      } catch {
        // not recorded this time
      }
    }
    return progress;
  }

  /** How this worker's strategies are kept apart and bounded (its executor's `isolation`). */
  get isolation(): string {
    return this.deps.executor.isolation;
  }

  /** Claiming: started and not stopped (the platform's readiness). */
  get claiming(): boolean {
    return this.loop !== undefined && !this.stopped;
  }

  /** Scenarios this worker is running now. */
  get active(): number {
    return this.running.size;
  }

  /**
   * Stops claiming and lets the runs in progress go on (their leases renewed, cancels obeyed) for up
   * to `stopGraceMs`; then stops the runs still going and hands them back to the queue, where another
   * worker runs them again from the start (equal manifests give equal files, decision 40). Waits until
   * every strategy process is gone.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // Queue-wide writes stop retrying (a claim in an outage must not hold the stop up); a renewal
    // that fails meanwhile is tried again at the next tick.
    this.stopping.abort();
    this.wake?.();
    this.signals?.offQueued(this.nudge);
    await this.loop;
    if (this.running.size > 0 && this.options.stopGraceMs > 0) {
      this.deps.log.info(
        { runs: [...this.running.keys()], graceMs: this.options.stopGraceMs },
        'stopping: letting the runs in progress finish',
      );
      const finished = Promise.all([...this.running.values()].map((run) => run.done));
      await Promise.race([finished, sleep(this.options.stopGraceMs)]);
    }
    this.handingBack = true;
    const runs = [...this.running.entries()];
    for (const [, run] of runs) run.abort.abort();
    const reports = await Promise.all(runs.map(([, run]) => run.done));
    let handedBack = 0;
    for (const [index, [id]] of runs.entries()) {
      const report = reports[index];
      if (report?.outcome !== 'stopped') continue;
      const outcome = await this.scenarios
        .endAttempt(
          id,
          this.id,
          'worker_stopped',
          'the worker running this scenario was stopped before the run ended',
          this.options.maxAttempts,
        )
        .catch((error: Error) => {
          this.deps.log.warn({ scenarioId: id, err: error }, 'could not hand the run back');
          return undefined;
        });
      if (outcome === 'requeued') handedBack += 1;
      else this.options.telemetry?.runEnded(report);
    }
    this.options.telemetry?.runsHandedBack(handedBack);
    if (handedBack > 0) this.deps.log.info({ runs: handedBack }, 'handed unfinished runs back to the queue');
    clearInterval(this.renewTimer);
    this.signals?.offStopped(this.stopRun);
    await this.deps.executor.close();
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
