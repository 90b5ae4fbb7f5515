import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { StrategyExit, StrategyProcess } from './executor.ts';
import type { ResourceGuard } from './resource-guard.ts';

/**
 * A strategy running as a child process of the worker (the `local` executor), sandboxed or not:
 * - under bubblewrap, the sandbox's PID 1 (bwrap's own init, which ignores SIGTERM) is known from bwrap's
 *   info fd; `stop` sends SIGTERM to every process below it, then SIGKILL to that PID 1, which ends the
 *   whole PID namespace at once;
 * - in trusted-code mode the strategy leads its own process group; `stop` signals the group.
 */
export interface ChildTarget {
  child: ChildProcess;
  /** Resolves with the host PID of the sandbox's PID 1 (bubblewrap), or undefined (no sandbox). */
  sandboxInit?: Promise<number | undefined>;
  /** Watches the sandbox's limits: the strategy is killed at its first breach, which its exit names. */
  guard?: ResourceGuard;
  /** The limits it runs under, for its exit, when no guard can tell a breach (rlimits only). */
  limits?: string;
}

/** How long the output pipes may stay open after the process ended (a grandchild may hold them). */
const DRAIN_MS = 500;

/** Every descendant of `root`, from `/proc` (children before their own children). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

const signal = (pid: number, name: NodeJS.Signals) => {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
};

export class ChildStrategyProcess implements StrategyProcess {
  readonly exited: Promise<StrategyExit>;
  private ended = false;

  constructor(readonly target: ChildTarget) {
    const { child } = target;
    this.exited = new Promise<StrategyExit>((resolve) => {
      let exit: StrategyExit | undefined;
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        if (!exit) return;
        clearTimeout(timer);
        this.ended = true;
        resolve(exit);
      };
      child.once('exit', (code, signalName) => {
        // Its PIDs may be reused from now on: nothing may be signalled on a breach found later.
        target.guard?.unwatch();
        exit = { code, signal: signalName };
        const breach = target.guard?.check();
        if (breach) exit.breach = breach;
        else if (target.limits && (code !== 0 || signalName)) exit.limits = target.limits;
        timer = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish();
        }, DRAIN_MS);
      });
      child.once('close', finish);
      child.once('error', () => {
        exit ??= { code: null, signal: null };
        finish();
      });
    });
    target.guard?.watch(() => this.kill());
  }

  private async terminate(): Promise<void> {
    const { child, sandboxInit } = this.target;
    const pid = child.pid;
    if (pid === undefined) return;
    if (!sandboxInit) {
      signal(-pid, 'SIGTERM');
      return;
    }
    const init = await Promise.race([
      sandboxInit,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 200)),
    ]);
    if (init === undefined) {
      // The sandbox is not set up yet: nothing in it can have state worth a graceful end.
      this.kill();
      return;
    }
    for (const inner of descendants(init)) signal(inner, 'SIGTERM');
  }

  private kill(): void {
    const { child } = this.target;
    const pid = child.pid;
    if (pid === undefined) return;
    if (!this.target.sandboxInit) {
      signal(-pid, 'SIGKILL');
      return;
    }
    void this.target.sandboxInit.then((init) => {
      if (init !== undefined) signal(init, 'SIGKILL');
    });
    signal(pid, 'SIGKILL');
  }

  async stop(graceMs: number): Promise<StrategyExit> {
    if (this.ended) {
      // Whatever the strategy left behind in its group goes with it (the sandbox's PID namespace is gone already).
      if (!this.target.sandboxInit && this.target.child.pid !== undefined)
        signal(-this.target.child.pid, 'SIGKILL');
      return this.exited;
    }
    const timer = setTimeout(() => this.kill(), Math.max(0, graceMs));
    try {
      if (graceMs <= 0) this.kill();
      else await this.terminate();
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
