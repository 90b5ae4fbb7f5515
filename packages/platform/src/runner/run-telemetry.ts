import type { ErrorType, Scenario } from '../repositories/scenarios.ts';

/**
 * What a run tells its worker when it ends, and what a worker tells whoever counts its runs (the
 * platform's Prometheus metrics, operations/platform-metrics.ts). Kept apart from the metrics library
 * so that the runner does not depend on it; every hook is a few arithmetic operations, off the run's path.
 */
export type RunReport =
  | { outcome: 'complete'; runningSeconds?: number }
  | { outcome: 'failed'; errorType: ErrorType; runningSeconds?: number }
  /** The run failed for a platform reason and the scenario went back to the queue for another attempt. */
  | { outcome: 'requeued'; runningSeconds?: number }
  /**
   * The run ended without this worker recording an outcome: it was cancelled or deleted, its lease
   * was lost, the worker is stopping, or the outcome could not be written.
   */
  | { outcome: 'stopped'; runningSeconds?: number };

export interface RunTelemetry {
  /** A worker of this process claimed `scenario` (QUEUED -> PENDING; its `startedAt` is the claim). */
  runStarted(scenario: Scenario): void;
  /** The run ended; `runningSeconds` is the time from RUNNING to the end, when it got that far. */
  runEnded(report: RunReport): void;
  /**
   * This process ended the attempts of scenarios whose worker's lease lapsed (their worker is gone):
   * `requeued` went back to the queue, `failed` had no attempt left.
   */
  scenariosAbandoned(ended: { requeued: number; failed: number }): void;
  /** This process's stopping worker handed `count` unfinished runs back to the queue. */
  runsHandedBack(count: number): void;
}
