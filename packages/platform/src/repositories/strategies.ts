import { conflict, newId } from '@hindsight/core';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { autoRunBindings, configurations, strategies } from '../db/schema.ts';
import { missingOwnedResource } from './ownership.ts';
import {
  afterKey,
  type CursorCodec,
  newestFirst,
  type Page,
  type PageRequest,
  toPage,
} from './pagination.ts';

export interface Strategy {
  strategyId: string;
  name: string;
  description?: string;
  status: 'active' | 'archived';
  ownerId: string;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

type Row = typeof strategies.$inferSelect;

const toStrategy = (row: Row): Strategy => {
  const strategy: Strategy = {
    strategyId: row.id,
    name: row.name,
    status: row.status,
    ownerId: row.ownerId,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  if (row.description !== null) strategy.description = row.description;
  return strategy;
};

export class StrategyRepository {
  constructor(
    private readonly db: Db,
    private readonly cursors: CursorCodec,
  ) {}

  async create(
    ownerId: string,
    createdBy: string,
    input: { name: string; description?: string | undefined },
    now = new Date(),
  ): Promise<Strategy> {
    const [row] = await this.db
      .insert(strategies)
      .values({
        id: newId(),
        ownerId,
        createdBy,
        name: input.name,
        description: input.description ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return toStrategy(row as Row);
  }

  /** The caller's strategy, or 404/403 thrown as decision 35 orders them. Archived ones stay readable. */
  async get(ownerId: string, id: string): Promise<Strategy> {
    const [row] = await this.db
      .select()
      .from(strategies)
      .where(and(eq(strategies.id, id), eq(strategies.ownerId, ownerId)));
    if (!row) throw await missingOwnedResource(this.db, strategies, id, `Strategy ${id}`);
    return toStrategy(row);
  }

  async list(ownerId: string, page: PageRequest & { includeArchived: boolean }): Promise<Page<Strategy>> {
    const after = page.cursor ? this.cursors.decode('strategies', page.cursor) : undefined;
    const rows = await this.db
      .select()
      .from(strategies)
      .where(
        and(
          eq(strategies.ownerId, ownerId),
          page.includeArchived ? undefined : eq(strategies.status, 'active'),
          after && afterKey(strategies.createdAt, strategies.id, after),
        ),
      )
      .orderBy(...newestFirst(strategies.createdAt, strategies.id))
      .limit(page.limit + 1);
    return toPage(rows, page.limit, 'strategies', this.cursors, toStrategy);
  }

  async update(
    ownerId: string,
    id: string,
    changes: { name?: string | undefined; description?: string | undefined },
    now = new Date(),
  ): Promise<Strategy> {
    const [row] = await this.db
      .update(strategies)
      .set({
        ...(changes.name !== undefined && { name: changes.name }),
        ...(changes.description !== undefined && { description: changes.description }),
        updatedAt: now,
      })
      .where(and(eq(strategies.id, id), eq(strategies.ownerId, ownerId), eq(strategies.status, 'active')))
      .returning();
    if (!row) throw await this.whyNotModifiable(ownerId, id);
    return toStrategy(row);
  }

  async archive(ownerId: string, id: string, now = new Date()): Promise<void> {
    const rows = await this.db
      .update(strategies)
      .set({ status: 'archived', updatedAt: now })
      .where(and(eq(strategies.id, id), eq(strategies.ownerId, ownerId), eq(strategies.status, 'active')))
      .returning({ id: strategies.id });
    if (rows.length === 0) throw await this.whyNotModifiable(ownerId, id);
  }

  /** Replaces the set of configurations that run automatically on each new version of the strategy. */
  async setAutoRunConfigs(
    ownerId: string,
    id: string,
    configIds: string[],
    now = new Date(),
  ): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const [strategy] = await tx
        .select({ status: strategies.status })
        .from(strategies)
        .where(and(eq(strategies.id, id), eq(strategies.ownerId, ownerId)))
        .for('update');
      if (!strategy) throw await missingOwnedResource(this.db, strategies, id, `Strategy ${id}`);
      if (strategy.status === 'archived') throw archivedConflict(id);
      // UUIDs are case-insensitive: dedupe on the canonical lower-case spelling, or two spellings of one
      // id would insert the same binding twice (a primary-key violation).
      const unique = [...new Set(configIds.map((configId) => configId.toLowerCase()))];
      for (const configId of unique) {
        const [owned] = await tx
          .select({ id: configurations.id })
          .from(configurations)
          .where(and(eq(configurations.id, configId), eq(configurations.ownerId, ownerId)));
        if (!owned) throw new UnknownConfigIdError(configId);
      }
      await tx.delete(autoRunBindings).where(eq(autoRunBindings.strategyId, id));
      if (unique.length > 0) {
        await tx
          .insert(autoRunBindings)
          .values(unique.map((configId) => ({ strategyId: id, configId, createdAt: now })));
      }
      return unique;
    });
  }

  async autoRunConfigs(id: string): Promise<string[]> {
    const rows = await this.db
      .select({ configId: autoRunBindings.configId })
      .from(autoRunBindings)
      .where(eq(autoRunBindings.strategyId, id))
      .orderBy(autoRunBindings.createdAt, autoRunBindings.configId);
    return rows.map((r) => r.configId);
  }

  private async whyNotModifiable(ownerId: string, id: string): Promise<Error> {
    const [row] = await this.db
      .select({ status: strategies.status })
      .from(strategies)
      .where(and(eq(strategies.id, id), eq(strategies.ownerId, ownerId)));
    if (row) return archivedConflict(id);
    return missingOwnedResource(this.db, strategies, id, `Strategy ${id}`);
  }
}

const archivedConflict = (id: string) =>
  conflict(`Strategy ${id} is archived; archived strategies cannot be changed.`);

/** A config id in an auto-run body that the caller does not own (400 per the spec's statuses). */
export class UnknownConfigIdError extends Error {
  constructor(readonly configId: string) {
    super(`configIds: configuration ${configId} was not found in your account.`);
  }
}
