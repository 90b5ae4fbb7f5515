import { forbidden, newId, notFound } from '@hindsight/core';
import { and, eq, type SQL } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { strategyVersions } from '../db/schema.ts';
import { lockActiveStrategy } from './ownership.ts';
import {
  afterKey,
  type CursorCodec,
  newestFirst,
  type Page,
  type PageRequest,
  toPage,
} from './pagination.ts';

export type ImageStatus = 'awaiting_push' | 'ready' | 'evicted';

/** Decision 34's version record. */
export interface Version {
  versionId: string;
  strategyId: string;
  label?: string;
  description?: string;
  imageStatus: ImageStatus;
  imageDigest?: string;
  metadata?: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface VersionChanges {
  label?: string | undefined;
  description?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

type Row = typeof strategyVersions.$inferSelect;

/** An empty `metadata` object is "not set": it clears the field and the record omits it. */
const storedMetadata = (metadata: Record<string, unknown>) =>
  Object.keys(metadata).length === 0 ? null : metadata;

export const toVersion = (row: Row): Version => {
  const version: Version = {
    versionId: row.id,
    strategyId: row.strategyId,
    imageStatus: row.imageStatus,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  if (row.label !== null) version.label = row.label;
  if (row.description !== null) version.description = row.description;
  if (row.imageDigest !== null) version.imageDigest = row.imageDigest;
  if (row.metadata !== null) version.metadata = row.metadata as Record<string, unknown>;
  return version;
};

export class VersionRepository {
  constructor(
    private readonly db: Db,
    private readonly cursors: CursorCodec,
  ) {}

  /** Creates a version awaiting its image push; an archived strategy refuses (decision 27). */
  async create(
    ownerId: string,
    strategyId: string,
    input: VersionChanges,
    now = new Date(),
  ): Promise<Version> {
    return this.db.transaction(async (tx) => {
      await lockActiveStrategy(tx, ownerId, strategyId, 'take no new versions');
      const [row] = await tx
        .insert(strategyVersions)
        .values({
          id: newId(),
          strategyId,
          ownerId,
          label: input.label ?? null,
          description: input.description ?? null,
          metadata: input.metadata ? storedMetadata(input.metadata) : null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      return toVersion(row as Row);
    });
  }

  /**
   * The caller's version of that strategy. A version id of another account is 403 (decision 28), one
   * that does not exist or belongs to another of the caller's strategies is 404.
   */
  async get(ownerId: string, strategyId: string, versionId: string): Promise<Version> {
    const [row] = await this.db.select().from(strategyVersions).where(eq(strategyVersions.id, versionId));
    if (!row || (row.ownerId === ownerId && row.strategyId !== strategyId.toLowerCase())) {
      throw notFound(`Version ${versionId} of strategy ${strategyId}`);
    }
    if (row.ownerId !== ownerId) throw forbidden(`Version ${versionId}`);
    return toVersion(row);
  }

  /** Any version by id with its owner (the platform's own lookups, e.g. auto-run after a push). */
  async byId(versionId: string): Promise<{ ownerId: string; version: Version } | undefined> {
    const [row] = await this.db.select().from(strategyVersions).where(eq(strategyVersions.id, versionId));
    return row && { ownerId: row.ownerId, version: toVersion(row) };
  }

  async list(
    strategyId: string,
    page: PageRequest & { imageStatus?: ImageStatus | undefined },
  ): Promise<Page<Version>> {
    const list = `versions:${strategyId}`;
    const after = page.cursor ? this.cursors.decode(list, page.cursor) : undefined;
    const conditions: (SQL | undefined)[] = [
      eq(strategyVersions.strategyId, strategyId),
      page.imageStatus && eq(strategyVersions.imageStatus, page.imageStatus),
      after && afterKey(strategyVersions.createdAt, strategyVersions.id, after),
    ];
    const rows = await this.db
      .select()
      .from(strategyVersions)
      .where(and(...conditions))
      .orderBy(...newestFirst(strategyVersions.createdAt, strategyVersions.id))
      .limit(page.limit + 1);
    return toPage(rows, page.limit, list, this.cursors, toVersion);
  }

  /** Changes label, description and/or metadata (the whole object); an archived strategy refuses (409). */
  async update(
    ownerId: string,
    strategyId: string,
    versionId: string,
    changes: VersionChanges,
    now = new Date(),
  ): Promise<Version> {
    return this.db.transaction(async (tx) => {
      await lockActiveStrategy(tx, ownerId, strategyId, 'cannot be changed');
      const [row] = await tx
        .update(strategyVersions)
        .set({
          ...(changes.label !== undefined && { label: changes.label }),
          ...(changes.description !== undefined && { description: changes.description }),
          ...(changes.metadata !== undefined && { metadata: storedMetadata(changes.metadata) }),
          updatedAt: now,
        })
        .where(
          and(
            eq(strategyVersions.id, versionId),
            eq(strategyVersions.strategyId, strategyId),
            eq(strategyVersions.ownerId, ownerId),
          ),
        )
        .returning();
      if (!row) throw notFound(`Version ${versionId} of strategy ${strategyId}`);
      return toVersion(row);
    });
  }
}
