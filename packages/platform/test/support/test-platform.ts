import { after, before } from 'node:test';
import { type RunningPlatform, readSettings, startPlatform } from '@hindsight/platform';
import { ApiClient, type Credentials } from './api-client.ts';
import type { FreshStore, StorageBackend } from './storage-backends.ts';

/** A real platform on a loopback port over a fresh store, plus helpers to make signed-in accounts. */
export interface TestPlatform {
  platform: RunningPlatform;
  store: FreshStore;
  api: ApiClient;
  /** Creates a user, signs in over HTTP, and mints an API key over HTTP. */
  account(label?: string): Promise<Account>;
}

export interface Account extends Credentials {
  userId: string;
  email: string;
  password: string;
  session: string;
  key: string;
}

let accountCounter = 0;

export async function startTestPlatform(backend: StorageBackend): Promise<TestPlatform> {
  const store = await backend.create();
  const settings = readSettings(
    {},
    {
      host: '127.0.0.1',
      port: '0',
      dataDir: store.dataDir,
      ...(store.databaseUrl && { databaseUrl: store.databaseUrl }),
    },
  );
  const platform = await startPlatform(settings, { logLevel: 'silent' });
  const api = new ApiClient(platform.url);
  await api.loadContract();
  return {
    platform,
    store,
    api,
    async account(label = 'user') {
      accountCounter += 1;
      const email = `${label}-${accountCounter}-${process.pid}@example.com`;
      const password = `password-${accountCounter}-secret`;
      const user = await platform.ctx.users.create(email, password);
      if (!user) throw new Error(`could not create ${email}`);
      const login = await api.post('/v1/auth/login', { body: { email, password } });
      const session = (login.body as { data: { token: string } }).data.token;
      const created = await api.post('/v1/api-keys', { session, body: { name: `${label} key` } });
      const key = (created.body as { data: { key: string } }).data.key;
      return { userId: user.id, email, password, session, key };
    },
  };
}

/** Registers before/after hooks that start one platform per backend for a test file. */
export function withTestPlatform(backend: StorageBackend): { get(): TestPlatform } {
  let current: TestPlatform | undefined;
  before(async () => {
    current = await startTestPlatform(backend);
  });
  after(async () => {
    await current?.platform.close();
    await current?.store.dispose();
  });
  return {
    get() {
      if (!current) throw new Error('platform not started');
      return current;
    },
  };
}
