import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Every CLI process a test starts runs the code under test, the TypeScript sources, as the test
 * itself does (`--conditions=source` picks them in package.json's exports, tsx's loader runs them):
 * through NODE_OPTIONS, so that `npm start` and `npx hindsight` run them too. The shipped bin
 * otherwise runs the compiled dist/, which may lag the sources.
 */
export const runSources = {
  NODE_OPTIONS:
    `${process.env.NODE_OPTIONS ?? ''} --conditions=source --import=${import.meta.resolve('tsx')}`.trim(),
};

/** The `hindsight` command as a real child process, with an environment free of HINDSIGHT_* settings. */
export const bin = fileURLToPath(new URL('../../bin/hindsight.js', import.meta.url));
export const cleanEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('HINDSIGHT_') && k !== 'DATABASE_URL'),
  ),
  ...runSources,
};

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(args: string[], env: Record<string, string> = {}): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...cleanEnv, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `hindsight start` and resolves with its banner once it is listening. */
export function start(env: Record<string, string>): Promise<{ child: ChildProcess; banner: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'start', '--port', '0'], {
      env: { ...cleanEnv, HINDSIGHT_LOG_LEVEL: 'warn', ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('API docs:')) resolve({ child, banner: out });
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('close', (code) => reject(new Error(`start exited ${code}: ${err}${out}`)));
  });
}

export const stop = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.removeAllListeners('close');
    child.on('close', (code) => resolve(code));
    child.kill('SIGTERM');
  });

export const dataDir = () => mkdtempSync(join(tmpdir(), 'hindsight-cli-'));
