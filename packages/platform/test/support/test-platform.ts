import { chmodSync } from 'node:fs';
import { after, before } from 'node:test';
import { type PlatformOptions, type RunningPlatform, readSettings, startPlatform } from '@hindsight/platform';
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

/** Settings beyond the store (variables of `settingVariables`, e.g. `workers`), and platform options. */
export interface TestPlatformOptions {
  settings?: Record<string, string>;
  platform?: PlatformOptions;
}

export async function startTestPlatform(
  backend: StorageBackend,
  options: TestPlatformOptions = {},
): Promise<TestPlatform> {
  const store = await backend.create();
  // Strategies run as an unprivileged user, who must be able to reach the image cache in the data dir.
  chmodSync(store.dataDir, 0o755);
  const settings = readSettings(
    {},
    {
      host: '127.0.0.1',
      port: '0',
      dataDir: store.dataDir,
      ...(store.databaseUrl && { databaseUrl: store.databaseUrl }),
      // No scenario worker unless a test asks for one: most files only exercise the API.
      workers: '0',
      // A test's platform closes with whatever is still running handed back at once (the grace
      // period has tests of its own: scenarios-attempts.test.ts).
      stopGraceSeconds: '0',
      ...options.settings,
    },
  );
  const platform = await startPlatform(settings, { logLevel: 'silent', ...options.platform });
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
export function withTestPlatform(
  backend: StorageBackend,
  options: TestPlatformOptions = {},
): { get(): TestPlatform } {
  let current: TestPlatform | undefined;
  before(async () => {
    current = await startTestPlatform(backend, options);
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
