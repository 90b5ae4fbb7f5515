import { mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StrategyLimits } from './strategy-limits.ts';

/**
 * Control groups for strategies of the `local` executor: one per run, holding every process of its
 * sandbox, with the memory, process and CPU limits written into it, and the kernel's counters of what
 * it refused (an OOM kill, a refused fork) read back to name the limit a strategy ran into.
 *
 * cgroup v1 (a hierarchy per controller, as on hosts without the unified mount) and v2 (one unified
 * hierarchy) are both handled. A run's cgroups sit below the worker's own (so a limit on the worker's
 * group still bounds its strategies): `<worker's group>/hindsight/<run>` in the memory, pids and cpu
 * hierarchies (v1); on v2, where a group with processes cannot delegate controllers to children, a
 * worker in the root group uses `/hindsight/<run>` and any other worker first moves itself into a leaf
 * `<its group>/worker` (what a delegated service does). Creating groups needs write access to the
 * hierarchy (root, or a delegated subtree); without it the executor falls back to rlimits.
 */
export interface CgroupCounters {
  /** Processes the kernel's OOM killer ended in the group. */
  oomKills(): number;
  /** Forks and clones `pids.max` refused. */
  refusedForks(): number;
}

type Controller = 'memory' | 'pids' | 'cpu';
const CONTROLLERS: readonly Controller[] = ['memory', 'pids', 'cpu'];
const CPU_PERIOD_US = 100_000;

/** Where the groups of this process's strategies are made, or why they cannot be. */
type Layout =
  | { version: 1; parents: Record<Controller, string> }
  | { version: 2; parent: string }
  | { unavailable: string };

interface Mount {
  root: string;
  point: string;
  type: string;
  options: string[];
}

function mounts(): Mount[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [left = '', right = ''] = line.split(' - ');
      const fields = left.split(' ');
      const [type = '', , superOptions = ''] = right.split(' ');
      return {
        root: unescapeMountPath(fields[3] ?? ''),
        point: unescapeMountPath(fields[4] ?? ''),
        type,
        options: superOptions.split(','),
      };
    });
}

const unescapeMountPath = (path: string) =>
  path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));

/** `/proc/<pid>/cgroup` as `{ 'memory': '/a/b', '': '/a' (v2) }`. */
function groupsOf(pid: number | 'self'): Map<string, string> {
  const groups = new Map<string, string>();
  for (const line of readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    for (const controller of (match[1] as string).split(',')) groups.set(controller, match[2] as string);
  }
  return groups;
}

/** The folder of group `path` in a hierarchy mounted at `mount` (which may show only a subtree). */
function folderOf(mount: Mount, path: string): string {
  const relative =
    mount.root === '/'
      ? path
      : path.startsWith(`${mount.root}/`) || path === mount.root
        ? path.slice(mount.root.length)
        : '/';
  return join(mount.point, relative);
}

function v1Mount(all: Mount[], controller: Controller): Mount | undefined {
  return all.find((m) => m.type === 'cgroup' && m.options.includes(controller));
}

