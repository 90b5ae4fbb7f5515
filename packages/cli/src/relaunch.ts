import { type ChildProcess, spawn } from 'node:child_process';
import { url as inspectorUrl } from 'node:inspector';
import { constants } from 'node:os';
import { missingGatewayV8Flags } from '@hindsight/gateway/jit-tuning';
import { leaveLostTerminal } from './lost-terminal.ts';

/** Set in the relaunched child's environment (and removed from it there). */
const RELAUNCHED = 'HINDSIGHT_RELAUNCHED';

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs the command again in a child process started with the V8 flags its gateway wants
 * (`missingGatewayV8Flags`), when this process was started without them: V8 reads them only at
 * start. Returns whether it did; this process then only waits for the child, passes signals on to it
 * and ends as it ends (same exit code, or the same signal). A process with a debugger attached
 * (`--inspect`, also through NODE_OPTIONS) is left alone: the child could not take the same port.
 * An invalid GATEWAY_SINGLE_THREADED stops the command here, in one line (exit code 2).
 */
export function relaunchWithV8Flags(
  argv: readonly string[] = process.argv,
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  // The one command whose process hosts a simulation gateway that polls for its strategy's acks.
  const command = argv[2];
  if (command !== 'gateway') return false;
  let missing: string[];
  try {
    missing = missingGatewayV8Flags(env, execArgv);
  } catch (error) {
    console.error(`hindsight ${command}: ${(error as Error).message}`);
    process.exit(2);
  }
  if (missing.length === 0 || inspectorUrl() !== undefined) return false;

  // Listening before the child exists: between the two, a signal's default action would end this
  // process alone (the listener itself runs only once this function has returned).
  let child: ChildProcess | undefined;
  const forward = (signal: NodeJS.Signals) => child?.kill(signal);
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  child = spawn(process.execPath, [...missing, ...execArgv, ...argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...env, [RELAUNCHED]: '1' },
  });
  child.on('error', (error) => {
    console.error(`hindsight ${command}: could not start ${process.execPath}: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const name of FORWARDED_SIGNALS) process.off(name, forward);
    // A closed terminal would make Node abort on exit instead of ending as the child did.
    leaveLostTerminal();
    if (signal === null) process.exit(code ?? 1);
    process.kill(process.pid, signal);
    // Still here: the signal's default action does not apply to a PID namespace's init (a container
    // without an init process), so end as a shell reports a death by that signal.
    process.exit(128 + constants.signals[signal]);
  });
  return true;
}

/**
 * In a relaunched child: stop as on SIGTERM when the launcher is gone (its IPC channel closes even
 * when it is killed outright; a launcher that died while this process was still loading has closed it
 * already), so a killed launcher leaves no gateway holding its port. The channel itself does not keep
 * the process alive. Returns whether this is a relaunched child.
 */
export function followLauncher(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env[RELAUNCHED] === undefined) return false;
  delete env[RELAUNCHED];
  if (!process.channel || !process.connected) {
    process.kill(process.pid, 'SIGTERM');
    return true;
  }
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  return true;
}
