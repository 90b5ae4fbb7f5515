import assert from 'node:assert/strict';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openObjectStore, parseStorageUrl } from '@hindsight/marketdata';
import { type S3TestServer, startS3Server } from '../../marketdata/test/s3-server.ts';
import { dataDir, run } from './support/cli-process.ts';

/**
 * `hindsight data import` and `data export` with HINDSIGHT_STORAGE_URL=s3://...: the bars go to the bucket
 * (a real s3rver on loopback), not the data dir; a bad storage setting stops `start` with one line.
 */
describe('hindsight data with object storage', () => {
  let server: S3TestServer | undefined;
  const env = (dir: string): Record<string, string> => ({
    HINDSIGHT_DATA_DIR: dir,
    HINDSIGHT_STORAGE_URL: 's3://cli-data/site',
    HINDSIGHT_S3_ENDPOINT: server?.endpoint ?? '',
    AWS_ACCESS_KEY_ID: server?.credentials.accessKeyId ?? '',
    AWS_SECRET_ACCESS_KEY: server?.credentials.secretAccessKey ?? '',
  });
  before(async () => {
    server = await startS3Server(dataDir(), ['cli-data']);
  });
  after(async () => {
    await server?.close();
  });

  it('imports into the bucket, idempotently, and exports from it', async () => {
    const dir = dataDir();
    const csv = join(dir, 'gbpusd.csv');
    writeFileSync(
      csv,
      [
        'time,bid_open,bid_high,bid_low,bid_close,ask_open,ask_high,ask_low,ask_close',
        '2014-05-02T10:00:00Z,1.68790,1.68805,1.68780,1.68801,1.68801,1.68816,1.68791,1.68812',
        '2014-05-02T10:01:00Z,1.68801,1.68820,1.68790,1.68810,1.68812,1.68831,1.68801,1.68821',
      ].join('\n'),
    );
    const args = ['data', 'import', '--format', 'forex-sample', '--symbol', 'F:GBPUSD', csv];
    const first = await run(args, env(dir));
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /written 2014-05/);
    const again = await run(args, env(dir));
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /written none; unchanged 2014-05/);

    assert.equal(existsSync(join(dir, 'market')), false, 'nothing of the market store in the data dir');
    const bucket = openObjectStore(parseStorageUrl('s3://cli-data/site/market'), env(dir));
    assert.deepEqual(await bucket.list('bars/F_GBPUSD/'), [
      'bars/F_GBPUSD/2014-05.hsb',
      'bars/F_GBPUSD/index.json',
    ]);

    const out = join(dir, 'gbpusd.parquet');
    const exported = await run(['data', 'export', '--symbol', 'F:GBPUSD', '--out', out], env(dir));
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /Exported 2 bid\/ask bars of F:GBPUSD/);
    assert.ok(statSync(out).size > 0);
  });

  it('stops on a bad storage setting with one line naming the variable', async () => {
    const { code, stderr } = await run(['start'], {
      ...env(dataDir()),
      HINDSIGHT_STORAGE_URL: 's3://No_Such/x',
    });
    assert.equal(code, 2);
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.match(stderr, /^hindsight: HINDSIGHT_STORAGE_URL: /);
  });
});
