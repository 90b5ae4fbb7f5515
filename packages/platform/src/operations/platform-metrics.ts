import { and, count, gt, inArray } from 'drizzle-orm';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/database.ts';
import { scenarios } from '../db/schema.ts';
import type { ErrorType, Scenario } from '../repositories/scenarios.ts';
import type { RunReport, RunTelemetry } from '../runner/run-telemetry.ts';
import { withDeadline } from './database-check.ts';

/**
 * The platform's Prometheus metrics (`GET /metrics`, docs/operating.md "Health and metrics"), one
 * registry per platform so that several platforms can share a process (the tests do).
 *
 * Two kinds of series: the queue's state, read from the shared scenarios table at each scrape (the
 * same answer from every process), and what this process's worker did (counters and histograms
 * kept in memory, reset when the process restarts, summed across processes by Prometheus).
 */

/** The scenario states a queue is made of (terminal states only grow, and are not a depth). */
const QUEUE_STATES = ['QUEUED', 'PENDING', 'RUNNING'] as const;
const ERROR_TYPES: readonly ErrorType[] = ['strategy', 'platform'];
/** A scrape gives up on the database after this long and reports `hindsight_database_up 0`. */
const SCRAPE_QUERY_TIMEOUT_MS = 3000;

/** What the metrics read of this process's worker. */
export interface WorkerView {
  readonly id: string;
  readonly active: number;
}

export class PlatformMetrics implements RunTelemetry {
  readonly registry = new Registry();
  private readonly started: Counter;
  private readonly completed: Counter;
  private readonly failed: Counter<'error_type'>;
  private readonly stopped: Counter;
  private readonly abandoned: Counter<'outcome'>;
  private readonly requeued: Counter<'reason'>;
  private readonly runDuration: Histogram<'outcome'>;
  private readonly queueWait: Histogram;
  private readonly queueDepth: Gauge<'state'>;
  private readonly workersAlive: Gauge;
  private readonly databaseUp: Gauge;

