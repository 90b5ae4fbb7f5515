import { spawn } from 'node:child_process';
import { SINGLE_THREADED_FLAG, wantsSingleThreadedV8 } from '@hindsight/gateway/jit-tuning';

/** Commands whose process hosts a simulation gateway that polls for its strategy's acks. */
const GATEWAY_COMMANDS = new Set(['gateway']);

/** Set in the relaunched child's environment (and removed from it there). */
const RELAUNCHED = 'HINDSIGHT_RELAUNCHED';

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs the command again in a child process started with the V8 flags its gateway wants
 * (`wantsSingleThreadedV8`), when this process was started without them: V8 reads them only at
 * start. Returns whether it did; this process then only waits for the child, passes signals on to it
 * and ends as it ends (same exit code, or the same signal). A debugger's flags (`--inspect`) are left
 * alone: the child could not take the same port.
 */
export function relaunchWithV8Flags(
  argv: readonly string[] = process.argv,
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const command = argv[2];
  if (command === undefined || !GATEWAY_COMMANDS.has(command)) return false;
  if (execArgv.includes(SINGLE_THREADED_FLAG) || execArgv.some((flag) => flag.startsWith('--inspect'))) {
    return false;
  }
  let wanted: boolean;
  try {
    wanted = wantsSingleThreadedV8(env);
  } catch (error) {
    console.error(`hindsight ${command}: ${(error as Error).message}`);
    process.exit(2);
  }
  if (!wanted) return false;

  const child = spawn(process.execPath, [SINGLE_THREADED_FLAG, ...execArgv, ...argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...env, [RELAUNCHED]: '1' },
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  child.on('error', (error) => {
    console.error(`hindsight ${command}: could not start ${process.execPath}: ${error.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const name of FORWARDED_SIGNALS) process.off(name, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
  return true;
}

/**
 * In a relaunched child: stop as on SIGTERM when the launcher is gone (its IPC channel closes even
 * when it is killed outright), so a killed launcher leaves no gateway holding its port. The channel
 * itself does not keep the process alive.
 */
export function followLauncher(env: NodeJS.ProcessEnv = process.env): void {
  if (env[RELAUNCHED] === undefined) return;
  delete env[RELAUNCHED];
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
