import assert from 'node:assert/strict';
import type { ObjectStore } from '../src/index.ts';

/**
 * The behaviour every ObjectStore backend keeps (file, memory, S3, the cache wrapper): one suite, run by each
 * backend's tests against an empty store.
 */
export async function objectStoreContract(store: ObjectStore): Promise<void> {
  assert.equal(await store.get('bars/A/2024-01.hsb'), undefined);
  await store.put('bars/A/2024-01.hsb', new Uint8Array([1, 2, 3]));
  await store.put('bars/A/2024-02.hsb', new Uint8Array([4]));
  await store.put('bars/AB/index.json', new Uint8Array([5]));
  await store.put('ticks/A/2024-01-01.hst', new Uint8Array([]));
  assert.deepEqual(Array.from((await store.get('bars/A/2024-01.hsb')) ?? []), [1, 2, 3]);
  assert.deepEqual(Array.from((await store.get('ticks/A/2024-01-01.hst')) ?? [9]), []);
  assert.deepEqual(await store.list('bars/A/'), ['bars/A/2024-01.hsb', 'bars/A/2024-02.hsb']);
  assert.deepEqual(await store.list('bars/A'), [
    'bars/A/2024-01.hsb',
    'bars/A/2024-02.hsb',
    'bars/AB/index.json',
  ]);
  assert.deepEqual((await store.list('')).length, 4);
  assert.deepEqual(await store.list('nothing/'), []);
  await store.put('bars/A/2024-01.hsb', new Uint8Array([7]));
  assert.deepEqual(Array.from((await store.get('bars/A/2024-01.hsb')) ?? []), [7]);
  await store.delete('bars/A/2024-01.hsb');
  await store.delete('bars/A/2024-01.hsb');
  assert.equal(await store.get('bars/A/2024-01.hsb'), undefined);
  for (const bad of ['', '/abs', 'a/../b', 'a//b', 'a/.hidden', 'a\\b', '..']) {
    await assert.rejects(store.put(bad, new Uint8Array([1])), /invalid object key/, bad);
  }
}
