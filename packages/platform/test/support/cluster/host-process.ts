import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A process on one host of the cluster: `ip netns exec <namespace> node ...`, which execs the command
 * in the namespace, so the child's pid is the node process itself and SIGKILL reaches it alone (its
 * bubblewrap sandboxes die with it). Standard output and error go to a log file of its own, which
 * outlives a kill: the test reads the worker's JSON log lines from it afterwards.
 */
export interface HostProcess {
  label: string;
  logFile: string;
  child: ChildProcess;
  /** Whether the process has exited (killed or not). */
  readonly exited: boolean;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The `hindsight` command, run from the TypeScript sources as every test runs the code under test. */
const bin = fileURLToPath(new URL('../../../../cli/bin/hindsight.js', import.meta.url));
const runSources = `--conditions=source --import=${import.meta.resolve('tsx')}`;

/** The environment without the test's own HINDSIGHT_* settings and database. */
const cleanEnv = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('HINDSIGHT_') && k !== 'DATABASE_URL' && !k.startsWith('AWS_'),
    ),
  );

export interface HostProcessOptions {
  label: string;
  namespace: string;
  /** Arguments of node (a script and its arguments). */
  args: string[];
  env: Record<string, string>;
  logFile: string;
  /** A line of output that says the process is ready. */
  ready: RegExp;
  /** A bound for a loaded machine, not an expectation. */
  timeoutMs?: number;
}

export async function startHostProcess(options: HostProcessOptions): Promise<HostProcess> {
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const child = spawn('ip', ['netns', 'exec', options.namespace, process.execPath, ...options.args], {
    env: { ...cleanEnv(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exited = false;
  const exit = once(child, 'exit').then(() => {
    exited = true;
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  void exit.then(() => log.end());
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.label} was not ready within ${options.timeoutMs ?? 120_000} ms`));
    }, options.timeoutMs ?? 120_000);
    const look = (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-4096);
      if (options.ready.test(seen)) {
        clearTimeout(timer);
        child.stdout?.off('data', look);
        resolve();
      }
    };
    child.stdout?.on('data', look);
    void exit.then(() => {
      clearTimeout(timer);
      const tail = readFileSync(options.logFile, 'utf8').slice(-2000);
      reject(new Error(`${options.label} exited before it was ready: ${tail}`));
    });
  });
  return {
    label: options.label,
    logFile: options.logFile,
    child,
    get exited() {
      return exited;
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (exited) return;
      child.kill(signal);
      await exit;
    },
  };
}

/** `hindsight start` (API, registry, no worker) or `hindsight worker` on a host. */
export const hindsight = (command: 'start' | 'worker', ...args: string[]) => [bin, command, ...args];

/** NODE_OPTIONS that make `hindsight` run the sources. */
export const sourceNodeOptions = { NODE_OPTIONS: runSources };
