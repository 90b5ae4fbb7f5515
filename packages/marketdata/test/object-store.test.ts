import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { FileObjectStore, MemoryObjectStore } from '../src/index.ts';
import { objectStoreContract } from './object-store-contract.ts';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hindsight-objects-'));
  dirs.push(dir);
  return dir;
}
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('object stores', () => {
  test('FileObjectStore keeps the ObjectStore contract', async () => {
    await objectStoreContract(new FileObjectStore(await tempDir()));
  });

  test('MemoryObjectStore keeps the ObjectStore contract', async () => {
    await objectStoreContract(new MemoryObjectStore());
  });

  test('FileObjectStore put is atomic: concurrent readers see a whole old or new object, never a mix', async () => {
    const root = await tempDir();
    const store = new FileObjectStore(root);
    const size = 4 * 1024 * 1024;
    const versions = [1, 2, 3, 4, 5, 6].map((v) => new Uint8Array(size).fill(v));
    await store.put('big/object.bin', versions[0] as Uint8Array);
    let stop = false;
    let reads = 0;
    const reader = async () => {
      while (!stop) {
        const bytes = await store.get('big/object.bin');
        assert.ok(bytes, 'object never disappears');
        assert.equal(bytes.length, size);
        const first = bytes[0] as number;
        assert.ok(
          bytes.every((b) => b === first),
          'no torn read',
        );
        reads++;
      }
    };
    const readers = [reader(), reader()];
    for (const version of versions) await store.put('big/object.bin', version);
    stop = true;
    await Promise.all(readers);
    assert.ok(reads > 0);
    assert.equal((await store.get('big/object.bin'))?.[0], 6);
    // no temporary files are left behind, and stray ones are never listed
    assert.deepEqual(await readdir(join(root, 'big')), ['object.bin']);
    await writeFile(join(root, 'big', '.object.bin.123.abc.tmp'), 'partial');
    assert.deepEqual(await store.list('big/'), ['big/object.bin']);
  });

  test('a failed put leaves the previous object and no temporary file', async () => {
    const root = await tempDir();
    const store = new FileObjectStore(root);
    await store.put('a/b.bin', new Uint8Array([1]));
    const broken = { length: 1 } as unknown as Uint8Array; // writeFile rejects this
    await assert.rejects(store.put('a/b.bin', broken));
    assert.deepEqual(Array.from((await store.get('a/b.bin')) ?? []), [1]);
    assert.deepEqual(await readdir(join(root, 'a')), ['b.bin']);
  });
});
