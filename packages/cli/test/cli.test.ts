import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { dataDir, run, start, stop } from './support/cli-process.ts';

describe('hindsight CLI', () => {
  it('lists its commands with --help', async () => {
    const { code, stdout } = await run(['--help']);
    assert.equal(code, 0);
    assert.match(stdout, /start/);
    assert.match(stdout, /users/);
  });

  it('stops on an invalid setting with one line naming the variable', async () => {
    const { code, stderr } = await run(['start'], {
      HINDSIGHT_PORT: 'eighty',
      HINDSIGHT_DATA_DIR: dataDir(),
    });
    assert.equal(code, 2);
    assert.equal(stderr.trim().split('\n').length, 1);
    assert.match(stderr, /^hindsight: HINDSIGHT_PORT: /);
  });

  it('starts with a demo user and a working API key, refuses a second process, and stops cleanly', async () => {
    const dir = dataDir();
    const { child, banner } = await start({ HINDSIGHT_DATA_DIR: dir });
    try {
      const url = /running at (http:\/\/\S+) /.exec(banner)?.[1];
      const key = /API key:\s+(\S+)/.exec(banner)?.[1];
      const signIn = /Sign in:\s+(\S+) \/ (\S+)/.exec(banner);
      assert.ok(url && key && signIn, banner);
      const strategies = await fetch(`${url}/v1/strategies`, { headers: { 'x-api-key': key } });
      assert.equal(strategies.status, 200);
      const login = await fetch(`${url}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: signIn[1], password: signIn[2] }),
      });
      assert.equal(login.status, 200);

      const second = await run(['users', 'create', '--email', 'x@example.com', '--password', 'long-enough'], {
        HINDSIGHT_DATA_DIR: dir,
      });
      assert.equal(second.code, 2);
      assert.match(second.stderr, /in use by process \d+/);
    } finally {
      assert.equal(await stop(child), 0);
    }
    const created = await run(['users', 'create', '--email', 'x@example.com', '--password', 'long-enough'], {
      HINDSIGHT_DATA_DIR: dir,
    });
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /Created user x@example.com/);
    const duplicate = await run(
      ['users', 'create', '--email', 'X@example.com', '--password', 'long-enough'],
      {
        HINDSIGHT_DATA_DIR: dir,
      },
    );
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /already exists/);
  });

  it('ensures the admin from HINDSIGHT_ADMIN_EMAIL and HINDSIGHT_ADMIN_PASSWORD', async () => {
    const { child, banner } = await start({
      HINDSIGHT_DATA_DIR: dataDir(),
      HINDSIGHT_ADMIN_EMAIL: 'ops@example.com',
      HINDSIGHT_ADMIN_PASSWORD: 'unattended-pass',
    });
    try {
      assert.doesNotMatch(banner, /API key:/, 'no secret printed for unattended deployments');
      const url = /running at (http:\/\/\S+) /.exec(banner)?.[1];
      const login = await fetch(`${url}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ops@example.com', password: 'unattended-pass' }),
      });
      assert.equal(login.status, 200);
    } finally {
      assert.equal(await stop(child), 0);
    }
  });

  it('logs JSON lines when its output is not a terminal, a request in one line and only at debug', async () => {
    const { child, banner } = await start({ HINDSIGHT_DATA_DIR: dataDir(), HINDSIGHT_LOG_LEVEL: 'debug' });
    let output = banner;
    child.stdout?.on('data', (d) => {
      output += d;
    });
    try {
      const url = /running at (http:\/\/\S+) /.exec(banner)?.[1];
      assert.equal((await fetch(`${url}/v1/openapi.json`)).status, 200);
    } finally {
      // Stopped and closed, the process has written all its lines.
      assert.equal(await stop(child), 0);
    }
    // Every line is a JSON entry but the banner's (from `Hindsight ...` to its `Scenarios:` line).
    const lines = output.split('\n').filter((line) => line !== '');
    const first = lines.findIndex((line) => line.startsWith('Hindsight '));
    const last = lines.findIndex((line) => line.startsWith('  Scenarios:'));
    const entries = [...lines.slice(0, first), ...lines.slice(last + 1)].map((line) => JSON.parse(line));
    const requests = entries.filter((entry) => JSON.stringify(entry).includes('/v1/openapi.json'));
    assert.equal(requests.length, 1, output);
    assert.equal(requests[0].level, 20);
    assert.equal(requests[0].msg, 'request');
    assert.equal(requests[0].status, 200);
  });

  it('rejects bad users create input before touching the store', async () => {
    const bad = await run(['users', 'create', '--email', 'nope', '--password', 'long-enough'], {
      HINDSIGHT_DATA_DIR: dataDir(),
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--email/);
  });
});

