import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_ACK_SPIN_MICROSECONDS } from '@hindsight/gateway';
import { readSettings, SettingsError } from '@hindsight/platform';
import { ackSpinFor } from '../src/runner/start-worker.ts';

describe('platform settings', () => {
  it('defaults to loopback:8000 and ./.hindsight with embedded storage', () => {
    const settings = readSettings({});
    assert.equal(settings.host, '127.0.0.1');
    assert.equal(settings.port, 8000);
    assert.equal(settings.dataDir, resolve('.hindsight'));
    assert.equal(settings.databaseUrl, undefined);
    assert.equal(settings.admin, undefined);
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

describe('busy-polling for acks in the runs of a worker', () => {
  it('polls only when every strategy running at once has a core besides the worker process', () => {
    assert.equal(ackSpinFor(1, 2), DEFAULT_ACK_SPIN_MICROSECONDS, 'one run on two cores');
    assert.equal(ackSpinFor(2, 2), 0, 'two runs on two cores: the spin would take a strategy core');
    assert.equal(ackSpinFor(3, 4), DEFAULT_ACK_SPIN_MICROSECONDS);
    assert.equal(ackSpinFor(4, 4), 0);
  });
});
