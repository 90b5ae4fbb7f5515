import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { S3Client } from '@aws-sdk/client-s3';
import type { TradeBarBatch } from '@hindsight/core';
import { bundledTradeBars } from '../src/import/index.ts';
import {
  BarStore,
  CachedObjectStore,
  MemoryObjectStore,
  openObjectStore,
  parseStorageUrl,
  S3ObjectStore,
} from '../src/index.ts';
import { objectStoreContract } from './object-store-contract.ts';
import { type S3TestServer, startS3Server } from './s3-server.ts';

/**
 * The S3 backend and the read-through cache against a real S3-protocol server (s3rver) on loopback, with the
 * same contract as the file backend, BarStore months through S3, and the cache's hits and byte bound.
 */

const dirs: string[] = [];
async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `hindsight-${name}-`));
  dirs.push(dir);
  return dir;
}

let server: S3TestServer | undefined;
let endpoint: string;
let btc: TradeBarBatch;

before(async () => {
  server = await startS3Server(await tempDir('s3rver'), ['market', 'other']);
  endpoint = server.endpoint;
  btc = await bundledTradeBars('C:BTCUSD');
});
after(async () => {
  await server?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** An S3 client that records the name of every command it sends, so tests can count server requests. */
function countingClient(): { client: S3Client; sent: string[] } {
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const sent: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(context.commandName as string);
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  return { client, sent };
}

let prefixes = 0;
/** A fresh, empty store: its own prefix in the shared bucket. */
function s3Store(options: { pageSize?: number } = {}) {
  const { client, sent } = countingClient();
  const store = new S3ObjectStore({ client, bucket: 'market', prefix: `t${++prefixes}/data`, ...options });
  return { store, sent };
}

describe('S3ObjectStore', () => {
  test('keeps the ObjectStore contract', async () => {
    await objectStoreContract(s3Store().store);
  });

  test('keeps the contract at the bucket root too, and prefixes keep stores apart', async () => {
    const { client } = countingClient();
    const root = new S3ObjectStore({ client, bucket: 'other' });
    await objectStoreContract(root);
    const a = new S3ObjectStore({ client, bucket: 'other', prefix: '/a/' });
    const ab = new S3ObjectStore({ client, bucket: 'other', prefix: 'ab' });
    await a.put('x/1.bin', new Uint8Array([1]));
    await ab.put('x/2.bin', new Uint8Array([2]));
    assert.deepEqual(await a.list(''), ['x/1.bin']);
    assert.deepEqual(await ab.list('x/'), ['x/2.bin']);
    assert.equal(await a.get('x/2.bin'), undefined);
    assert.deepEqual(await root.list('a'), ['a/x/1.bin', 'ab/x/2.bin']);
    assert.throws(
      () => new S3ObjectStore({ client, bucket: 'other', prefix: 'a/../b' }),
      /invalid object key/,
    );
  });

  test('list follows ListObjectsV2 continuation across pages', async () => {
    const { store, sent } = s3Store({ pageSize: 3 });
    const keys = Array.from({ length: 10 }, (_, i) => `bars/X/2024-${String(i + 1).padStart(2, '0')}.hsb`);
    for (const key of [...keys].reverse()) await store.put(key, new Uint8Array([1]));
    sent.length = 0;
    assert.deepEqual(await store.list('bars/'), keys);
    assert.deepEqual(sent, Array(4).fill('ListObjectsV2Command'));
  });

  test('a missing bucket is an error, not an empty store', async () => {
    const { client } = countingClient();
    const store = new S3ObjectStore({ client, bucket: 'no-such-bucket' });
    await assert.rejects(store.get('a/b'), /bucket/i);
    await assert.rejects(store.list(''), /bucket/i);
  });

  test('BarStore writes and reads months through S3, byte for byte as in memory', async () => {
    const { store: objects } = s3Store();
    const bars = new BarStore(objects);
    const reference = new BarStore(new MemoryObjectStore());
    const summary = await bars.writeBars('C:BTCUSD', btc);
    await reference.writeBars('C:BTCUSD', btc);
    assert.deepEqual(summary.written, ['2024-01', '2024-02', '2024-03']);
    assert.deepEqual(await bars.months('C:BTCUSD'), ['2024-01', '2024-02', '2024-03']);
    assert.deepEqual(await bars.symbols(), ['C:BTCUSD']);
    for (const key of await reference.objects.list('')) {
      assert.deepEqual(await objects.get(key), await reference.objects.get(key), key);
    }
    const feb = (await bars.readMonth('C:BTCUSD', '2024-02')) as TradeBarBatch;
    assert.equal(feb.length, 41760);
    assert.deepEqual(feb.close, btc.close.slice(44640, 44640 + 41760));
    // writing the same bars again changes nothing
    assert.deepEqual((await bars.writeBars('C:BTCUSD', btc)).written, []);
  });

  test('the storage setting opens the same bucket', async () => {
    const { store } = s3Store();
    await store.put('bars/Y/index.json', new Uint8Array([42]));
    const opened = openObjectStore(parseStorageUrl(`s3://market/t${prefixes}/data`), {
      HINDSIGHT_S3_ENDPOINT: endpoint,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    });
    assert.deepEqual(await opened.list(''), ['bars/Y/index.json']);
    assert.deepEqual(Array.from((await opened.get('bars/Y/index.json')) ?? []), [42]);
  });
});

describe('CachedObjectStore over S3', () => {
  test('keeps the ObjectStore contract', async () => {
    const { store } = s3Store();
    await objectStoreContract(
      await CachedObjectStore.open(store, { dir: await tempDir('cache'), maxBytes: 1 << 20 }),
    );
  });

  test('a cached month is read from local disk: no request reaches the server', async () => {
    const { store: objects, sent } = s3Store();
    await new BarStore(objects).writeBars('C:BTCUSD', btc);
    const dir = await tempDir('cache');
    const cache = await CachedObjectStore.open(objects, {
      dir,
      maxBytes: 64 << 20,
      cacheable: (key) => !key.endsWith('/index.json'),
    });
    const bars = new BarStore(cache);
    sent.length = 0;
    const first = await bars.readMonth('C:BTCUSD', '2024-01');
    const gets = sent.filter((name) => name === 'GetObjectCommand').length;
    assert.ok(gets >= 1);
    sent.length = 0;
    const chunk = await cache.get('bars/C_BTCUSD/2024-01.hsb');
    assert.deepEqual(sent, [], 'a cached chunk costs no request');
    assert.deepEqual(chunk, await objects.get('bars/C_BTCUSD/2024-01.hsb'));
    sent.length = 0;
    assert.deepEqual(await bars.readMonth('C:BTCUSD', '2024-01'), first);
    // only the (uncacheable, mutable) index was fetched again
    assert.deepEqual(sent, Array(sent.length).fill('GetObjectCommand'));
    assert.ok(sent.length < gets);
    assert.ok(cache.stats().hits >= 2);
    assert.deepEqual(await readdir(join(dir, 'bars', 'C_BTCUSD')), ['2024-01.hsb']);
  });

  test('concurrent misses for one key make one request', async () => {
    const { store: objects, sent } = s3Store();
    await objects.put('a/b.bin', new Uint8Array(1000).fill(3));
    const cache = await CachedObjectStore.open(objects, { dir: await tempDir('cache'), maxBytes: 10_000 });
    sent.length = 0;
    const results = await Promise.all([cache.get('a/b.bin'), cache.get('a/b.bin'), cache.get('a/b.bin')]);
    assert.deepEqual(sent, ['GetObjectCommand']);
    for (const bytes of results) assert.equal(bytes?.length, 1000);
    assert.notEqual(results[0]?.buffer, results[1]?.buffer, 'callers do not share a buffer');
  });

  test('evicts the least recently used objects beyond the byte bound', async () => {
    const { store: objects, sent } = s3Store();
    for (const name of ['a', 'b', 'c', 'big']) {
      await objects.put(
        `x/${name}.bin`,
        new Uint8Array(name === 'big' ? 2000 : 400).fill(name.charCodeAt(0)),
      );
    }
    const dir = await tempDir('cache');
    const cache = await CachedObjectStore.open(objects, { dir, maxBytes: 1000 });
    await cache.get('x/a.bin');
    await cache.get('x/b.bin');
    await cache.get('x/a.bin'); // a is now more recent than b
    await cache.get('x/c.bin'); // 1200 bytes > 1000: b goes
    assert.deepEqual(cache.stats(), { hits: 1, misses: 3, evictions: 1, bytes: 800 });
    assert.deepEqual((await readdir(join(dir, 'x'))).sort(), ['a.bin', 'c.bin']);
    let onDisk = 0;
    for (const name of await readdir(join(dir, 'x'))) onDisk += (await stat(join(dir, 'x', name))).size;
    assert.ok(onDisk <= 1000);
    sent.length = 0;
    await cache.get('x/a.bin');
    assert.deepEqual(sent, []);
    await cache.get('x/b.bin');
    assert.deepEqual(sent, ['GetObjectCommand']);
    // an object larger than the bound is served but never cached
    assert.equal((await cache.get('x/big.bin'))?.length, 2000);
    assert.equal((await cache.get('x/big.bin'))?.length, 2000);
    assert.ok(cache.stats().bytes <= 1000);
    assert.equal(sent.filter((name) => name === 'GetObjectCommand').length, 3);
  });

  test('put and delete through the cache invalidate the local copy', async () => {
    const { store: objects } = s3Store();
    const dir = await tempDir('cache');
    const cache = await CachedObjectStore.open(objects, { dir, maxBytes: 10_000 });
    await cache.put('k/v.bin', new Uint8Array([1]));
    assert.deepEqual(Array.from((await cache.get('k/v.bin')) ?? []), [1]);
    await cache.put('k/v.bin', new Uint8Array([2, 2]));
    assert.deepEqual(Array.from((await cache.get('k/v.bin')) ?? []), [2, 2]);
    assert.deepEqual(Array.from((await objects.get('k/v.bin')) ?? []), [2, 2]);
    await cache.delete('k/v.bin');
    assert.equal(await cache.get('k/v.bin'), undefined);
    assert.equal(cache.stats().bytes, 0);
    // a fetch that raced a put does not leave the old bytes cached
    await objects.put('k/w.bin', new Uint8Array([1]));
    const racing = cache.get('k/w.bin');
    await cache.put('k/w.bin', new Uint8Array([9]));
    await racing;
    assert.deepEqual(Array.from((await cache.get('k/w.bin')) ?? []), [9]);
  });

  test('a revalidating cache never serves a copy another writer replaced', async () => {
    const { store: objects, sent } = s3Store();
    const cache = await CachedObjectStore.open(objects, {
      dir: await tempDir('cache'),
      maxBytes: 10_000,
      revalidate: true,
    });
    await objects.put('bars/X/2024-01.hsb', new Uint8Array(500).fill(1));
    assert.equal((await cache.get('bars/X/2024-01.hsb'))?.[0], 1);
    // a current copy: one conditional request answered without a body, served from disk
    assert.equal((await cache.get('bars/X/2024-01.hsb'))?.[0], 1);
    assert.equal(cache.stats().hits, 1);
    // another machine re-imports the month (the write does not go through this cache)
    await objects.put('bars/X/2024-01.hsb', new Uint8Array(600).fill(2));
    sent.length = 0;
    const fresh = await cache.get('bars/X/2024-01.hsb');
    assert.deepEqual(sent, ['GetObjectCommand']);
    assert.equal(fresh?.length, 600);
    assert.equal(fresh?.[0], 2);
    assert.equal(cache.stats().bytes, 600);
    assert.equal((await cache.get('bars/X/2024-01.hsb'))?.[0], 2);
    assert.equal(cache.stats().hits, 2);
    // and one deleted elsewhere reads as absent, its copy dropped
    await objects.delete('bars/X/2024-01.hsb');
    assert.equal(await cache.get('bars/X/2024-01.hsb'), undefined);
    assert.equal(cache.stats().bytes, 0);
    await assert.rejects(
      CachedObjectStore.open(new MemoryObjectStore(), {
        dir: await tempDir('cache'),
        maxBytes: 1,
        revalidate: true,
      }),
      /conditional/,
    );
  });

  test('opening a cache empties its directory', async () => {
    const { store: objects } = s3Store();
    const dir = await tempDir('cache');
    await objects.put('s/t.bin', new Uint8Array([1]));
    const first = await CachedObjectStore.open(objects, { dir, maxBytes: 100 });
    await first.get('s/t.bin');
    assert.deepEqual(await readdir(dir), ['s']);
    await CachedObjectStore.open(objects, { dir, maxBytes: 100 });
    assert.deepEqual(await readdir(dir), []);
    await assert.rejects(CachedObjectStore.open(objects, { dir, maxBytes: -1 }), /maxBytes/);
  });
});
