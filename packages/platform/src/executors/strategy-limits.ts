/**
 * What one strategy may use, under every executor: memory, processes, CPU and writable scratch space
 * (`docs/security.md`). The executors enforce them (cgroups, rlimits, a sized tmpfs, Docker's options)
 * and report the limit a strategy ran into, so that its run fails naming it.
 */
export interface StrategyLimits {
  /** Memory of every process of the strategy together, scratch files included (tmpfs is memory). */
  memoryBytes: number;
  /** Processes and threads at once. */
  processes: number;
  /** CPU time per wall-clock second (fractions allowed). */
  cpus: number;
  /** Size of the strategy's only writable place, `/tmp`. */
  scratchBytes: number;
}

const GiB = 1024 ** 3;

export const DEFAULT_STRATEGY_LIMITS: StrategyLimits = {
  memoryBytes: 2 * GiB,
  processes: 256,
  cpus: 1,
  scratchBytes: GiB,
};

/** The limits whose breach ends a run (CPU is throttled, never breached). */
export type LimitedResource = 'memory' | 'processes' | 'scratch';

/** A limit the strategy ran into: it was stopped, and its run fails naming it. */
export interface LimitBreach {
  resource: LimitedResource;
  /** The limit in its unit: bytes for memory and scratch, a count for processes. */
  limit: number;
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: GiB,
  gb: GiB,
  gib: GiB,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

/**
 * A size as operators write it (`2GiB`, `512m`, `1.5G`, `1073741824`), in bytes; binary units, as
 * Docker's `--memory` reads them. Undefined when the text is not a size.
 */
export function parseByteSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = UNITS[(match[2] as string).toLowerCase()];
  if (unit === undefined) return undefined;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** `2 GiB`, `512 MiB`, `1.5 GiB`, `1000 bytes`: the largest binary unit that keeps the figure >= 1. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['TiB', 1024 ** 4],
    ['GiB', GiB],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(2))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** "its memory limit of 2 GiB": the limit named as a run's failure message names it. */
export function describeBreach(breach: LimitBreach): string {
  switch (breach.resource) {
    case 'memory':
      return `its memory limit of ${formatBytes(breach.limit)}`;
    case 'processes':
      return `its limit of ${breach.limit} processes and threads`;
    case 'scratch':
      return `its scratch space limit of ${formatBytes(breach.limit)} (the writable /tmp)`;
  }
}
