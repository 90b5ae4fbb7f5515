import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * How long a user waits for the CLI: `hindsight --help` to its exit, and `hindsight start` to its
 * banner (printed once the API listens), on a fresh data directory (which creates the store) and on
 * one that exists. Each runs the shipped bin with plain node as `npx hindsight` and `npm start` do,
 * so it measures the compiled code: `npm install` builds it (`npm run build` after editing sources).
 */
const bin = fileURLToPath(new URL('../packages/cli/bin/hindsight.js', import.meta.url));
const compiled = fileURLToPath(new URL('../packages/cli/dist/main.js', import.meta.url));
const RUNS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** The environment of a user's shell: none of this process's loader flags or Hindsight settings. */
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !k.startsWith('HINDSIGHT_') && k !== 'DATABASE_URL' && k !== 'NODE_OPTIONS',
  ),
);

function helpMs(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, '--help'], { env, stdio: 'ignore' });
  return new Promise((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`--help exited ${code}`)),
    ),
  );
}

/** Milliseconds from spawning `hindsight start` to its banner; then stops it and waits for its exit. */
async function startMs(dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'start', '--port', '0'], {
    env: { ...env, HINDSIGHT_DATA_DIR: dataDir, HINDSIGHT_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let output = '';
  const elapsed = await new Promise<number>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('API docs:')) resolve(performance.now() - started);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exited.then((code) => reject(new Error(`hindsight start exited ${code}: ${output}`)));
  });
  child.kill('SIGTERM');
  if ((await exited) !== 0) throw new Error(`hindsight start did not stop cleanly: ${output}`);
  return elapsed;
}

export async function run(): Promise<void> {
  if (!existsSync(compiled)) {
    throw new Error(`${compiled} is missing: build the packages first (npm run build)`);
  }
  const help: number[] = [];
  for (let i = 0; i < RUNS; i++) help.push(await helpMs());
  console.log(`BENCH cli-help ${Math.round(median(help))} ms`);

  const scratch = mkdtempSync(join(tmpdir(), 'hindsight-bench-startup-'));
  try {
    const fresh: number[] = [];
    for (let i = 0; i < 3; i++) fresh.push(await startMs(join(scratch, `fresh-${i}`)));
    console.log(`BENCH first-start-to-serve ${Math.round(median(fresh))} ms`);
    // Later starts reopen the store the first one made.
    const again: number[] = [];
    for (let i = 0; i < RUNS; i++) again.push(await startMs(join(scratch, 'fresh-0')));
    console.log(`BENCH start-to-serve ${Math.round(median(again))} ms`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
