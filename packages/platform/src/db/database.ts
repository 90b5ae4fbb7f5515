import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
import * as schema from './schema.ts';

export type Schema = typeof schema;
/** The one query layer: both backends expose the same Drizzle PostgreSQL API. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** The handle inside `db.transaction(async (tx) => ...)`. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  backend: 'pglite' | 'postgres';
  close(): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL('../../migrations', import.meta.url));

export type StorageTarget = { kind: 'embedded'; dataDir: string } | { kind: 'postgres'; url: string };

/** Opens the store, applies pending migrations, and (embedded only) holds the data-dir lock until closed. */
export async function openDatabase(target: StorageTarget): Promise<Database> {
  if (target.kind === 'postgres') return openPostgres(target.url);
  return openEmbedded(target.dataDir);
}

async function openPostgres(url: string): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A server that stops answering (failover, a lost network) fails a connection attempt after this
    // long, instead of leaving the query waiting for the operating system to give up, and the
    // kernel's keepalive probes find a connection whose server is gone without a word.
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
  });
  // An idle client dropped by the server (restart, failover) must not crash the process; the pool
  // replaces it and the next query reports any lasting outage (db/transient.ts tells which to retry).
  pool.on('error', (error) => console.error(`hindsight: PostgreSQL connection lost: ${error.message}`));
  // A client checked out of the pool (a transaction between two statements) has no listener of the
  // pool's: without one of its own, the server ending its connection would be an unhandled 'error'
  // event, which ends the process. Its next statement fails instead, and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    const db = drizzleNodePg(pool, { schema });
    await migrateNodePg(db, { migrationsFolder });
    return { db: db as unknown as Db, backend: 'postgres', close: () => pool.end() };
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
}

async function openEmbedded(dataDir: string): Promise<Database> {
  mkdirSync(dataDir, { recursive: true });
  const lock: DataDirLock = acquireDataDirLock(dataDir);
  let client: PGlite | undefined;
  try {
    client = await PGlite.create(join(dataDir, 'db'));
    const db = drizzlePglite(client, { schema });
    await migratePglite(db, { migrationsFolder });
    const opened = client;
    return {
      db: db as unknown as Db,
      backend: 'pglite',
      close: async () => {
        await opened.close();
        lock.release();
      },
    };
  } catch (error) {
    await client?.close().catch(() => {});
    lock.release();
    throw error;
  }
}
