import { forbidden, notFound } from '@hindsight/core';
import { and, asc, eq, isNotNull, type SQL } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { type ScenarioState, scenarios, strategies, strategyVersions } from '../db/schema.ts';
import type { ConfigurationSettings } from './configurations.ts';
import { missingOwnedResource } from './ownership.ts';
import { afterKey, type CursorCodec, newestFirst, type Page, type PageRequest } from './pagination.ts';

/**
 * The web app's reads of runs and sweeps across an account's strategies (its internal API, decision
 * 39): scenario rows joined with their strategy's name and version's label, owner-scoped in the
 * query, and the batches of `POST .../scenarios/batch` grouped as sweeps.
 */

/** A scenario row with what the web app shows beside it. */
export interface RunRecord {
  scenarioId: string;
  strategyId: string;
  strategyName: string;
  strategyVersionId: string;
  versionLabel: string | null;
  label: string | null;
  batchId: string | null;
  state: ScenarioState;
  errorType: 'strategy' | 'platform' | null;
  errorMessage: string | null;
  settings: ConfigurationSettings;
  instruments: string[];
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  progressAt: Date | null;
  metrics: unknown;
}

export interface RunFilters {
  strategyId?: string | undefined;
  state?: ScenarioState | undefined;
  batchId?: string | undefined;
}

/** One sweep (batch): its runs in creation order. */
export interface SweepRecord {
  batchId: string;
  strategyId: string;
  strategyName: string;
  strategyVersionId: string;
  createdAt: Date;
  runs: RunRecord[];
}

const runColumns = {
  scenarioId: scenarios.id,
  strategyId: scenarios.strategyId,
  strategyName: strategies.name,
  strategyVersionId: scenarios.versionId,
  versionLabel: strategyVersions.label,
  label: scenarios.label,
  batchId: scenarios.batchId,
  state: scenarios.state,
  errorType: scenarios.errorType,
  errorMessage: scenarios.errorMessage,
  settings: scenarios.settings,
  instruments: scenarios.instruments,
  createdAt: scenarios.createdAt,
  startedAt: scenarios.startedAt,
  finishedAt: scenarios.finishedAt,
  progressAt: scenarios.progressAt,
  metrics: scenarios.metrics,
};

export class AppRunsRepository {
  constructor(
    private readonly db: Db,
    private readonly cursors: CursorCodec,
  ) {}

  private select(where: SQL | undefined) {
    return this.db
      .select(runColumns)
      .from(scenarios)
      .innerJoin(strategies, eq(strategies.id, scenarios.strategyId))
      .innerJoin(strategyVersions, eq(strategyVersions.id, scenarios.versionId))
      .where(where);
  }

  /** The owner's runs, newest first; the cursor is bound to the owner (another account's is a 400). */
  async list(ownerId: string, page: PageRequest & RunFilters): Promise<Page<RunRecord>> {
    const list = `app-runs:${ownerId}`;
    const after = page.cursor ? this.cursors.decode(list, page.cursor) : undefined;
    const rows = await this.select(
      and(
        eq(scenarios.ownerId, ownerId),
        page.strategyId ? eq(scenarios.strategyId, page.strategyId) : undefined,
        page.state ? eq(scenarios.state, page.state) : undefined,
        page.batchId ? eq(scenarios.batchId, page.batchId) : undefined,
        after && afterKey(scenarios.createdAt, scenarios.id, after),
      ),
    )
      .orderBy(...newestFirst(scenarios.createdAt, scenarios.id))
      .limit(page.limit + 1);
    const items = rows.slice(0, page.limit) as RunRecord[];
    const last = items.at(-1);
    return {
      items,
      ...(rows.length > page.limit &&
        last && {
          nextCursor: this.cursors.encode(list, { createdAt: last.createdAt, id: last.scenarioId }),
        }),
    };
  }

  /** One of the owner's runs: another account's is 403, an unknown id 404. */
  async get(ownerId: string, id: string): Promise<RunRecord> {
    const [row] = await this.select(and(eq(scenarios.id, id), eq(scenarios.ownerId, ownerId)));
    if (!row) throw await missingOwnedResource(this.db, scenarios, id, `Scenario ${id}`);
    return row as RunRecord;
  }

  /** The owner's sweeps, newest first (by their first run). */
  async sweeps(ownerId: string): Promise<SweepRecord[]> {
    const rows = (await this.select(
      and(eq(scenarios.ownerId, ownerId), isNotNull(scenarios.batchId)),
    ).orderBy(asc(scenarios.createdAt), asc(scenarios.id))) as RunRecord[];
    const byBatch = new Map<string, SweepRecord>();
    for (const row of rows) {
      const batchId = row.batchId as string;
      let sweep = byBatch.get(batchId);
      if (!sweep) {
        sweep = {
          batchId,
          strategyId: row.strategyId,
          strategyName: row.strategyName,
          strategyVersionId: row.strategyVersionId,
          createdAt: row.createdAt,
          runs: [],
        };
        byBatch.set(batchId, sweep);
      }
      sweep.runs.push(row);
    }
    return [...byBatch.values()].sort(
      (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.batchId < b.batchId ? 1 : -1),
    );
  }

  /** One of the owner's sweeps: another account's is 403, an unknown id 404. */
  async sweep(ownerId: string, batchId: string): Promise<SweepRecord> {
    const rows = (await this.select(
      and(eq(scenarios.ownerId, ownerId), eq(scenarios.batchId, batchId)),
    ).orderBy(asc(scenarios.createdAt), asc(scenarios.id))) as RunRecord[];
    const first = rows[0];
    if (!first) {
      const [other] = await this.db
        .select({ id: scenarios.id })
        .from(scenarios)
        .where(eq(scenarios.batchId, batchId))
        .limit(1);
      throw other ? forbidden(`Sweep ${batchId}`) : notFound(`Sweep ${batchId}`);
    }
    return {
      batchId,
      strategyId: first.strategyId,
      strategyName: first.strategyName,
      strategyVersionId: first.strategyVersionId,
      createdAt: first.createdAt,
      runs: rows,
    };
  }
}
