import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { parseStorageUrl, s3ClientConfig, storageChild } from '../src/index.ts';

describe('the storage setting', () => {
  test('parses s3 URLs, file URLs and plain paths', () => {
    assert.deepEqual(parseStorageUrl('s3://my-bucket'), { kind: 's3', bucket: 'my-bucket', prefix: '' });
    assert.deepEqual(parseStorageUrl('s3://my-bucket/'), { kind: 's3', bucket: 'my-bucket', prefix: '' });
    assert.deepEqual(parseStorageUrl(' s3://data.example/hindsight/prod/ '), {
      kind: 's3',
      bucket: 'data.example',
      prefix: 'hindsight/prod',
    });
    assert.deepEqual(parseStorageUrl('file:///var/lib/hindsight'), {
      kind: 'file',
      dir: '/var/lib/hindsight',
    });
    assert.deepEqual(parseStorageUrl('/var/lib/hindsight'), { kind: 'file', dir: '/var/lib/hindsight' });
    assert.deepEqual(parseStorageUrl('data'), { kind: 'file', dir: resolve('data') });
  });

  test('rejects bad values with errors naming the setting', () => {
    const bad: [string, RegExp][] = [
      ['', /expected s3:\/\/bucket\/prefix/],
      ['s3://', /not a valid (URL|bucket)/],
      ['s3://My_Bucket/x', /not a valid bucket name/],
      ['s3://ab/x', /not a valid bucket name/],
      ['s3://bucket/a/../b', /not a valid key prefix/],
      ['s3://bucket/a//b', /not a valid key prefix/],
      ['s3://key:secret@bucket/x', /credentials do not belong/],
      ['s3://bucket:9000/x', /no port/],
      ['s3://bucket/x?region=eu', /no port, query/],
      ['gs://bucket/x', /unsupported scheme "gs:"/],
      ['file://host/x', /file URL/],
    ];
    for (const [value, why] of bad) {
      assert.throws(
        () => parseStorageUrl(value),
        (err: Error) => {
          assert.match(err.message, /^HINDSIGHT_STORAGE_URL=/, value);
          assert.match(err.message, why, value);
          return true;
        },
      );
    }
    assert.throws(() => parseStorageUrl('gs://b/x', 'MY_SETTING'), /^Error: MY_SETTING=/);
  });

  test('storageChild places a part of the store under the location', () => {
    assert.deepEqual(storageChild({ kind: 'file', dir: '/d' }, 'market'), { kind: 'file', dir: '/d/market' });
    assert.deepEqual(storageChild({ kind: 's3', bucket: 'b', prefix: '' }, 'market'), {
      kind: 's3',
      bucket: 'b',
      prefix: 'market',
    });
    assert.deepEqual(storageChild({ kind: 's3', bucket: 'b', prefix: 'p/q' }, 'market'), {
      kind: 's3',
      bucket: 'b',
      prefix: 'p/q/market',
    });
    assert.throws(() => storageChild({ kind: 'file', dir: '/d' }, '../x'), /invalid object key/);
  });

  test('S3 client settings come from the environment', () => {
    assert.deepEqual(s3ClientConfig({}), { region: 'us-east-1', forcePathStyle: false });
    assert.deepEqual(
      s3ClientConfig({
        HINDSIGHT_S3_ENDPOINT: 'http://127.0.0.1:9000',
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'id',
        AWS_SECRET_ACCESS_KEY: 'secret',
      }),
      {
        region: 'eu-west-1',
        forcePathStyle: true,
        endpoint: 'http://127.0.0.1:9000',
        credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      },
    );
    assert.equal(
      s3ClientConfig({ HINDSIGHT_S3_ENDPOINT: 'https://s3.example', HINDSIGHT_S3_FORCE_PATH_STYLE: 'false' })
        .forcePathStyle,
      false,
    );
    assert.throws(
      () => s3ClientConfig({ HINDSIGHT_S3_ENDPOINT: 'localhost:9000' }),
      /HINDSIGHT_S3_ENDPOINT=/,
    );
    assert.throws(
      () => s3ClientConfig({ HINDSIGHT_S3_FORCE_PATH_STYLE: 'yes' }),
      /HINDSIGHT_S3_FORCE_PATH_STYLE=/,
    );
    assert.throws(() => s3ClientConfig({ AWS_ACCESS_KEY_ID: 'id' }), /must be set together/);
  });
});
