import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * Every storage test runs on the embedded PGlite store, and again on a PostgreSQL server when
 * TEST_DATABASE_URL is set (CI points it at the machine's server). Each use gets a fresh store.
 */
export interface FreshStore {
  dataDir: string;
  databaseUrl?: string;
  dispose(): Promise<void>;
}

export interface StorageBackend {
  name: 'pglite' | 'postgres';
  create(): Promise<FreshStore>;
}

export const tempDir = (label: string) => mkdtempSync(join(tmpdir(), `hindsight-${label}-`));

const pglite: StorageBackend = {
  name: 'pglite',
  async create() {
    const dataDir = tempDir('pglite');
    return { dataDir, dispose: async () => rmSync(dataDir, { recursive: true, force: true }) };
  },
};

export function postgres(serverUrl: string): StorageBackend {
  return {
    name: 'postgres',
    async create() {
      const name = `hindsight_test_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      const dataDir = tempDir('pg');
      return {
        dataDir,
        databaseUrl: url.toString(),
        dispose: async () => {
          const client = new pg.Client({ connectionString: serverUrl });
          await client.connect();
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await client.end();
          rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
  };
}

export function storageBackends(): StorageBackend[] {
  const url = process.env.TEST_DATABASE_URL;
  return url ? [pglite, postgres(url)] : [pglite];
}

/**
 * A PostgreSQL server for the tests that need one whatever the run (several processes on one queue):
 * TEST_DATABASE_URL, else the machine's local server (trust auth on 127.0.0.1, as on every machine of
 * this project and in CI).
 */
export const postgresServer = (): StorageBackend =>
  postgres(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
