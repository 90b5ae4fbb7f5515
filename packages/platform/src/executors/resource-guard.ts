import { closeSync, openSync, statfsSync } from 'node:fs';
import type { CgroupCounters } from './cgroups.ts';
import type { LimitBreach, StrategyLimits } from './strategy-limits.ts';

/**
 * Watches one running strategy against its limits and names the first one it ran into: an OOM kill in
 * its group (memory), a fork its group refused (processes), its scratch space found full. The executor
 * stops a strategy at its first breach, so that the run fails at once naming the limit instead of
 * limping on (a fork bomb that keeps failing to fork, a strategy that cannot write).
 *
 * The scratch space is watched through a directory opened in it while the sandbox was being set up:
 * the open directory keeps the tmpfs alive, so its fill can still be read after the sandbox is gone
 * (a strategy that filled it and died of the error in between two polls).
 */
export interface GuardProbes {
  counters?: CgroupCounters;
  /** `/proc/<pid>/root/tmp` of a process of the sandbox: its scratch folder, from the host. */
  scratchPath?: string;
}

const POLL_MS = 250;

export class ResourceGuard {
  private found: LimitBreach | undefined;
  private timer: NodeJS.Timeout | undefined;
  private scratchFd: number | undefined;

  constructor(
    readonly limits: StrategyLimits,
    private readonly probes: GuardProbes,
  ) {
    if (probes.scratchPath) {
      try {
        this.scratchFd = openSync(probes.scratchPath, 'r');
      } catch {
        // The sandbox ended already, or this host cannot look into it: the scratch fill goes unwatched.
      }
    }
  }

  /** Polls until `unwatch` or `close`, calling `onBreach` once at the first breach. */
  watch(onBreach: (breach: LimitBreach) => void): void {
    this.timer = setInterval(() => {
      const breach = this.check();
      if (breach) {
        clearInterval(this.timer);
        onBreach(breach);
      }
    }, POLL_MS);
    this.timer.unref();
  }

  /** The first breach found so far (this check included), or undefined. */
  check(): LimitBreach | undefined {
    this.found ??= this.inspect();
    return this.found;
  }

  private inspect(): LimitBreach | undefined {
    const { counters } = this.probes;
    if (counters && counters.oomKills() > 0) return { resource: 'memory', limit: this.limits.memoryBytes };
    if (counters && counters.refusedForks() > 0) {
      return { resource: 'processes', limit: this.limits.processes };
    }
    if (this.scratchFd !== undefined && this.scratchFull(this.scratchFd)) {
      return { resource: 'scratch', limit: this.limits.scratchBytes };
    }
    return undefined;
  }

  private scratchFull(fd: number): boolean {
    try {
      // A write that meets the limit fills the last free block before it fails with ENOSPC.
      return statfsSync(`/proc/self/fd/${fd}`).bavail === 0;
    } catch {
      return false;
    }
  }

  /** Stops polling (the strategy is gone: nothing is left to stop); `check` still works. */
  unwatch(): void {
    clearInterval(this.timer);
  }

  /** Records a breach the executor learnt otherwise (Docker's OOMKilled). */
  record(breach: LimitBreach): void {
    this.found ??= breach;
  }

  close(): void {
    this.unwatch();
    if (this.scratchFd !== undefined) {
      closeSync(this.scratchFd);
      this.scratchFd = undefined;
    }
  }
}
