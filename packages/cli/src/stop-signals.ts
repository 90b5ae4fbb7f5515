import { leaveLostTerminal } from './lost-terminal.ts';

/**
 * How the serving commands (`start`, `worker`, `gateway`) stop: SIGTERM (a supervisor, `kill`,
 * npm), SIGINT (Ctrl-C) and SIGHUP (a closed terminal) all drain the same way, then the process
 * exits 0; 1 when stopping itself failed. Signals after the first are ignored: Ctrl-C reaches every
 * process of the terminal's group, so a process can get it twice (from the terminal and from npm),
 * and killing a process halfway through its stop would leave runs behind. SIGKILL
 * remains the way to end a stop that hangs.
 */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/** Calls `stop` at the first stop signal, then exits. */
export function onStopSignal(stop: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    if (!leaveLostTerminal()) {
      // Cannot stop safely: end as the signal would have without a listener.
      for (const name of STOP_SIGNALS) process.off(name, handle);
      process.kill(process.pid, signal);
      return;
    }
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  for (const signal of STOP_SIGNALS) process.on(signal, handle);
}
