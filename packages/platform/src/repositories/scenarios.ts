import { ApiError, badRequest, newId, notFound } from '@hindsight/core';
import { and, arrayOverlaps, eq, gt, inArray, lt, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/database.ts';
import { pgErrorCode } from '../db/errors.ts';
import { type ScenarioState, scenarioLogs, scenarioResults, scenarios, users } from '../db/schema.ts';
import { type RetryOptions, retryTransient } from '../db/transient.ts';
import type { ResultFileName, ResultFileStore, ResultFiles } from '../storage/result-files.ts';
import type { ConfigurationSettings } from './configurations.ts';
import { lockActiveStrategy, missingOwnedResource } from './ownership.ts';
import {
  afterKey,
  type CursorCodec,
  newestFirst,
  type Page,
  type PageRequest,
  toPage,
} from './pagination.ts';

const FOREIGN_KEY_VIOLATION = '23503';

export const ACTIVE_STATES: readonly ScenarioState[] = ['QUEUED', 'PENDING', 'RUNNING'];
export const TERMINAL_STATES: readonly ScenarioState[] = ['COMPLETE', 'FAILED', 'CANCELLED'];
export type ErrorType = 'strategy' | 'platform';

/**
 * Why an attempt ended without an outcome and the scenario went back to the queue (decision 40):
 * its worker was lost (lapsed lease), its worker was stopped and handed it back, or the run failed
 * for a platform reason.
 */
export type AttemptEnd = 'worker_lost' | 'worker_stopped' | 'platform_error';

/** One earlier attempt of a scenario, as its `attempts` list shows it. */
export interface AttemptRecord {
  attempt: number;
  startedAt: string;
  runningAt?: string;
  endedAt: string;
  end: AttemptEnd;
  message: string;
}

/** What ending an attempt did: requeued the scenario, failed it (no attempt left), or nothing (not held). */
export type AttemptOutcome = 'requeued' | 'failed' | undefined;

/** The reproducibility manifest recorded when a worker starts a run (docs/scenarios.md). */
export interface ScenarioManifest {
  imageDigest: string;
  dataFingerprint: string;
  engineVersion: string;
  configuration: ConfigurationSettings;
}

/** The scenario record (spec: Scenario; the fields the spec leaves open are in docs/scenarios.md). */
export interface Scenario extends ConfigurationSettings {
  scenarioId: string;
  strategyId: string;
  strategyVersionId: string;
  ownerId: string;
  configId?: string;
  label?: string;
  state: ScenarioState;
  /** The number of the attempt running now or of the last one; 0 until the first claim. */
  attempt: number;
  /** Earlier attempts that ended without an outcome and were requeued. */
  attempts: AttemptRecord[];
  errorType?: ErrorType;
  errorMessage?: string;
  manifest?: ScenarioManifest;
  createdAt: Date;
  updatedAt: Date;
  startedAt?: Date;
  runningAt?: Date;
  finishedAt?: Date;
}

/** What creation stores: one run of one version against resolved settings. */
export interface ScenarioInput {
  versionId: string;
  settings: ConfigurationSettings;
  configId?: string | undefined;
  label?: string | undefined;
  /** The batch call that created it (`POST .../scenarios/batch`): the web app's sweep id. */
  batchId?: string | undefined;
}

export interface ScenarioFilters {
  state?: ScenarioState | undefined;
  strategyVersionId?: string | undefined;
  isCompleted?: boolean | undefined;
  createdAfter?: Date | undefined;
  createdBefore?: Date | undefined;
  instruments?: string[] | undefined;
}

type Row = typeof scenarios.$inferSelect;

export const toScenario = (row: Row): Scenario => {
  const settings = row.settings as ConfigurationSettings;
  const scenario: Scenario = {
    scenarioId: row.id,
    strategyId: row.strategyId,
    strategyVersionId: row.versionId,
    ownerId: row.ownerId,
    state: row.state,
    attempt: row.attempt,
    attempts: row.attempts as AttemptRecord[],
    subscriptions: settings.subscriptions,
    startTime: settings.startTime,
    endTime: settings.endTime,
    positionMode: settings.positionMode,
    initialCapital: settings.initialCapital,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  if (settings.env !== undefined) scenario.env = settings.env;
  if (settings.costs !== undefined) scenario.costs = settings.costs;
  if (row.configId !== null) scenario.configId = row.configId;
  if (row.label !== null) scenario.label = row.label;
  if (row.errorType !== null) scenario.errorType = row.errorType;
  if (row.errorMessage !== null) scenario.errorMessage = row.errorMessage;
  if (row.manifest !== null) scenario.manifest = row.manifest as ScenarioManifest;
  if (row.startedAt !== null) scenario.startedAt = row.startedAt;
  if (row.runningAt !== null) scenario.runningAt = row.runningAt;
  if (row.finishedAt !== null) scenario.finishedAt = row.finishedAt;
  return scenario;
};

/**
 * How a worker's writes ride out a database outage: the retry options for a write about one scenario,
 * or (`undefined`) for a write about the queue (claim, lease renewal, the lapsed-lease check).
 */
export type WriteRetryPolicy = (scenarioId: string | undefined) => RetryOptions;

/** An epoch-ms instant PostgreSQL stores (years 1..9999): anything else is not written. */
const isStorableInstant = (ms: number) =>
  Number.isFinite(ms) && ms >= Date.UTC(1, 0, 1) && ms < Date.UTC(10000, 0, 1);

/**
 * `progress_at` for a renewal of `ids`: a CASE giving each id with a valid progress its instant and
 * keeping the others' column as it is; undefined when no id has progress to write.
 */
function progressColumn(ids: string[], progress: ReadonlyMap<string, number>): SQL | undefined {
  const cases: SQL[] = [];
  for (const id of ids) {
    const ms = progress.get(id);
    if (ms === undefined || !isStorableInstant(ms)) continue;
    cases.push(sql`WHEN ${id}::uuid THEN ${new Date(ms).toISOString()}::timestamptz`);
  }
  if (cases.length === 0) return undefined;
  return sql`CASE ${scenarios.id} ${sql.join(cases, sql` `)} ELSE ${scenarios.progressAt} END`;
}

/** A timestamp column as the API renders instants (ISO-8601, milliseconds, `Z`), inside SQL. */
const isoText = (column: SQLWrapper) =>
  sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The SET of an UPDATE that ends the current attempt of the rows it matches (decision 40): back to
 * QUEUED, with the attempt added to `attempts`, while fewer than `maxAttempts` attempts ended for a
 * platform fault; otherwise FAILED `platform` with `message` and the count. A worker that hands its run
 * back (`worker_stopped`) was not at fault: that attempt does not count towards the limit.
 */
function endAttemptSet(end: AttemptEnd, message: string, maxAttempts: number, now: Date) {
  const counts = end !== 'worker_stopped';
  const failures = counts ? sql`${scenarios.platformFailures} + 1` : sql`${scenarios.platformFailures}`;
  const requeue = sql`(${failures} < ${maxAttempts}::int)`;
  const record = sql`jsonb_strip_nulls(jsonb_build_object(
    'attempt', ${scenarios.attempt},
    'startedAt', ${isoText(scenarios.startedAt)},
    'runningAt', ${isoText(scenarios.runningAt)},
    'endedAt', ${now.toISOString()}::text,
    'end', ${end}::text,
    'message', ${message.slice(0, 1000)}::text))`;
  const finalMessage = `${message.slice(0, 3800)} (attempt `;
  const finalCount = sql`'; ' || ${failures} || ' of ' || ${maxAttempts}::int || ' allowed attempts ended for a platform reason)'`;
  const keepUnlessRequeued = (column: SQLWrapper) => sql`CASE WHEN ${requeue} THEN NULL ELSE ${column} END`;
  return {
    state: sql`CASE WHEN ${requeue} THEN 'QUEUED' ELSE 'FAILED' END`,
    platformFailures: failures,
    attempts: sql`CASE WHEN ${requeue} THEN ${scenarios.attempts} || jsonb_build_array(${record}) ELSE ${scenarios.attempts} END`,
    errorType: sql`CASE WHEN ${requeue} THEN NULL ELSE 'platform' END`,
    errorMessage: sql`CASE WHEN ${requeue} THEN NULL ELSE ${finalMessage} || ${scenarios.attempt} || ${finalCount} END`,
    finishedAt: sql`CASE WHEN ${requeue} THEN NULL ELSE ${now.toISOString()}::timestamptz END`,
    workerId: keepUnlessRequeued(scenarios.workerId),
    startedAt: keepUnlessRequeued(scenarios.startedAt),
    runningAt: keepUnlessRequeued(scenarios.runningAt),
    progressAt: keepUnlessRequeued(scenarios.progressAt),
    manifest: keepUnlessRequeued(scenarios.manifest),
    leaseExpiresAt: null,
    updatedAt: now,
  };
}

/** Rows `workerId` holds: claimed by it and not yet ended. */
const heldBy = (workerId: string) =>
  and(eq(scenarios.workerId, workerId), inArray(scenarios.state, ['PENDING', 'RUNNING']));

export const quotaExceeded = (quota: number) =>
  new ApiError(
    'QUOTA_EXCEEDED',
    `Your account already has ${quota} scenarios queued or running, its quota; wait for some to finish or cancel some (POST .../scenarios/{scenario_id}/cancel).`,
  );

/**
 * Scenario records and the queue operations on them. Every state change is one conditional UPDATE, so
 * a cancel racing a worker's completion, or two workers racing for a claim, resolve in the database:
 * a terminal state is never left (the WHERE clauses name the states a move may start from).
 *
 * The writes a worker makes (claim, leases, state, manifest, logs) retry transient connection faults
 * on the instance `withRetry` gives, each safe to repeat after an attempt whose answer was lost.
 */
export class ScenarioRepository {
  /** The instant of this instance's last claim: each claim's is distinct (see `claim`). */
  private lastClaimAt = 0;

  constructor(
    private readonly db: Db,
    private readonly cursors: CursorCodec,
    /** Result files in a bucket (HINDSIGHT_STORAGE_URL); unset, they are rows of `scenario_results`. */
    private readonly results?: ResultFileStore,
    private readonly retryPolicy?: WriteRetryPolicy,
  ) {}

  /** The same records, with the worker's writes retried through database outages as `policy` says. */
  withRetry(policy: WriteRetryPolicy): ScenarioRepository {
    return new ScenarioRepository(this.db, this.cursors, this.results, policy);
  }

  /**
   * Runs `fn` (reads, or writes safe to repeat) with this instance's retries for `scenarioId` (none: a
   * queue-wide operation); once, without a policy.
   */
  retrying<T>(scenarioId: string | undefined, fn: (attempt: number) => Promise<T>): Promise<T> {
    return this.retryPolicy ? retryTransient(fn, this.retryPolicy(scenarioId)) : fn(1);
  }

  /**
   * Creates one QUEUED scenario if the strategy is active (409 once archived, decision 27) and the
   * owner's quota has a slot (403 QUOTA_EXCEEDED). The owner's row is locked for the count and the
   * insert, so concurrent creations can never exceed the quota together.
   */
  async create(
    ownerId: string,
    strategyId: string,
    input: ScenarioInput,
    quota: number,
    now = new Date(),
  ): Promise<Scenario> {
    return this.db.transaction(async (tx) => {
      await lockActiveStrategy(tx, ownerId, strategyId, 'take no new scenarios');
      await tx.select({ id: users.id }).from(users).where(eq(users.id, ownerId)).for('update');
      if ((await this.activeCount(ownerId, tx)) >= quota) throw quotaExceeded(quota);
      const [row] = await tx
        .insert(scenarios)
        .values({
          id: newId(),
          ownerId,
          strategyId,
          versionId: input.versionId,
          configId: input.configId ?? null,
          label: input.label ?? null,
          batchId: input.batchId ?? null,
          settings: input.settings,
          instruments: input.settings.subscriptions.map((s) => s.instrument),
          state: 'QUEUED',
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      return toScenario(row as Row);
    });
  }

  /** The caller's scenario by id alone (the flat path); another account's is 403 (decision 28). */
  async get(ownerId: string, id: string): Promise<Scenario> {
    const [row] = await this.db
      .select()
      .from(scenarios)
      .where(and(eq(scenarios.id, id), eq(scenarios.ownerId, ownerId)));
    if (!row) throw await missingOwnedResource(this.db, scenarios, id, `Scenario ${id}`);
    return toScenario(row);
  }

  /** The caller's scenario of that strategy (the strategy-scoped path): another strategy's is 404. */
  async getOfStrategy(ownerId: string, strategyId: string, id: string): Promise<Scenario> {
    const scenario = await this.get(ownerId, id);
    if (scenario.strategyId !== strategyId.toLowerCase()) {
      throw notFound(`Scenario ${id} of strategy ${strategyId}`);
    }
    return scenario;
  }

  /** Any scenario by id, whoever owns it (workers). */
  async byId(id: string): Promise<Scenario | undefined> {
    const [row] = await this.db.select().from(scenarios).where(eq(scenarios.id, id));
    return row && toScenario(row);
  }

  async list(strategyId: string, page: PageRequest & ScenarioFilters): Promise<Page<Scenario>> {
    const list = `scenarios:${strategyId}`;
    const after = page.cursor ? this.cursors.decode(list, page.cursor) : undefined;
    const conditions: (SQL | undefined)[] = [
      eq(scenarios.strategyId, strategyId),
      page.state && eq(scenarios.state, page.state),
      page.strategyVersionId ? eq(scenarios.versionId, page.strategyVersionId) : undefined,
      page.isCompleted === true ? eq(scenarios.state, 'COMPLETE') : undefined,
      page.isCompleted === false ? sql`${scenarios.state} <> 'COMPLETE'` : undefined,
      page.createdAfter && gt(scenarios.createdAt, page.createdAfter),
      page.createdBefore && lt(scenarios.createdAt, page.createdBefore),
      page.instruments && arrayOverlaps(scenarios.instruments, page.instruments),
      after && afterKey(scenarios.createdAt, scenarios.id, after),
    ];
    const rows = await this.db
      .select()
      .from(scenarios)
      .where(and(...conditions))
      .orderBy(...newestFirst(scenarios.createdAt, scenarios.id))
      .limit(page.limit + 1);
    return toPage(rows, page.limit, list, this.cursors, toScenario);
  }

  /** Several of the caller's scenarios (compare); the missing and foreign ids are reported, not skipped. */
  async getMany(ownerId: string, ids: string[]): Promise<Scenario[]> {
    const rows = await this.db.select().from(scenarios).where(inArray(scenarios.id, ids));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => {
      const row = byId.get(id.toLowerCase());
      if (!row) throw notFound(`Scenario ${id}`);
      if (row.ownerId !== ownerId)
        throw new ApiError('FORBIDDEN', `Scenario ${id} belongs to another account.`);
      return toScenario(row);
    });
  }

  /**
   * Cancels a non-terminal scenario (QUEUED, PENDING or RUNNING): it becomes CANCELLED at once, and the
   * worker that holds it sees that at its next lease renewal (or sooner, in-process) and stops the run.
   * A terminal scenario is 400 (spec: States and transitions).
   */
  async cancel(ownerId: string, id: string, now = new Date()): Promise<Scenario> {
    const [row] = await this.db
      .update(scenarios)
      .set({ state: 'CANCELLED', finishedAt: now, updatedAt: now, leaseExpiresAt: null })
      .where(
        and(
          eq(scenarios.id, id),
          eq(scenarios.ownerId, ownerId),
          inArray(scenarios.state, [...ACTIVE_STATES]),
        ),
      )
      .returning();
    if (row) return toScenario(row);
    const current = await this.get(ownerId, id);
    throw badRequest(
      `Scenario ${id} is already ${current.state}; only QUEUED, PENDING and RUNNING scenarios can be cancelled.`,
    );
  }

  /** Deletes the scenario and its results and logs (a run still going is cancelled by the delete). */
  async delete(ownerId: string, id: string): Promise<void> {
    const deleted = await this.db
      .delete(scenarios)
      .where(and(eq(scenarios.id, id), eq(scenarios.ownerId, ownerId)))
      .returning({ id: scenarios.id });
    if (deleted.length === 0) throw await missingOwnedResource(this.db, scenarios, id, `Scenario ${id}`);
    await this.results?.delete(id);
  }

  // --- the queue -------------------------------------------------------------------------------

  /**
   * Claims the oldest QUEUED scenario for `workerId` (QUEUED -> PENDING) with a lease of `leaseMs`.
   * `FOR UPDATE SKIP LOCKED` lets any number of workers on any number of machines claim from one table
   * without waiting on each other or claiming one row twice.
   *
   * Each claim of an instance gets its own `started_at`, so a retry after a lost answer first looks for
   * the row this very claim may have taken; without that, the row would stay PENDING unrun until its
   * lease lapsed.
   */
  async claim(workerId: string, leaseMs: number): Promise<Scenario | undefined> {
    const at = new Date(Math.max(Date.now(), this.lastClaimAt + 1));
    this.lastClaimAt = at.getTime();
    return this.retrying(undefined, async (attempt) => {
      if (attempt > 1) {
        const [taken] = await this.db
          .select()
          .from(scenarios)
          .where(
            and(
              eq(scenarios.workerId, workerId),
              eq(scenarios.state, 'PENDING'),
              eq(scenarios.startedAt, at),
            ),
          );
        if (taken) return toScenario(taken);
      }
      const [row] = await this.db
        .update(scenarios)
        .set({
          state: 'PENDING',
          workerId,
          leaseExpiresAt: new Date(Date.now() + leaseMs),
          startedAt: at,
          attempt: sql`${scenarios.attempt} + 1`,
          // A run starts its replay from the window's start: no progress of an earlier attempt stays.
          progressAt: null,
          runningAt: null,
          updatedAt: new Date(),
        })
        .where(
          and(
            eq(scenarios.state, 'QUEUED'),
            sql`${scenarios.id} = (
              SELECT id FROM ${scenarios}
               WHERE state = 'QUEUED'
               ORDER BY created_at, id
               LIMIT 1
               FOR UPDATE SKIP LOCKED)`,
          ),
        )
        .returning();
      return row && toScenario(row);
    });
  }

  /**
   * Renews the leases of the scenarios `workerId` is running; answers the ids it no longer holds (they
   * were cancelled, deleted, or failed by a lease check after this worker stalled): their runs must stop.
   * `progress` (scenario id -> simulated epoch ms reached) rides along in the same UPDATE, so progress
   * costs no query of its own; only valid instants are written, so it cannot make a renewal fail.
   */
  async renewLeases(
    workerId: string,
    ids: string[],
    leaseMs: number,
    progress: ReadonlyMap<string, number> = new Map(),
  ): Promise<string[]> {
    if (ids.length === 0) return [];
    const progressAt = progressColumn(ids, progress);
    const held = await this.retrying(undefined, () =>
      this.db
        .update(scenarios)
        // From each attempt's own time: a renewal that got through late still grants a whole lease.
        .set({ leaseExpiresAt: new Date(Date.now() + leaseMs), ...(progressAt && { progressAt }) })
        .where(and(inArray(scenarios.id, ids), heldBy(workerId)))
        .returning({ id: scenarios.id }),
    );
    const stillHeld = new Set(held.map((r) => r.id));
    return ids.filter((id) => !stillHeld.has(id));
  }

  /**
   * PENDING -> RUNNING once the strategy connected to its gateway; false when the worker lost it. A
   * row this worker already made RUNNING (a retry after a lost answer) answers true and keeps its time.
   */
  async markRunning(id: string, workerId: string, now = new Date()) {
    const rows = await this.retrying(id, () =>
      this.db
        .update(scenarios)
        .set({
          state: 'RUNNING',
          runningAt: sql`coalesce(${scenarios.runningAt}, ${now.toISOString()}::timestamptz)`,
          updatedAt: now,
        })
        .where(and(eq(scenarios.id, id), heldBy(workerId)))
        .returning({ id: scenarios.id }),
    );
    return rows.length === 1;
  }

  /** Records the manifest as soon as the worker has resolved it (PENDING). */
  async recordManifest(id: string, workerId: string, manifest: ScenarioManifest): Promise<void> {
    await this.retrying(id, () =>
      this.db
        .update(scenarios)
        .set({ manifest })
        .where(and(eq(scenarios.id, id), eq(scenarios.workerId, workerId))),
    );
  }

  /**
   * RUNNING -> COMPLETE with the result files and metrics, in one transaction; false (and nothing
   * written) when the scenario was cancelled or taken from this worker meanwhile, or when a first
   * attempt whose answer was lost had completed it already.
   */
  async complete(
    id: string,
    workerId: string,
    files: { metadata: Uint8Array; timeseries: Uint8Array; trades: Uint8Array },
    metrics: unknown,
    now = new Date(),
    /** The simulated time the replay ended at (its progress), when known. */
    progressAt?: Date,
  ): Promise<boolean> {
    const progress = progressAt && isStorableInstant(progressAt.getTime()) ? { progressAt } : {};
    const completion = {
      state: 'COMPLETE' as const,
      metrics,
      finishedAt: now,
      updatedAt: now,
      leaseExpiresAt: null,
      ...progress,
    };
    const running = and(
      eq(scenarios.id, id),
      eq(scenarios.workerId, workerId),
      eq(scenarios.state, 'RUNNING'),
    );
    if (this.results) return this.completeWithObjects(this.results, id, files, completion, running);
    return this.retrying(id, () =>
      this.db.transaction(async (tx) => {
        const rows = await tx
          .update(scenarios)
          .set(completion)
          .where(running)
          .returning({ id: scenarios.id });
        if (rows.length === 0) return false;
        await tx.insert(scenarioResults).values({
          scenarioId: id,
          metadata: Buffer.from(files.metadata),
          timeseries: Buffer.from(files.timeseries),
          trades: Buffer.from(files.trades),
        });
        return true;
      }),
    );
  }

  /**
   * `complete` with the files in the bucket: written under the attempt's key before the COMPLETE update,
   * which names the attempt, so a COMPLETE row always has its files. An update that loses (cancelled,
   * requeued) removes the files it wrote, unless a first try whose answer was lost had won.
   */
  private async completeWithObjects(
    results: ResultFileStore,
    id: string,
    files: ResultFiles,
    completion: Partial<typeof scenarios.$inferInsert>,
    running: SQL | undefined,
  ): Promise<boolean> {
    const [held] = await this.retrying(id, () =>
      this.db.select({ attempt: scenarios.attempt }).from(scenarios).where(running),
    );
    if (!held) return false;
    await results.put(id, held.attempt, files);
    const rows = await this.retrying(id, () =>
      this.db
        .update(scenarios)
        .set(completion)
        .where(and(running, eq(scenarios.attempt, held.attempt)))
        .returning({ id: scenarios.id }),
    );
    if (rows.length > 0) return true;
    const [after] = await this.retrying(id, () =>
      this.db
        .select({ state: scenarios.state, attempt: scenarios.attempt })
        .from(scenarios)
        .where(eq(scenarios.id, id)),
    );
    if (!(after?.state === 'COMPLETE' && after.attempt === held.attempt))
      await results.delete(id, held.attempt);
    return false;
  }

  /**
   * PENDING or RUNNING -> FAILED; false when the scenario had already ended (e.g. cancelled, or failed
   * by a first attempt whose answer was lost).
   */
  async fail(
    id: string,
    workerId: string,
    errorType: ErrorType,
    message: string,
    now = new Date(),
  ): Promise<boolean> {
    const rows = await this.retrying(id, () =>
      this.db
        .update(scenarios)
        .set({
          state: 'FAILED',
          errorType,
          errorMessage: message.slice(0, 4000),
          finishedAt: now,
          updatedAt: now,
          leaseExpiresAt: null,
        })
        .where(and(eq(scenarios.id, id), heldBy(workerId)))
        .returning({ id: scenarios.id }),
    );
    return rows.length === 1;
  }

  /**
   * Ends the attempt `workerId` is running without an outcome of its own (decision 40): requeued while
   * attempts are left, else FAILED `platform`. `worker_stopped` (the worker hands its run back as it
   * stops) always requeues. Answers undefined when the worker no longer holds the scenario.
   */
  async endAttempt(
    id: string,
    workerId: string,
    end: AttemptEnd,
    message: string,
    maxAttempts: number,
    now = new Date(),
  ): Promise<AttemptOutcome> {
    const rows = await this.retrying(id, () =>
      this.db
        .update(scenarios)
        .set(endAttemptSet(end, message, maxAttempts, now))
        .where(and(eq(scenarios.id, id), heldBy(workerId)))
        .returning({ state: scenarios.state }),
    );
    const state = rows[0]?.state;
    return state === undefined ? undefined : state === 'QUEUED' ? 'requeued' : 'failed';
  }

  /**
   * Ends the attempt of every claimed scenario whose lease lapsed (its worker died or lost the
   * database) as a `worker_lost` attempt: requeued, or FAILED `platform` once `maxAttempts` attempts
   * ended so; never left PENDING or RUNNING. `everyClaimed` takes them all, lease or not: an embedded
   * store is opened by one process only, so at its start no live worker can hold any.
   */
  async requeueAbandoned(
    maxAttempts: number,
    now = new Date(),
    everyClaimed = false,
  ): Promise<{ requeued: string[]; failed: string[] }> {
    const lapsed = sql`${scenarios.leaseExpiresAt} < ${now.toISOString()}`;
    const rows = await this.retrying(undefined, () =>
      this.db
        .update(scenarios)
        .set(
          endAttemptSet(
            'worker_lost',
            'the worker running this scenario stopped (it crashed, was killed or lost the database) before the run ended',
            maxAttempts,
            now,
          ),
        )
        .where(and(inArray(scenarios.state, ['PENDING', 'RUNNING']), everyClaimed ? undefined : lapsed))
        .returning({ id: scenarios.id, state: scenarios.state }),
    );
    return {
      requeued: rows.filter((r) => r.state === 'QUEUED').map((r) => r.id),
      failed: rows.filter((r) => r.state === 'FAILED').map((r) => r.id),
    };
  }

  /** The zstd result file of a COMPLETE scenario. */
  async resultFile(id: string, file: ResultFileName): Promise<Buffer | undefined> {
    const [row] = await this.db
      .select({ file: scenarioResults[file] })
      .from(scenarioResults)
      .where(eq(scenarioResults.scenarioId, id));
    // a row: the data-dir layout, or a run completed before the platform moved to a bucket
    if (row || !this.results) return row?.file;
    const [scenario] = await this.db
      .select({ state: scenarios.state, attempt: scenarios.attempt })
      .from(scenarios)
      .where(eq(scenarios.id, id));
    if (scenario?.state !== 'COMPLETE') return undefined;
    return this.results.get(id, scenario.attempt, file);
  }

  async metrics(id: string): Promise<unknown> {
    const [row] = await this.db
      .select({ metrics: scenarios.metrics })
      .from(scenarios)
      .where(eq(scenarios.id, id));
    return row?.metrics ?? undefined;
  }

  /** Stores (replaces) the kept part of a stream of the strategy's output; a deleted scenario keeps none. */
  async saveLog(id: string, stream: 'stdout' | 'stderr', content: Uint8Array, totalBytes: number) {
    const value = { content: Buffer.from(content), totalBytes };
    try {
      await this.retrying(id, () =>
        this.db
          .insert(scenarioLogs)
          .values({ scenarioId: id, stream, ...value })
          .onConflictDoUpdate({ target: [scenarioLogs.scenarioId, scenarioLogs.stream], set: value }),
      );
    } catch (error) {
      if (pgErrorCode(error) !== FOREIGN_KEY_VIOLATION) throw error;
    }
  }

  async log(
    id: string,
    stream: 'stdout' | 'stderr',
  ): Promise<{ content: Buffer; totalBytes: number } | undefined> {
    const [row] = await this.db
      .select({ content: scenarioLogs.content, totalBytes: scenarioLogs.totalBytes })
      .from(scenarioLogs)
      .where(and(eq(scenarioLogs.scenarioId, id), eq(scenarioLogs.stream, stream)));
    return row;
  }

  /** The owner's scenarios in QUEUED, PENDING or RUNNING. */
  private async activeCount(ownerId: string, tx: Db | Tx = this.db): Promise<number> {
    const [row] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(scenarios)
      .where(and(eq(scenarios.ownerId, ownerId), inArray(scenarios.state, [...ACTIVE_STATES])));
    return row?.count ?? 0;
  }

  /** Refuses a scenario operation that needs a completed run (results, metrics, compare). */
  static assertComplete(scenario: Scenario, what: string): void {
    if (scenario.state !== 'COMPLETE') {
      throw badRequest(
        `Scenario ${scenario.scenarioId} is ${scenario.state}; ${what} exist only for COMPLETE scenarios${
          TERMINAL_STATES.includes(scenario.state)
            ? ' (a FAILED or CANCELLED scenario produces no results)'
            : ' (poll GET /v1/scenarios/{scenario_id} until it is COMPLETE)'
        }.`,
      );
    }
  }
}
