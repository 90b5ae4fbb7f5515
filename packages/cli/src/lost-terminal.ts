import { closeSync, openSync } from 'node:fs';
import { isatty } from 'node:tty';

/**
 * A closed terminal window hangs its terminal up (and sends the SIGHUP that stops the process): every
 * later write to it fails with EIO. pino then throws halfway through the stop, and its exit flush
 * retries such a write forever, so the process would hang holding its port; Node itself aborts at
 * exit when it restores the terminal's settings. So before stopping, each standard stream that was a
 * terminal when the process started and is one no longer is pointed at /dev/null: after close(),
 * open() returns the lowest free descriptor. Node's exit leaves a reopened descriptor alone.
 */
const terminals = [0, 1, 2].filter((fd) => isatty(fd));

/**
 * Returns false when another thread's open() took a descriptor in between (someone else's file now
 * sits there, which the stop must not write into): the caller then ends the process at once.
 */
export function leaveLostTerminal(): boolean {
  for (const fd of terminals) {
    if (isatty(fd)) continue;
    closeSync(fd);
    const opened = openSync('/dev/null', fd === 0 ? 'r' : 'w');
    if (opened !== fd) {
      closeSync(opened);
      return false;
    }
  }
  return true;
}
