import { and, eq, isNull, lt, or } from 'drizzle-orm';
import { apiKeyMatches, apiKeyPrefix, generateApiKey, hashApiKey } from '../auth/api-key-values.ts';
import type { Db } from '../db/database.ts';
import { apiKeys } from '../db/schema.ts';
import {
  afterKey,
  type CursorCodec,
  newestFirst,
  type Page,
  type PageRequest,
  toPage,
} from './pagination.ts';

export interface ApiKeyRecord {
  prefix: string;
  name: string;
  createdAt: Date;
  lastUsedAt?: Date;
}

/** lastUsedAt is refreshed at most this often, so authentication is not a write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

const toRecord = (row: typeof apiKeys.$inferSelect): ApiKeyRecord => {
  const record: ApiKeyRecord = { prefix: row.prefix, name: row.name, createdAt: row.createdAt };
  if (row.lastUsedAt) record.lastUsedAt = row.lastUsedAt;
  return record;
};

export class ApiKeyRepository {
  constructor(
    private readonly db: Db,
    private readonly cursors: CursorCodec,
  ) {}

  /** Creates a key and returns its full value, the only time it exists outside the caller's hands. */
  async create(userId: string, name: string, now = new Date()): Promise<ApiKeyRecord & { key: string }> {
    for (;;) {
      const key = generateApiKey();
      const rows = await this.db
        .insert(apiKeys)
        .values({ prefix: apiKeyPrefix(key), userId, name, keyHash: hashApiKey(key), createdAt: now })
        .onConflictDoNothing({ target: apiKeys.prefix })
        .returning();
      const row = rows[0];
      if (row) return { ...toRecord(row), key };
    }
  }

  async list(userId: string, page: PageRequest): Promise<Page<ApiKeyRecord>> {
    const after = page.cursor ? this.cursors.decode('api-keys', page.cursor) : undefined;
    const rows = await this.db
      .select()
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.userId, userId),
          isNull(apiKeys.revokedAt),
          after && afterKey(apiKeys.createdAt, apiKeys.prefix, { createdAt: after.createdAt, id: after.id }),
        ),
      )
      .orderBy(...newestFirst(apiKeys.createdAt, apiKeys.prefix))
      .limit(page.limit + 1);
    return toPage(
      rows.map((r) => ({ ...r, id: r.prefix })),
      page.limit,
      'api-keys',
      this.cursors,
      toRecord,
    );
  }

  /** Revokes the caller's key; false when the caller has no live key with this prefix. */
  async revoke(userId: string, prefix: string, now = new Date()): Promise<boolean> {
    const rows = await this.db
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.prefix, prefix), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
      .returning({ prefix: apiKeys.prefix });
    return rows.length > 0;
  }

  /** Resolves a presented key to its user id, or undefined when unknown, wrong or revoked. */
  async authenticate(key: string, now = new Date()): Promise<string | undefined> {
    const [row] = await this.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.prefix, apiKeyPrefix(key)), isNull(apiKeys.revokedAt)));
    if (!row || !apiKeyMatches(key, row.keyHash)) return undefined;
    await this.db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(
        and(
          eq(apiKeys.prefix, row.prefix),
          or(
            isNull(apiKeys.lastUsedAt),
            lt(apiKeys.lastUsedAt, new Date(now.getTime() - LAST_USED_RESOLUTION_MS)),
          ),
        ),
      );
    return row.userId;
  }
}
