import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DataDirLockedError, openDatabase, readSettings, startPlatform } from '@hindsight/platform';
import { ApiClient } from './support/api-client.ts';
import { storageBackends, tempDir } from './support/storage-backends.ts';

const settingsFor = (store: { dataDir: string; databaseUrl?: string }) =>
  readSettings(
    {},
    { port: '0', dataDir: store.dataDir, ...(store.databaseUrl && { databaseUrl: store.databaseUrl }) },
  );

for (const backend of storageBackends()) {
  describe(`storage (${backend.name})`, () => {
    it('loses nothing across a restart on the same store, sessions included', async () => {
      const store = await backend.create();
      try {
        const first = await startPlatform(settingsFor(store), { logLevel: 'silent' });
        const api = new ApiClient(first.url);
        const user = await first.ctx.users.create('restart@example.com', 'restart-password');
        assert.ok(user);
        const session = (
          await api.post('/v1/auth/login', { body: { email: user.email, password: 'restart-password' } })
        ).body.data.token;
        const key = (await api.post('/v1/api-keys', { session, body: { name: 'k' } })).body.data.key;
        const strategy = (await api.post('/v1/strategies', { key, body: { name: 'Persisted' } })).body.data;
        const config = (
          await api.post('/v1/configurations', {
            key,
            body: {
              name: 'kept',
              subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1h'] }],
              startTime: '2024-01-01T00:00:00Z',
              endTime: '2024-01-05T00:00:00Z',
              env: { FAST: '10' },
            },
          })
        ).body.data;
        await first.close();

        const second = await startPlatform(settingsFor(store), { logLevel: 'silent' });
        try {
          const again = new ApiClient(second.url);
          assert.deepEqual(
            (await again.get(`/v1/strategies/${strategy.strategyId}`, { key })).body.data,
            strategy,
          );
          assert.deepEqual(
            (await again.get(`/v1/configurations/${config.configId}`, { key })).body.data,
            config,
          );
          assert.equal(
            (await again.get('/v1/api-keys', { session })).status,
            200,
            'the signing secret persisted',
          );
          const instruments = (await again.get('/v1/instruments')).body.data;
          assert.equal(
            instruments.find((i: { symbol: string }) => i.symbol === 'C:BTCUSD').dataStartDate,
            '2024-01-01',
          );
        } finally {
          await second.close();
        }
      } finally {
        await store.dispose();
      }
    });
  });
}

describe('embedded store lock', () => {
  it('refuses a second opener of the same data dir with a clear message, then frees it on close', async () => {
    const dataDir = tempDir('lock');
    const first = await openDatabase({ kind: 'embedded', dataDir });
    await assert.rejects(
      openDatabase({ kind: 'embedded', dataDir }),
      (error: unknown) => error instanceof DataDirLockedError && /in use by process \d+/.test(error.message),
    );
    await first.close();
    assert.equal(existsSync(join(dataDir, 'hindsight.lock')), false);
    const reopened = await openDatabase({ kind: 'embedded', dataDir });
    await reopened.close();
  });

  it('takes over a lock left by a process that died', async () => {
    const dataDir = tempDir('stale');
    const first = await openDatabase({ kind: 'embedded', dataDir });
    await first.close();
    // PID 2^22 + 1 is above Linux's pid_max default, so no live process holds it.
    writeFileSync(join(dataDir, 'hindsight.lock'), String(4194305));
    const reopened = await openDatabase({ kind: 'embedded', dataDir });
    await reopened.close();
  });
});
