import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { isTransientDatabaseError, retryTransient } from '../src/db/transient.ts';

/**
 * The transient-fault classifier on the errors the real drivers raise (node-postgres against a closed
 * port, a server that never answers and one that hangs up; PGlite for faults a retry cannot mend),
 * and the retry loop: backoff within its caps, the deadline, the signal, no retry of the lasting.
 */
async function listen(onSocket: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

async function closedPort(): Promise<number> {
  const { server, port } = await listen(() => {});
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const failure = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => assert.fail('expected a failure'),
    (error: unknown) => error,
  );

describe('isTransientDatabaseError', () => {
  const open: Server[] = [];
  const sockets: Socket[] = [];
  let pglite: PGlite;

  before(async () => {
    pglite = await PGlite.create();
    await pglite.exec('CREATE TABLE t (id int PRIMARY KEY)');
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    for (const server of open) server.close();
    await pglite.close();
  });

  it('takes a refused connection as transient, bare and through a pool and Drizzle', async () => {
    const port = await closedPort();
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres' });
    const refused = await failure(client.connect());
    assert.equal((refused as NodeJS.ErrnoException).code, 'ECONNREFUSED');
    assert.ok(isTransientDatabaseError(refused));

    const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres' });
    try {
      const wrapped = await failure(drizzle(pool).execute(sql`SELECT 1`));
      assert.match(String(wrapped), /Failed query/, 'Drizzle wraps the driver error');
      assert.ok(isTransientDatabaseError(wrapped));
    } finally {
      await pool.end();
    }
  });

  it('takes a server that never answers, and one that hangs up, as transient', async () => {
    const silent = await listen((socket) => sockets.push(socket));
    open.push(silent.server);
    const slow = new pg.Pool({
      host: '127.0.0.1',
      port: silent.port,
      user: 'postgres',
      connectionTimeoutMillis: 200,
    });
    slow.on('error', () => {});
    try {
      const timedOut = await failure(slow.query('SELECT 1'));
      assert.match(String(timedOut), /timeout/);
      assert.ok(isTransientDatabaseError(timedOut), String(timedOut));
    } finally {
      await slow.end();
    }

    const rude = await listen((socket) => socket.destroy());
    open.push(rude.server);
    const client = new pg.Client({ host: '127.0.0.1', port: rude.port, user: 'postgres' });
    const hungUp = await failure(client.connect());
    assert.match(String(hungUp), /Connection terminated unexpectedly/);
    assert.ok(isTransientDatabaseError(hungUp));
  });

  it('takes the server-side connection codes as transient, however wrapped', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', 'ECONNRESET']) {
      assert.ok(isTransientDatabaseError(Object.assign(new Error(code), { code })), code);
    }
    const inner = Object.assign(new Error('the database system is starting up'), { code: '57P03' });
    assert.ok(isTransientDatabaseError(new Error('Failed query: SELECT 1', { cause: inner })));
    const perAddress = Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' });
    assert.ok(isTransientDatabaseError(new AggregateError([perAddress], 'all addresses failed')));
    assert.ok(isTransientDatabaseError(new Error('timeout exceeded when trying to connect')));
  });

  it('does not take lasting faults as transient: constraints, bad SQL, a closed pool', async () => {
    await pglite.query('INSERT INTO t VALUES (1)');
    const duplicate = await failure(pglite.query('INSERT INTO t VALUES (1)'));
    assert.equal((duplicate as { code?: string }).code, '23505');
    assert.equal(isTransientDatabaseError(duplicate), false);
    const syntax = await failure(pglite.query('SELEC 1'));
    assert.equal((syntax as { code?: string }).code, '42601');
    assert.equal(isTransientDatabaseError(syntax), false);
    assert.equal(isTransientDatabaseError(new Error('Failed query: INSERT', { cause: duplicate })), false);

    const pool = new pg.Pool({ host: '127.0.0.1', port: await closedPort(), user: 'postgres' });
    await pool.end();
    const ended = await failure(pool.query('SELECT 1'));
    assert.match(String(ended), /after calling end/);
    assert.equal(isTransientDatabaseError(ended), false);
    for (const value of [undefined, null, 'ECONNREFUSED', 42, {}])
      assert.equal(isTransientDatabaseError(value), false);
  });
});

describe('retryTransient', () => {
  let refused: unknown;
  before(async () => {
    refused = await failure(
      new pg.Client({ host: '127.0.0.1', port: await closedPort(), user: 'postgres' }).connect(),
    );
  });
  const farAway = () => Date.now() + 60_000;

  it('retries transient failures until the call succeeds, waiting a jittered, capped, growing delay', async () => {
    const delays: number[] = [];
    let calls = 0;
    const result = await retryTransient(
      async (attempt) => {
        calls += 1;
        assert.equal(attempt, calls);
        if (calls < 7) throw refused;
        return 'done';
      },
      {
        deadline: farAway(),
        minDelayMs: 2,
        maxDelayMs: 16,
        onRetry: (_error, _attempt, delay) => delays.push(delay),
      },
    );
    assert.equal(result, 'done');
    assert.equal(calls, 7);
    assert.equal(delays.length, 6);
    const caps = [2, 4, 8, 16, 16, 16];
    delays.forEach((delay, i) => {
      const cap = caps[i] as number;
      assert.ok(delay >= cap / 2 && delay <= cap, `wait ${i + 1}: ${delay} ms within [${cap / 2}, ${cap}]`);
    });
  });

  it('does not retry a fault that is not transient', async () => {
    let calls = 0;
    const lasting = Object.assign(new Error('duplicate key'), { code: '23505' });
    const error = await failure(
      retryTransient(
        async () => {
          calls += 1;
          throw lasting;
        },
        { deadline: farAway(), minDelayMs: 1 },
      ),
    );
    assert.equal(error, lasting);
    assert.equal(calls, 1);
  });

  it('gives up with the last error once the next wait would pass the deadline, after a first attempt', async () => {
    let calls = 0;
    const error = await failure(
      retryTransient(
        async () => {
          calls += 1;
          throw refused;
        },
        { deadline: Date.now() + 40, minDelayMs: 4, maxDelayMs: 8 },
      ),
    );
    assert.equal(error, refused);
    assert.ok(calls >= 1);

    let once = 0;
    await failure(
      retryTransient(
        async () => {
          once += 1;
          throw refused;
        },
        { deadline: Date.now() - 1 },
      ),
    );
    assert.equal(once, 1, 'a deadline already past still allows the first attempt, and only it');
  });

  it('reads a deadline function before each wait, so a moved deadline holds', async () => {
    let deadline = farAway();
    let calls = 0;
    const error = await failure(
      retryTransient(
        async () => {
          calls += 1;
          if (calls === 3) deadline = Date.now() - 1;
          throw refused;
        },
        { deadline: () => deadline, minDelayMs: 1, maxDelayMs: 2 },
      ),
    );
    assert.equal(error, refused);
    assert.equal(calls, 3);
  });

  it('stops waiting when its signal aborts, with the last error', async () => {
    const abort = new AbortController();
    let calls = 0;
    const error = await failure(
      retryTransient(
        async () => {
          calls += 1;
          throw refused;
        },
        {
          deadline: Date.now() + 600_000,
          minDelayMs: 60_000,
          maxDelayMs: 60_000,
          signal: abort.signal,
          onRetry: () => abort.abort(),
        },
      ),
    );
    assert.equal(error, refused);
    assert.equal(calls, 1);
  });
});
