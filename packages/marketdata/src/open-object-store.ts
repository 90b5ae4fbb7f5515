import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { FileObjectStore, type ObjectStore } from './object-store.ts';
import { S3ObjectStore } from './s3-object-store.ts';
import type { StorageLocation } from './storage-url.ts';

/**
 * Opens the ObjectStore for a StorageLocation. S3 settings come from the environment: the endpoint of an
 * S3-compatible server in `HINDSIGHT_S3_ENDPOINT` (unset for AWS), `HINDSIGHT_S3_FORCE_PATH_STYLE`
 * (default true when an endpoint is set, as most such servers want), the region in `AWS_REGION`, and
 * credentials in `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN` (else the SDK's default
 * chain: profiles, instance roles).
 */
export function s3ClientConfig(env: NodeJS.ProcessEnv = process.env): S3ClientConfig {
  const endpoint = env.HINDSIGHT_S3_ENDPOINT?.trim() || undefined;
  if (endpoint !== undefined) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(endpoint).protocol);
    } catch {}
    if (!ok) throw new Error(`HINDSIGHT_S3_ENDPOINT=${JSON.stringify(endpoint)}: expected an http(s) URL`);
  }
  const pathStyle = env.HINDSIGHT_S3_FORCE_PATH_STYLE?.trim().toLowerCase();
  if (pathStyle && pathStyle !== 'true' && pathStyle !== 'false')
    throw new Error(`HINDSIGHT_S3_FORCE_PATH_STYLE=${JSON.stringify(pathStyle)}: expected true or false`);
  const config: S3ClientConfig = {
    region: env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1',
    forcePathStyle: pathStyle ? pathStyle === 'true' : endpoint !== undefined,
  };
  if (endpoint !== undefined) config.endpoint = endpoint;
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (accessKeyId && secretAccessKey) {
    const sessionToken = env.AWS_SESSION_TOKEN?.trim() || undefined;
    config.credentials = { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
  } else if (accessKeyId || secretAccessKey) {
    throw new Error('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
  }
  return config;
}

export function openObjectStore(
  location: StorageLocation,
  env: NodeJS.ProcessEnv = process.env,
): ObjectStore {
  if (location.kind === 'file') return new FileObjectStore(location.dir);
  return new S3ObjectStore({
    client: new S3Client(s3ClientConfig(env)),
    bucket: location.bucket,
    prefix: location.prefix,
  });
}
