import { conflict, forbidden, notFound } from '@hindsight/core';
import { and, eq } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db, Tx } from '../db/database.ts';
import { strategies } from '../db/schema.ts';

/**
 * Reads are scoped to the owner in the query itself; only when that finds nothing does a second,
 * id-only probe tell "another account's" (403) from "no such id" (404), without reading the row.
 */
export async function missingOwnedResource(
  db: Db,
  table: PgTable & { id: PgColumn },
  id: string,
  what: string,
): Promise<Error> {
  const [other] = await db.select({ id: table.id }).from(table).where(eq(table.id, id)).limit(1);
  return other ? forbidden(what) : notFound(what);
}

/**
 * Holds the caller's strategy (against a concurrent archive) for the transaction: 404/403 when it is
 * not theirs, 409 once archived (decision 27), `refusal` saying what archived strategies cannot do.
 */
export async function lockActiveStrategy(tx: Tx, ownerId: string, strategyId: string, refusal: string) {
  const [strategy] = await tx
    .select({ status: strategies.status })
    .from(strategies)
    .where(and(eq(strategies.id, strategyId), eq(strategies.ownerId, ownerId)))
    .for('share');
  if (!strategy) throw await missingOwnedResource(tx, strategies, strategyId, `Strategy ${strategyId}`);
  if (strategy.status === 'archived') {
    throw conflict(`Strategy ${strategyId} is archived; archived strategies ${refusal}.`);
  }
}