interface InstrumentBody {
  data: { status: string; dataStartDate?: string; dataEndDate?: string };
}
const instrumentAt = async (url: string | undefined, symbol: string) =>
  ((await (await fetch(`${url}/v1/instruments/${symbol}`)).json()) as InstrumentBody).data;

describe('hindsight data import', () => {
  it('imports a file, is idempotent, refuses malformed files whole, and the running platform sees it', async () => {
    const dir = dataDir();
    const csv = join(dir, 'gbpusd.csv');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      csv,
      [
        'time,bid_open,bid_high,bid_low,bid_close,ask_open,ask_high,ask_low,ask_close',
        '2014-05-02T10:01:00Z,1.68801,1.68820,1.68790,1.68810,1.68812,1.68831,1.68801,1.68821',
        '2014-05-02T10:00:00Z,1.68790,1.68805,1.68780,1.68801,1.68801,1.68816,1.68791,1.68812',
      ].join('\n'),
    );
    const { child, banner } = await start({ HINDSIGHT_DATA_DIR: dir });
    try {
      const url = /running at (http:\/\/\S+) /.exec(banner)?.[1];
      assert.equal((await instrumentAt(url, 'F:GBPUSD')).status, 'coming_soon');

      const first = await run(['data', 'import', '--format', 'forex-sample', '--symbol', 'F:GBPUSD', csv], {
        HINDSIGHT_DATA_DIR: dir,
      });
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /2 rows -> 2 bid\/ask bars, 2014-05-02T10:00Z \.\. 2014-05-02T10:01Z/);
      assert.match(first.stdout, /written 2014-05/);
      const again = await run(['data', 'import', '--format', 'forex-sample', '--symbol', 'F:GBPUSD', csv], {
        HINDSIGHT_DATA_DIR: dir,
      });
      assert.match(again.stdout, /written none; unchanged 2014-05/);

      // The catalog cache refreshes within seconds; poll until the running platform reflects the import.
      let status = 'coming_soon';
      let instrument: InstrumentBody['data'] = { status };
      for (let i = 0; i < 40 && status !== 'available'; i++) {
        await new Promise((r) => setTimeout(r, 250));
        instrument = await instrumentAt(url, 'F:GBPUSD');
        status = instrument.status;
      }
      assert.equal(status, 'available');
      assert.equal(instrument.dataStartDate, '2014-05-02');
      assert.equal(instrument.dataEndDate, '2014-05-02');

      writeFileSync(csv, 'time,bid_open\n2014-05-03T00:00:00Z,1.7\n');
      const bad = await run(['data', 'import', '--format', 'forex-sample', '--symbol', 'F:GBPUSD', csv], {
        HINDSIGHT_DATA_DIR: dir,
      });
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /gbpusd\.csv:\d+: .*nothing was written/);
      const unchanged = await instrumentAt(url, 'F:GBPUSD');
      assert.equal(unchanged.dataEndDate, '2014-05-02');

      const wrongSymbol = await run(['data', 'import', '--format', 'binance', '--symbol', 'BTCUSDT', csv], {
        HINDSIGHT_DATA_DIR: dir,
      });
      assert.equal(wrongSymbol.code, 2);
      assert.match(wrongSymbol.stderr, /did you mean C:BTCUSD\?/);
    } finally {
      assert.equal(await stop(child), 0);
    }
  });
});
