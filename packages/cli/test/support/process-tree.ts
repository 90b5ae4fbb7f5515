import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

/** What the tests see of processes, from Linux's /proc: trees, process groups, whether one has ended. */
interface Stat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

async function stat(pid: number): Promise<Stat | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (text === '') return undefined;
  // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
  const [state = '', ppid, pgrp] = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pid, state, ppid: Number(ppid), pgrp: Number(pgrp) };
}

async function all(): Promise<Stat[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  return (await Promise.all(pids.map(stat))).filter((s): s is Stat => s !== undefined);
}

/** A zombie has ended: its parent died before it and nobody reaps it (no init in a container). */
const running = (s: Stat | undefined): s is Stat => s !== undefined && s.state !== 'Z';

/** `pid` and every process below it (zombies left out). */
export async function processTree(pid: number): Promise<number[]> {
  const stats = (await all()).filter(running);
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const s of stats) if (s.ppid === tree[i]) tree.push(s.pid);
  }
  return tree;
}

export async function commandLine(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').filter(Boolean);
}

/**
 * The processes of `pids` and of process group `group` that are still running once all have ended
 * or `waitMs` has passed (a generous bound on the wait, not an expectation of speed), with their
 * command lines; a test asserts the list is empty.
 */
export async function leftovers(pids: number[], group?: number, waitMs = 30_000): Promise<string[]> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const left = (await all()).filter((s) => running(s) && (pids.includes(s.pid) || s.pgrp === group));
    if (left.length === 0 || Date.now() > deadline) {
      return Promise.all(left.map(async (s) => `${s.pid}: ${(await commandLine(s.pid)).join(' ')}`));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether a new server can listen on the loopback port (nothing holds it any more). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Ends what a failed test left of process group `group` (a passing test leaves nothing). */
export function killGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // the group is empty (ESRCH)
  }
}
