import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What `hindsight check` starts as the strategy, and starting it: an SDK module (`.ts`, `.js`) runs
 * under the SDK's wire runner (`hindsight-strategy`, what its image runs, as `backtest --wire` does);
 * a folder with `--cmd` runs that command in the folder, any language. The process gets the
 * environment a platform run gives it (decision 19c) and its output is kept, the last lines for the
 * report.
 */
export interface StrategyCommand {
  command: string;
  args: string[];
  cwd: string;
  /** How the report names it. */
  label: string;
}

export class StrategyUsageError extends Error {}

const MODULE = /\.[cm]?[jt]sx?$/;

/** The command for `hindsight check <strategy> [--cmd ...]`; a usage error when it cannot be run. */
export function strategyCommand(strategy: string, cmd: string[] | undefined): StrategyCommand {
  const path = resolve(strategy);
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    throw new StrategyUsageError(`${strategy}: no such file or folder`);
  }
  if (cmd) {
    if (!isDirectory) throw new StrategyUsageError(`${strategy}: with --cmd, give the strategy's folder`);
    const [command, ...args] = cmd;
    if (command === undefined) throw new StrategyUsageError('--cmd is empty');
    return { command, args, cwd: path, label: `${strategy} (${cmd.join(' ')})` };
  }
  if (isDirectory || !MODULE.test(path)) {
    throw new StrategyUsageError(
      `${strategy}: give an SDK strategy module (.ts or .js), or a folder with --cmd (e.g. --cmd "python3 main.py")`,
    );
  }
  return {
    command: process.execPath,
    args: [
      ...process.execArgv,
      '--import',
      import.meta.resolve('tsx'),
      fileURLToPath(import.meta.resolve('@hindsight/sdk/wire-main')),
      path,
    ],
    cwd: process.cwd(),
    label: strategy,
  };
}

const TAIL_LINES = 8;

export interface StartedStrategy {
  child: ChildProcess;
  /** Settles with how the process ended (a failure to start is an exit 127). */
  exited: Promise<{ code: number | null; signal: string | null }>;
  /** The last lines it wrote. */
  tail(): string[];
}

export function startStrategy(
  strategy: StrategyCommand,
  env: Record<string, string | undefined>,
  echo: boolean,
): StartedStrategy {
  const child = spawn(strategy.command, strategy.args, {
    cwd: strategy.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    if (echo) process.stderr.write(chunk);
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line.trim() !== ''),
    );
    if (lines.length > TAIL_LINES) lines.splice(0, lines.length - TAIL_LINES);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: string | null }>((done) => {
    child.on('error', (error) => {
      lines.push(`cannot start ${strategy.command}: ${error.message}`);
      done({ code: 127, signal: null });
    });
    child.on('close', (code, signal) => done({ code, signal }));
  });
  return { child, exited, tail: () => [...lines] };
}