  constructor(
    private readonly db: Db,
    version: string,
    /** This process's worker, once started (undefined in an API-only process). */
    private readonly worker: () => WorkerView | undefined,
  ) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'hindsight_platform_info',
      help: 'Always 1; the platform version as a label.',
      labelNames: ['version'],
      registers,
    }).set({ version }, 1);
    this.started = new Counter({
      name: 'hindsight_scenario_runs_started_total',
      help: "Scenarios this process's worker claimed (QUEUED -> PENDING): one per attempt.",
      registers,
    });
    this.completed = new Counter({
      name: 'hindsight_scenario_runs_completed_total',
      help: "Runs of this process's worker that ended COMPLETE.",
      registers,
    });
    this.failed = new Counter({
      name: 'hindsight_scenario_runs_failed_total',
      help: "Runs of this process's worker that ended FAILED, by the scenario's errorType.",
      labelNames: ['error_type'],
      registers,
    });
    for (const errorType of ERROR_TYPES) this.failed.inc({ error_type: errorType }, 0);
    this.stopped = new Counter({
      name: 'hindsight_scenario_runs_stopped_total',
      help: "Runs of this process's worker that ended without an outcome of its own: cancelled, deleted, or their lease lost.",
      registers,
    });
    this.abandoned = new Counter({
      name: 'hindsight_scenarios_abandoned_total',
      help: "Attempts this process ended because their worker's lease lapsed (the worker died or lost the database), by what became of the scenario: requeued, or failed (platform) with no attempt left.",
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['requeued', 'failed']) this.abandoned.inc({ outcome }, 0);
    this.requeued = new Counter({
      name: 'hindsight_scenario_attempts_requeued_total',
      help: "Attempts of this process's worker that ended without an outcome and went back to the queue: the run failed for a platform reason (platform_error) or the stopping worker handed it back (worker_stopped). Lost workers' attempts are in hindsight_scenarios_abandoned_total.",
      labelNames: ['reason'],
      registers,
    });
    for (const reason of ['platform_error', 'worker_stopped']) this.requeued.inc({ reason }, 0);
    this.runDuration = new Histogram({
      name: 'hindsight_scenario_run_duration_seconds',
      help: "Wall-clock time of a run of this process's worker from RUNNING (the strategy connected) to its end, by outcome.",
      labelNames: ['outcome'],
      buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200],
      registers,
    });
    for (const outcome of ['complete', 'failed', 'requeued', 'stopped']) this.runDuration.zero({ outcome });
    this.queueWait = new Histogram({
      name: 'hindsight_scenario_queue_wait_seconds',
      help: "Time from a scenario's creation to its claim by this process's worker.",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    });
    this.queueDepth = new Gauge({
      name: 'hindsight_scenario_queue_depth',
      help: 'Scenarios QUEUED, PENDING (claimed) or RUNNING now, across every worker (read at scrape).',
      labelNames: ['state'],
      registers,
    });
    this.workersAlive = new Gauge({
      name: 'hindsight_workers_alive',
      help: "Workers holding an unexpired lease on a PENDING or RUNNING scenario, plus this process's worker (read at scrape).",
      registers,
    });
    this.databaseUp = new Gauge({
      name: 'hindsight_database_up',
      help: 'Whether the database answered the queries of this scrape (1) or not (0).',
      registers,
    });
    const activeRuns: Gauge = new Gauge({
      name: 'hindsight_worker_active_runs',
      help: "Runs this process's worker is running now (0 without a worker).",
      registers,
      collect: () => activeRuns.set(this.worker()?.active ?? 0),
    });
  }

  runStarted(scenario: Scenario): void {
    this.started.inc();
    if (scenario.startedAt) {
      const waited = (scenario.startedAt.getTime() - scenario.createdAt.getTime()) / 1000;
      // Clocks of two machines may disagree by a little: a negative wait is zero.
      this.queueWait.observe(Math.max(0, waited));
    }
  }

  runEnded(report: RunReport): void {
    if (report.outcome === 'complete') this.completed.inc();
    else if (report.outcome === 'failed') this.failed.inc({ error_type: report.errorType });
    else if (report.outcome === 'requeued') this.requeued.inc({ reason: 'platform_error' });
    else this.stopped.inc();
    if (report.runningSeconds !== undefined)
      this.runDuration.observe({ outcome: report.outcome }, report.runningSeconds);
  }

  scenariosAbandoned(ended: { requeued: number; failed: number }): void {
    if (ended.requeued > 0) this.abandoned.inc({ outcome: 'requeued' }, ended.requeued);
    if (ended.failed > 0) this.abandoned.inc({ outcome: 'failed' }, ended.failed);
  }

  runsHandedBack(count: number): void {
    if (count > 0) this.requeued.inc({ reason: 'worker_stopped' }, count);
  }

  /** The text exposition, after reading the queue's state from the database. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    await this.readQueue();
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /**
   * One GROUP BY and one DISTINCT, both on the partial indexes of the queue's states. A database that
   * does not answer leaves the depths out and the worker count NaN (stale values would mislead), and
   * says so in `hindsight_database_up`.
   */
  private async readQueue(): Promise<void> {
    try {
      const [depths, workers] = await withDeadline(
        Promise.all([
          this.db
            .select({ state: scenarios.state, scenarios: count() })
            .from(scenarios)
            .where(inArray(scenarios.state, [...QUEUE_STATES]))
            .groupBy(scenarios.state),
          this.db
            .selectDistinct({ workerId: scenarios.workerId })
            .from(scenarios)
            .where(
              and(inArray(scenarios.state, ['PENDING', 'RUNNING']), gt(scenarios.leaseExpiresAt, new Date())),
            ),
        ]),
        SCRAPE_QUERY_TIMEOUT_MS,
        'the database',
      );
      for (const state of QUEUE_STATES) {
        this.queueDepth.set({ state }, depths.find((row) => row.state === state)?.scenarios ?? 0);
      }
      const alive = new Set(workers.map((row) => row.workerId));
      const own = this.worker();
      if (own) alive.add(own.id);
      alive.delete(null);
      this.workersAlive.set(alive.size);
      this.databaseUp.set(1);
    } catch {
      this.queueDepth.reset();
      // Unknown, not zero (an unlabelled gauge cannot be left out).
      this.workersAlive.set(Number.NaN);
      this.databaseUp.set(0);
    }
  }
}
