import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ScenarioRepository } from '../repositories/scenarios.ts';
import type { RunDependencies } from './scenario-run.ts';
import { runScenario } from './scenario-run.ts';
import type { ScenarioSignals } from './scenario-signals.ts';

export interface WorkerOptions {
  /** Scenarios run at once by this worker. */
  concurrency: number;
  /** How long a claim holds without renewal; a worker renews every `leaseMs / 4`, at most every second. */
  leaseMs: number;
  /** How often an idle worker looks for QUEUED scenarios (a creation in this process wakes it at once). */
  pollMs: number;
  /** Embedded store: fail every claimed scenario at start (no other process can be running them). */
  failClaimedAtStart?: boolean;
}

/**
 * A worker: claims QUEUED scenarios from the shared table (any number of workers, in any number of
 * processes and machines), runs up to `concurrency` of them, renews their leases, stops those that
 * were cancelled or deleted, and fails the scenarios of workers that died (lapsed leases).
 */
export class ScenarioWorker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private stopped = false;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private readonly scenarios: ScenarioRepository;

  constructor(
    private readonly deps: RunDependencies,
    private readonly options: WorkerOptions,
    private readonly signals?: ScenarioSignals,
  ) {
    this.scenarios = deps.scenarios;
  }

  /** Starts claiming. */
  async start(): Promise<void> {
    if (this.options.failClaimedAtStart) {
      const failed = await this.scenarios.failAbandoned(new Date(), true);
      if (failed.length > 0)
        this.deps.log.warn({ scenarios: failed }, 'failed scenarios left running by the last run');
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
          await this.scenarios.failAbandoned();
          const scenario = await this.scenarios.claim(this.id, this.options.leaseMs);
          if (scenario) {
            claimed = true;
            const abort = new AbortController();
            const done = runScenario(this.deps, scenario, this.id, abort.signal)
              .catch((error: Error) =>
                this.deps.log.error({ scenarioId: scenario.scenarioId, err: error }, 'scenario run failed'),
              )
              .finally(() => {
                this.running.delete(scenario.scenarioId);
                this.wake?.();
              });
            this.running.set(scenario.scenarioId, { abort, done });
          }
        } catch (error) {
          if (this.stopped) break;
          this.deps.log.error({ err: error }, 'claiming a scenario failed; retrying');
        }
      }
      if (!claimed && !this.stopped) await this.idle();
    }
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

  /** Renews the leases of the running scenarios; stops those this worker no longer holds. */
  private async renew(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0) return;
    try {
      const lost = await this.scenarios.renewLeases(this.id, ids, this.options.leaseMs);
      for (const id of lost) this.running.get(id)?.abort.abort();
    } catch (error) {
      this.deps.log.warn({ err: error }, 'renewing scenario leases failed');
    }
  }

  /** Scenarios this worker is running now. */
  get active(): number {
    return this.running.size;
  }

  /**
   * Stops claiming, stops the runs in progress and fails them as `platform` (the platform is going
   * away, not the strategy), and waits until every strategy process is gone.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.wake?.();
    clearInterval(this.renewTimer);
    this.signals?.offQueued(this.nudge);
    this.signals?.offStopped(this.stopRun);
    await this.loop;
    const runs = [...this.running.entries()];
    for (const [, run] of runs) run.abort.abort();
    await Promise.all(runs.map(([, run]) => run.done));
    for (const [id] of runs) {
      await this.scenarios
        .fail(id, this.id, 'platform', 'the worker running this scenario was shut down before the run ended')
        .catch(() => false);
    }
    await this.deps.executor.close();
  }
}
