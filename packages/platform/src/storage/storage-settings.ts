import type { S3ClientConfig } from '@aws-sdk/client-s3';
import { parseStorageUrl, s3ClientConfig } from '@hindsight/marketdata';
import { SettingsError } from '../settings.ts';

/**
 * Where the platform keeps its bytes, from one setting: `HINDSIGHT_STORAGE_URL` unset keeps everything in
 * the data dir as always (market data in `market/`, registry blobs in `registry/`, result files in the
 * database); `s3://bucket/prefix` puts market data, registry blobs and result files in that bucket under
 * `<prefix>/market/`, `<prefix>/registry/` and `<prefix>/results/` (docs/operating.md). The S3 client's
 * endpoint and credentials come from the variables `s3ClientConfig` reads; a worker's local copy of market
 * data is bounded by `HINDSIGHT_STORAGE_CACHE_BYTES`. A bad value stops the start naming its variable.
 */
export type StorageSettings =
  | { kind: 'data-dir' }
  | {
      kind: 's3';
      bucket: string;
      /** '' or a key prefix without leading or trailing '/'. */
      prefix: string;
      client: S3ClientConfig;
      /** Bound of the local market-data cache in the data dir. */
      cacheBytes: number;
    };

export const storageVariables = {
  url: 'HINDSIGHT_STORAGE_URL',
  cacheBytes: 'HINDSIGHT_STORAGE_CACHE_BYTES',
} as const;

/** 2 GiB: a few years of 1-minute bars of a few dozen instruments (about 0.2-1 MB a month each). */
export const DEFAULT_CACHE_BYTES = 2 * 1024 ** 3;

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1000,
  kb: 1000,
  m: 1000 ** 2,
  mb: 1000 ** 2,
  g: 1000 ** 3,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** `1073741824`, `512MiB`, `2GB`: a whole number of bytes with an optional unit. */
export function parseByteSize(text: string, variable: string): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(text.trim());
  const unit = UNITS[match?.[2]?.toLowerCase() ?? 'none'];
  const bytes = match && unit !== undefined ? Number(match[1]) * unit : Number.NaN;
  if (!Number.isSafeInteger(bytes)) {
    throw new SettingsError(variable, `"${text}" is not a size in bytes (e.g. 1073741824, 512MiB or 2GiB).`);
  }
  return bytes;
}

/** The variable a marketdata setting error names (`HINDSIGHT_S3_ENDPOINT="x": ...`, `AWS_... must ...`). */
function asSettingsError(error: unknown, fallback: string): SettingsError {
  const message = (error as Error).message;
  const variable = /^([A-Z][A-Z0-9_]*)/.exec(message)?.[1] ?? fallback;
  const rest = message.startsWith(`${variable}=`) ? message.slice(variable.length + 1) : message;
  return new SettingsError(variable, rest);
}

export function readStorageSettings(env: NodeJS.ProcessEnv): StorageSettings {
  const url = env[storageVariables.url]?.trim();
  if (!url) return { kind: 'data-dir' };
  let location: ReturnType<typeof parseStorageUrl>;
  try {
    location = parseStorageUrl(url, storageVariables.url);
  } catch (error) {
    throw asSettingsError(error, storageVariables.url);
  }
  if (location.kind !== 's3') {
    throw new SettingsError(
      storageVariables.url,
      `"${url}" is not an s3://bucket/prefix URL; leave it unset to keep everything in the data dir (HINDSIGHT_DATA_DIR).`,
    );
  }
  let client: S3ClientConfig;
  try {
    client = s3ClientConfig(env);
  } catch (error) {
    throw asSettingsError(error, 'HINDSIGHT_S3_ENDPOINT');
  }
  const cacheText = env[storageVariables.cacheBytes]?.trim();
  const cacheBytes = cacheText ? parseByteSize(cacheText, storageVariables.cacheBytes) : DEFAULT_CACHE_BYTES;
  return { kind: 's3', bucket: location.bucket, prefix: location.prefix, client, cacheBytes };
}

/** The key prefix of one part of the store (`market`, `registry`, `results`) in the bucket. */
export function storagePrefix(settings: { prefix: string }, part: string): string {
  return settings.prefix === '' ? part : `${settings.prefix}/${part}`;
}
