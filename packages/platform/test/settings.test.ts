import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { readSettings, SettingsError } from '@hindsight/platform';

describe('platform settings', () => {
  it('defaults to loopback:8000 and ./.hindsight with embedded storage', () => {
    const settings = readSettings({});
    assert.equal(settings.host, '127.0.0.1');
    assert.equal(settings.port, 8000);
    assert.equal(settings.dataDir, resolve('.hindsight'));
    assert.equal(settings.databaseUrl, undefined);
    assert.equal(settings.admin, undefined);
  });

  it('bounds every strategy by default, and reads the limits and the sandbox in binary units', () => {
    assert.deepEqual(readSettings({}).runner.strategyLimits, {
      memoryBytes: 2 * 1024 ** 3,
      processes: 256,
      cpus: 1,
      scratchBytes: 1024 ** 3,
    });
    assert.equal(readSettings({}).runner.sandbox, 'bubblewrap');
    const runner = readSettings({
      HINDSIGHT_STRATEGY_MEMORY: '512MiB',
      HINDSIGHT_STRATEGY_PROCESSES: '64',
      HINDSIGHT_STRATEGY_CPUS: '0.5',
      HINDSIGHT_STRATEGY_SCRATCH: '1.5g',
      HINDSIGHT_SANDBOX: 'none',
    }).runner;
    assert.deepEqual(runner.strategyLimits, {
      memoryBytes: 512 * 1024 ** 2,
      processes: 64,
      cpus: 0.5,
      scratchBytes: 1.5 * 1024 ** 3,
    });
    assert.equal(runner.sandbox, 'none');
    assert.equal(
      readSettings({ HINDSIGHT_STRATEGY_MEMORY: '1073741824' }).runner.strategyLimits.memoryBytes,
      2 ** 30,
    );
  });

  it('reads every variable and lets flags override them', () => {
    const env = {
      HINDSIGHT_HOST: '0.0.0.0',
      HINDSIGHT_PORT: '9000',
      HINDSIGHT_DATA_DIR: '/tmp/hs',
      DATABASE_URL: 'postgres://u@db:5432/hindsight',
      HINDSIGHT_SECRET: 'x'.repeat(32),
      HINDSIGHT_ADMIN_EMAIL: 'admin@example.com',
      HINDSIGHT_ADMIN_PASSWORD: 'correct horse',
    };
    const settings = readSettings(env, { port: '9100' });
    assert.equal(settings.host, '0.0.0.0');
    assert.equal(settings.port, 9100);
    assert.equal(settings.dataDir, '/tmp/hs');
    assert.equal(settings.databaseUrl, env.DATABASE_URL);
    assert.deepEqual(settings.admin, { email: 'admin@example.com', password: 'correct horse' });
  });

  const invalid: [string, Record<string, string>][] = [
    ['HINDSIGHT_PORT', { HINDSIGHT_PORT: 'eighty' }],
    ['HINDSIGHT_PORT', { HINDSIGHT_PORT: '70000' }],
    ['HINDSIGHT_PORT', { HINDSIGHT_PORT: '-1' }],
    ['HINDSIGHT_HOST', { HINDSIGHT_HOST: 'local host' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/db' }],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
    ['HINDSIGHT_SECRET', { HINDSIGHT_SECRET: 'short' }],
    ['HINDSIGHT_ADMIN_PASSWORD', { HINDSIGHT_ADMIN_EMAIL: 'a@example.com' }],
    ['HINDSIGHT_ADMIN_EMAIL', { HINDSIGHT_ADMIN_PASSWORD: 'long enough' }],
    ['HINDSIGHT_ADMIN_EMAIL', { HINDSIGHT_ADMIN_EMAIL: 'nope', HINDSIGHT_ADMIN_PASSWORD: 'long enough' }],
    [
      'HINDSIGHT_ADMIN_PASSWORD',
      { HINDSIGHT_ADMIN_EMAIL: 'a@example.com', HINDSIGHT_ADMIN_PASSWORD: 'short' },
    ],
    ['HINDSIGHT_STRATEGY_MEMORY', { HINDSIGHT_STRATEGY_MEMORY: 'lots' }],
    ['HINDSIGHT_STRATEGY_MEMORY', { HINDSIGHT_STRATEGY_MEMORY: '1MiB' }],
    ['HINDSIGHT_STRATEGY_MEMORY', { HINDSIGHT_STRATEGY_MEMORY: '2PB' }],
    ['HINDSIGHT_STRATEGY_SCRATCH', { HINDSIGHT_STRATEGY_SCRATCH: '-1GiB' }],
    ['HINDSIGHT_STRATEGY_PROCESSES', { HINDSIGHT_STRATEGY_PROCESSES: '4' }],
    ['HINDSIGHT_STRATEGY_CPUS', { HINDSIGHT_STRATEGY_CPUS: '0' }],
    ['HINDSIGHT_STRATEGY_CPUS', { HINDSIGHT_STRATEGY_CPUS: 'one' }],
    ['HINDSIGHT_SANDBOX', { HINDSIGHT_SANDBOX: 'off' }],
    ['HINDSIGHT_METRICS', { HINDSIGHT_METRICS: 'no' }],
  ];
  for (const [variable, env] of invalid) {
    it(`stops on an invalid ${variable} (${JSON.stringify(env)}) with a message naming it`, () => {
      assert.throws(
        () => readSettings(env),
        (error: unknown) => {
          assert.ok(error instanceof SettingsError);
          assert.equal(error.variable, variable);
          assert.ok(error.message.startsWith(`${variable}: `));
          assert.equal(error.message.includes('\n'), false, 'one line');
          return true;
        },
      );
    });
  }
});
