import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';

/**
 * A real S3-protocol server (s3rver) on loopback for tests, in a child process. It runs with
 * `--openssl-legacy-provider` because s3rver encrypts ListObjectsV2 continuation tokens with DES, which
 * OpenSSL 3 only offers from its legacy provider; without it every paginated listing fails.
 */
export interface S3TestServer {
  endpoint: string;
  /** Credentials s3rver checks signatures against. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  close(): Promise<void>;
}

const SERVER = `
const S3rver = require(process.env.S3RVER_PATH);
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  directory: process.env.S3RVER_DIR,
  silent: true,
  configureBuckets: JSON.parse(process.env.S3RVER_BUCKETS).map((name) => ({ name })),
});
server.run().then((address) => process.stdout.write(JSON.stringify({ port: address.port }) + '\\n'));
process.stdin.on('end', () => server.close().then(() => process.exit(0)));
process.stdin.resume();
`;

/** Starts s3rver storing under `directory` with `buckets` created; the server stops when the test process ends. */
export async function startS3Server(directory: string, buckets: string[]): Promise<S3TestServer> {
  const child: ChildProcess = spawn(process.execPath, ['--openssl-legacy-provider', '-e', SERVER], {
    env: {
      ...process.env,
      S3RVER_PATH: createRequire(import.meta.url).resolve('s3rver'),
      S3RVER_DIR: directory,
      S3RVER_BUCKETS: JSON.stringify(buckets),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before listening`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin?.end();
      await exited;
    },
  };
}
