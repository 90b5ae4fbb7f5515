import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';

/**
 * `RUST_LOG` (trading-gateway.md: Configuration) mapped to pino: a comma-separated list of
 * directives, each a level (`info`) or `target=level` (`gateway::ws=debug`). Levels are `off`,
 * `error`, `warn`, `info`, `debug`, `trace` (case-insensitive). A target matches itself and every
 * target below it (`gateway` covers `gateway::ws`); the longest matching target wins, then the bare
 * level, then `info`. The gateway's targets are `gateway`, `gateway::http`, `gateway::ws`,
 * `gateway::provider` and `gateway::run`.
 */
export const LOG_LEVELS = ['off', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_TARGETS = [
  'gateway',
  'gateway::http',
  'gateway::ws',
  'gateway::provider',
  'gateway::run',
] as const;
export type LogTarget = (typeof LOG_TARGETS)[number];

export interface LogFilter {
  defaultLevel: LogLevel;
  /** target -> level, as written. */
  targets: ReadonlyMap<string, LogLevel>;
}

const pinoLevel = (level: LogLevel): pino.LevelWithSilent => (level === 'off' ? 'silent' : level);

const asLevel = (text: string): LogLevel | undefined => {
  const lower = text.trim().toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(lower) ? (lower as LogLevel) : undefined;
};

/** Parses a RUST_LOG value; returns a message naming the bad directive when it is not valid. */
export function parseLogFilter(text: string | undefined): LogFilter | string {
  const targets = new Map<string, LogLevel>();
  let defaultLevel: LogLevel = 'info';
  if (text === undefined || text.trim() === '') return { defaultLevel, targets };
  for (const raw of text.split(',')) {
    const directive = raw.trim();
    if (directive === '') continue;
    const eq = directive.indexOf('=');
    if (eq < 0) {
      const level = asLevel(directive);
      // A bare target (`gateway::ws`) means every level for it, as in env_logger.
      if (level) defaultLevel = level;
      else if (/^[A-Za-z_][A-Za-z0-9_:]*$/.test(directive)) targets.set(directive, 'trace');
      else return `"${directive}" is neither a level (${LOG_LEVELS.join(', ')}) nor a target`;
      continue;
    }
    const target = directive.slice(0, eq).trim();
    const level = asLevel(directive.slice(eq + 1));
    if (!/^[A-Za-z_][A-Za-z0-9_:]*$/.test(target) || !level) {
      return `"${directive}" must be target=level with a level among ${LOG_LEVELS.join(', ')}`;
    }
    targets.set(target, level);
  }
  return { defaultLevel, targets };
}

/** The level in force for `target`: the longest matching target directive, else the default. */
export function levelFor(filter: LogFilter, target: string): LogLevel {
  let best: string | undefined;
  for (const candidate of filter.targets.keys()) {
    const matches = target === candidate || target.startsWith(`${candidate}::`);
    if (matches && (best === undefined || candidate.length > best.length)) best = candidate;
  }
  return best === undefined ? filter.defaultLevel : (filter.targets.get(best) as LogLevel);
}

/**
 * Where log lines go when the caller names no destination: on a terminal, one line a person reads
 * (time, level, message, fields; pino-pretty, loaded only then); anywhere else (a file, a pipe, a log
 * collector) undefined, for pino's own JSON lines on stdout.
 */
export function defaultLogStream(): pino.DestinationStream | undefined {
  if (!process.stdout.isTTY) return undefined;
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  // Synchronous, so that log lines and the console's banner keep their order.
  return pretty({
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
  });
}

/** One pino logger per target, each at its filtered level, writing to `destination` or defaultLogStream. */
export class GatewayLoggers {
  private readonly root: Logger;
  private readonly children = new Map<string, Logger>();

  constructor(
    private readonly filter: LogFilter,
    destination?: pino.DestinationStream,
  ) {
    this.root = pino({ level: 'trace', base: { service: 'gateway' } }, destination ?? defaultLogStream());
  }

  for(target: LogTarget): Logger {
    let child = this.children.get(target);
    if (!child) {
      child = this.root.child({ target }, { level: pinoLevel(levelFor(this.filter, target)) });
      this.children.set(target, child);
    }
    return child;
  }
}
