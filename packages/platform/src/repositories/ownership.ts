import { forbidden, notFound } from '@hindsight/core';
import { eq } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db/database.ts';

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