function detectLayout(): Layout {
  if (process.platform !== 'linux') return { unavailable: 'cgroups exist on Linux only' };
  let all: Mount[];
  let own: Map<string, string>;
  try {
    all = mounts();
    own = groupsOf('self');
  } catch (error) {
    return { unavailable: `cannot read this process's cgroups (${(error as Error).message})` };
  }
  const v1 = CONTROLLERS.map((controller) => [controller, v1Mount(all, controller)] as const);
  if (v1.every(([, mount]) => mount)) {
    const parents = {} as Record<Controller, string>;
    for (const [controller, mount] of v1) {
      parents[controller] = join(folderOf(mount as Mount, own.get(controller) ?? '/'), 'hindsight');
    }
    return { version: 1, parents };
  }
  const unified = all.find((m) => m.type === 'cgroup2');
  if (!unified) {
    const missing = v1.filter(([, mount]) => !mount).map(([controller]) => controller);
    return { unavailable: `no cgroup2 mount and no v1 hierarchy for ${missing.join(', ')}` };
  }
  const base = folderOf(unified, own.get('') ?? '/');
  let available: string[];
  try {
    available = readFileSync(join(base, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
  } catch (error) {
    return { unavailable: `cannot read ${base}/cgroup.controllers (${(error as Error).message})` };
  }
  const missing = CONTROLLERS.filter((c) => !available.includes(c));
  if (missing.length > 0) {
    return { unavailable: `the cgroup2 group ${base} does not offer ${missing.join(', ')}` };
  }
  return { version: 2, parent: base };
}

let layout: Layout | undefined;
let v2Ready: string | undefined;

/** Which cgroup version strategies' groups use here, or why there are none (for logs and docs). */
export function cgroupSupport(): { version: 1 | 2 } | { unavailable: string } {
  layout ??= detectLayout();
  return 'unavailable' in layout ? layout : { version: layout.version };
}

/**
 * The parent of the strategies' v2 groups, made ready once: controllers enabled down to it, the
 * worker moved to a leaf first when it sits in a non-root group.
 */
function v2Parent(base: string): string {
  if (v2Ready) return v2Ready;
  // The root group alone has no cgroup.type; it may hold processes and still delegate controllers.
  if (existsIn(base, 'cgroup.type')) {
    const leaf = join(base, 'worker');
    mkdirSync(leaf, { recursive: true });
    writeFileSync(join(leaf, 'cgroup.procs'), String(process.pid));
  }
  writeFileSync(join(base, 'cgroup.subtree_control'), CONTROLLERS.map((c) => `+${c}`).join(' '));
  const parent = join(base, 'hindsight');
  mkdirSync(parent, { recursive: true });
  writeFileSync(join(parent, 'cgroup.subtree_control'), CONTROLLERS.map((c) => `+${c}`).join(' '));
  v2Ready = parent;
  return parent;
}

const existsIn = (dir: string, name: string) => {
  try {
    readFileSync(join(dir, name));
    return true;
  } catch {
    return false;
  }
};

/** `key value` lines (memory.events, pids.events, memory.oom_control) as a number for `key`, 0 if absent. */
function counter(file: string, key: string): number {
  try {
    const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(readFileSync(file, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

export class CgroupUnavailableError extends Error {
  override name = 'CgroupUnavailableError';
}

/** One run's groups: limits written, processes added, counters read, removed at the end. */
export class StrategyCgroup implements CgroupCounters {
  private constructor(
    private readonly version: 1 | 2,
    /** The run's folder in each hierarchy (one folder on v2). */
    private readonly folders: Record<Controller, string>,
  ) {}

  /** Makes the groups of run `name` with `limits`; throws CgroupUnavailableError saying why it cannot. */
  static create(name: string, limits: StrategyLimits): StrategyCgroup {
    const support = cgroupSupport();
    if ('unavailable' in support) throw new CgroupUnavailableError(support.unavailable);
    const current = layout as Exclude<Layout, { unavailable: string }>;
    let folders: Record<Controller, string>;
    try {
      if (current.version === 1) {
        folders = {
          memory: join(current.parents.memory, name),
          pids: join(current.parents.pids, name),
          cpu: join(current.parents.cpu, name),
        };
      } else {
        const folder = join(v2Parent(current.parent), name);
        folders = { memory: folder, pids: folder, cpu: folder };
      }
      for (const folder of new Set(Object.values(folders))) mkdirSync(folder, { recursive: true });
    } catch (error) {
      throw new CgroupUnavailableError(`cannot create a cgroup (${(error as Error).message})`);
    }
    const group = new StrategyCgroup(current.version, folders);
    try {
      group.writeLimits(limits);
    } catch (error) {
      void group.remove();
      throw new CgroupUnavailableError(`cannot set the cgroup's limits (${(error as Error).message})`);
    }
    return group;
  }

  private write(controller: Controller, file: string, value: string): void {
    writeFileSync(join(this.folders[controller], file), value);
  }

  private writeLimits(limits: StrategyLimits): void {
    const memory = String(limits.memoryBytes);
    const quota = String(Math.max(1000, Math.round(limits.cpus * CPU_PERIOD_US)));
    if (this.version === 1) {
      this.write('memory', 'memory.limit_in_bytes', memory);
      // With swap accounting, memory + swap is bounded too (no extra swap), as Docker's MemorySwap.
      if (existsIn(this.folders.memory, 'memory.memsw.limit_in_bytes'))
        this.write('memory', 'memory.memsw.limit_in_bytes', memory);
      this.write('pids', 'pids.max', String(limits.processes));
      this.write('cpu', 'cpu.cfs_period_us', String(CPU_PERIOD_US));
      this.write('cpu', 'cpu.cfs_quota_us', quota);
    } else {
      this.write('memory', 'memory.max', memory);
      if (existsIn(this.folders.memory, 'memory.swap.max')) this.write('memory', 'memory.swap.max', '0');
      this.write('pids', 'pids.max', String(limits.processes));
      this.write('cpu', 'cpu.max', `${quota} ${CPU_PERIOD_US}`);
    }
  }

  /** Moves process `pid` (and, on v2, all its threads) into the run's groups. */
  add(pid: number): void {
    for (const folder of new Set(Object.values(this.folders))) {
      writeFileSync(join(folder, 'cgroup.procs'), String(pid));
    }
  }

  oomKills(): number {
    return this.version === 1
      ? counter(join(this.folders.memory, 'memory.oom_control'), 'oom_kill')
      : counter(join(this.folders.memory, 'memory.events'), 'oom_kill');
  }

  refusedForks(): number {
    return counter(join(this.folders.pids, 'pids.events'), 'max');
  }

  /** Processes still in the run's groups. */
  processes(): number[] {
    try {
      return readFileSync(join(this.folders.pids, 'cgroup.procs'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(Number);
    } catch {
      return [];
    }
  }

  /**
   * Removes the groups. Whatever still runs in them (nothing, once the sandbox is gone) is killed
   * first: a group with processes cannot be removed. Killed processes leave it only once they are
   * reaped, which a loaded host may take a while to do: after a second, the removal goes on in the
   * background for a minute (and a later worker's sweep removes what is left even then). Answers
   * whether the groups were removed within that second: then no process of the run is left anywhere.
   */
  async remove(): Promise<boolean> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      if (this.tryRemove(true)) return true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    let attempts = 0;
    const timer = setInterval(() => {
      attempts += 1;
      // Nothing is signalled any more: a PID seen now may be an exited process's, reused elsewhere.
      if (this.tryRemove(false) || attempts >= 60) clearInterval(timer);
    }, 1000);
    timer.unref();
    return false;
  }

  /** One attempt: kills what is left (`kill`), removes the folders; true once they are all gone. */
  private tryRemove(kill: boolean): boolean {
    for (const pid of kill ? this.processes() : []) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    let busy = false;
    for (const folder of new Set(Object.values(this.folders))) {
      try {
        rmdirSync(folder);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') busy = true;
      }
    }
    return !busy;
  }
}

/** Groups older than this and empty are a dead worker's leftovers. */
const STALE_MS = 10 * 60 * 1000;

/**
 * Removes the empty run groups a worker that died left behind (a live run's group is never empty for
 * long, and one with processes cannot be removed). Best effort: nothing here can fail a start.
 */
export function sweepStaleCgroups(now = Date.now()): void {
  const current = cgroupSupport();
  if (!('version' in current) || !layout || 'unavailable' in layout) return;
  const parents = layout.version === 1 ? Object.values(layout.parents) : [join(layout.parent, 'hindsight')];
  for (const parent of new Set(parents)) {
    let names: string[];
    try {
      names = readdirSync(parent, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch {
      continue;
    }
    for (const name of names) {
      try {
        const folder = join(parent, name);
        if (now - statSync(folder).mtimeMs > STALE_MS) rmdirSync(folder);
      } catch {
        // in use, or gone already
      }
    }
  }
}

/**
 * The counters of the groups process `pid` is in (a container's, for the `docker` executor), or
 * undefined when they cannot be read from here (another host's daemon, no permission).
 */
export function cgroupCountersOf(pid: number): CgroupCounters | undefined {
  try {
    const all = mounts();
    const groups = groupsOf(pid);
    const v1Memory = v1Mount(all, 'memory');
    const v1Pids = v1Mount(all, 'pids');
    if (v1Memory && v1Pids) {
      const memory = folderOf(v1Memory, groups.get('memory') ?? '/');
      const pids = folderOf(v1Pids, groups.get('pids') ?? '/');
      return {
        oomKills: () => counter(join(memory, 'memory.oom_control'), 'oom_kill'),
        refusedForks: () => counter(join(pids, 'pids.events'), 'max'),
      };
    }
    const unified = all.find((m) => m.type === 'cgroup2');
    if (!unified) return undefined;
    const folder = folderOf(unified, groups.get('') ?? '/');
    return {
      oomKills: () => counter(join(folder, 'memory.events'), 'oom_kill'),
      refusedForks: () => counter(join(folder, 'pids.events'), 'max'),
    };
  } catch {
    return undefined;
  }
}
