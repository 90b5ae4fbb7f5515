import { createRequire } from 'node:module';
import { type HostProcess, startHostProcess } from './host-process.ts';

/**
 * The cluster's object store: s3rver (a real S3-protocol server in Node) on a host of its own,
 * listening on that host's LAN address, with the buckets created. Runs with
 * `--openssl-legacy-provider`: s3rver encrypts ListObjectsV2 continuation tokens with DES.
 */
export interface S3Host {
  endpoint: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  process: HostProcess;
}

const SERVER = `
const S3rver = require(process.env.S3RVER_PATH);
const server = new S3rver({
  address: process.env.S3RVER_ADDRESS,
  port: Number(process.env.S3RVER_PORT),
  directory: process.env.S3RVER_DIR,
  silent: true,
  configureBuckets: JSON.parse(process.env.S3RVER_BUCKETS).map((name) => ({ name })),
});
server.run().then(() => process.stdout.write('s3 listening\\n'));
`;

export async function startS3Host(options: {
  namespace: string;
  address: string;
  directory: string;
  buckets: string[];
  logFile: string;
}): Promise<S3Host> {
  const port = 9000;
  const server = await startHostProcess({
    label: 's3',
    namespace: options.namespace,
    args: ['--openssl-legacy-provider', '-e', SERVER],
    env: {
      S3RVER_PATH: createRequire(import.meta.url).resolve('s3rver'),
      S3RVER_ADDRESS: options.address,
      S3RVER_PORT: String(port),
      S3RVER_DIR: options.directory,
      S3RVER_BUCKETS: JSON.stringify(options.buckets),
    },
    logFile: options.logFile,
    ready: /s3 listening/,
  });
  return {
    endpoint: `http://${options.address}:${port}`,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    process: server,
  };
}
