import { sql } from 'drizzle-orm';
import type { Db } from '../db/database.ts';

/**
 * One import at a time into a market store in a bucket: the bucket has no lock of its own, and two
 * imports of one symbol would each rewrite its `index.json` from what they read. The lock is a PostgreSQL
 * advisory lock held by a transaction around the import, so it spans every process on the database
 * (`DATABASE_URL`) and ends with the session if the process dies. The data-dir store keeps its
 * directory lock (`market/hindsight.lock`); so does `hindsight data import` into a bucket without
 * `DATABASE_URL` (`locks/market-import/`), where the embedded database makes it one host's store.
 */
const MARKET_IMPORT_LOCK = 0x48534d4b; // "HSMK"

export function withMarketImportLock<T>(db: Db, task: () => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MARKET_IMPORT_LOCK})`);
    return task();
  });
}
