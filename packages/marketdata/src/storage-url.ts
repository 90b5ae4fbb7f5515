import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertObjectKey } from './object-store.ts';

/**
 * Where objects live, as read from one setting (`HINDSIGHT_STORAGE_URL`): `s3://bucket/prefix` for an S3
 * bucket, `file:///path` or a plain path for a local directory. Errors name the setting, since they reach an
 * operator starting the platform.
 */
export type StorageLocation =
  | { kind: 'file'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      /** '' or a valid object key, without leading or trailing '/'. */
      prefix: string;
    };

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function parseStorageUrl(value: string, setting = 'HINDSIGHT_STORAGE_URL'): StorageLocation {
  const text = value.trim();
  const fail = (why: string): never => {
    throw new Error(`${setting}=${JSON.stringify(value)}: ${why}`);
  };
  if (text === '') fail('expected s3://bucket/prefix, file:///path or a directory path');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined || (scheme.length === 1 && process.platform === 'win32'))
    return { kind: 'file', dir: resolve(text) };
  if (scheme === 'file') {
    let dir = '';
    try {
      dir = fileURLToPath(text);
    } catch (err) {
      fail(`not a file URL (${(err as Error).message})`);
    }
    if (!isAbsolute(dir)) fail('a file URL must name an absolute path');
    return { kind: 'file', dir };
  }
  if (scheme !== 's3') return fail(`unsupported scheme "${scheme}:"; use s3://bucket/prefix or file:///path`);
  // parsed by hand: the URL class would resolve `..` segments and hide them from the key rules
  const [, authority = '', path = '', rest = ''] = /^s3:\/\/([^/?#]*)([^?#]*)(.*)$/is.exec(text) ?? [];
  if (authority.includes('@'))
    fail('credentials do not belong in the URL; use AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY');
  if (authority.includes(':') || rest !== '')
    fail('expected s3://bucket/prefix with no port, query or fragment');
  const bucket = authority;
  if (!BUCKET.test(bucket) || bucket.includes('..'))
    fail(`"${bucket}" is not a valid bucket name (3-63 lowercase letters, digits, dots and hyphens)`);
  let prefix = '';
  try {
    prefix = decodeURIComponent(path).replace(/^\/+|\/+$/g, '');
  } catch {
    fail('the prefix is not valid percent-encoding');
  }
  if (prefix !== '') {
    try {
      assertObjectKey(prefix);
    } catch {
      fail(`"${prefix}" is not a valid key prefix (segments of letters, digits and ._=+@,-)`);
    }
  }
  return { kind: 's3', bucket, prefix };
}

/** The location of one part of the store (`market`, ...) under `location`. */
export function storageChild(location: StorageLocation, name: string): StorageLocation {
  assertObjectKey(name);
  if (location.kind === 'file') return { kind: 'file', dir: join(location.dir, ...name.split('/')) };
  return { ...location, prefix: location.prefix === '' ? name : `${location.prefix}/${name}` };
}
