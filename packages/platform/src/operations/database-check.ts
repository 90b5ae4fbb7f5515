import { sql } from 'drizzle-orm';
import type { Db } from '../db/database.ts';

/**
 * The operations endpoints ask the store a question and must answer within a probe's time even when
 * the database hangs (a PostgreSQL connection attempt may wait 10 s, database.ts): a query that takes
 * longer than `timeoutMs` counts as an answer that did not come. The query itself is left to finish.
 */
export async function withDeadline<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  // An answer after the deadline must not surface as an unhandled rejection.
  work.catch(() => {});
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Undefined when the database answers a trivial query in time, else why it did not. */
export async function databaseProblem(db: Db, timeoutMs: number): Promise<string | undefined> {
  try {
    await withDeadline(Promise.resolve(db.execute(sql`SELECT 1`)), timeoutMs, 'the database');
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  }
}
