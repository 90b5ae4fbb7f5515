import { resolve } from 'node:path';
import { EXECUTOR_KINDS, type ExecutorKind } from './executors/create-executor.ts';
import { DEFAULT_STRATEGY_LIMITS, parseByteSize, type StrategyLimits } from './executors/strategy-limits.ts';

/**
 * Platform settings come from the environment; `hindsight start` flags override it. Every value is
 * checked up front so a bad one stops the start with one line naming the variable.
 */
export interface PlatformSettings {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  secret: string | undefined;
  admin: { email: string; password: string } | undefined;
  /** Whether `GET /metrics` is served (docs/operating.md, "Health and metrics"). */
  metrics: boolean;
  /** Where `hindsight worker` serves /livez, /readyz and /metrics (on `host`); none when unset. */
  workerPort: number | undefined;
  runner: RunnerSettings;
}

/** How scenarios run (docs/scenarios.md). */
export interface RunnerSettings {
  /** Scenarios the in-process worker of `hindsight start` runs at once (0: none; run `hindsight worker`). */
  workers: number;
  executor: ExecutorKind;
  /** Scenarios an account may have QUEUED, PENDING or RUNNING at once. */
  scenarioQuota: number;
  /** A claim lapses when its worker has not renewed it for this long (the worker died). */
  leaseSeconds: number;
  /**
   * Attempts a scenario gets when its runs end for platform faults (a lost worker, a platform error);
   * the last one's failure is the scenario's (decision 40). Strategy failures are never retried.
   */
  maxAttempts: number;
  /** How long a stopping worker lets its runs finish before it hands the rest back to the queue. */
  stopGraceSeconds: number;
  connectTimeoutSeconds: number;
  stallTimeoutSeconds: number;
  /** Where a standalone worker reaches the platform's registry; `hindsight start` uses its own address. */
  registryUrl: string | undefined;
  /** What one strategy may use, under either executor (docs/security.md). */
  strategyLimits: StrategyLimits;
  /** The local executor's sandbox: `bubblewrap`, or `none` to run trusted strategies unsandboxed. */
  sandbox: SandboxSetting;
}

export const SANDBOX_SETTINGS = ['bubblewrap', 'none'] as const;
export type SandboxSetting = (typeof SANDBOX_SETTINGS)[number];

export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'SettingsError';
  }
}

export const settingVariables = {
  host: 'HINDSIGHT_HOST',
  port: 'HINDSIGHT_PORT',
  dataDir: 'HINDSIGHT_DATA_DIR',
  databaseUrl: 'DATABASE_URL',
  secret: 'HINDSIGHT_SECRET',
  adminEmail: 'HINDSIGHT_ADMIN_EMAIL',
  adminPassword: 'HINDSIGHT_ADMIN_PASSWORD',
  workers: 'HINDSIGHT_WORKERS',
  executor: 'HINDSIGHT_EXECUTOR',
  scenarioQuota: 'HINDSIGHT_SCENARIO_QUOTA',
  leaseSeconds: 'HINDSIGHT_WORKER_LEASE_SECONDS',
  maxAttempts: 'HINDSIGHT_MAX_ATTEMPTS',
  stopGraceSeconds: 'HINDSIGHT_WORKER_STOP_GRACE_SECONDS',
  connectTimeoutSeconds: 'HINDSIGHT_CONNECT_TIMEOUT_SECONDS',
  stallTimeoutSeconds: 'HINDSIGHT_STALL_TIMEOUT_SECONDS',
  registryUrl: 'HINDSIGHT_REGISTRY_URL',
  strategyMemory: 'HINDSIGHT_STRATEGY_MEMORY',
  strategyProcesses: 'HINDSIGHT_STRATEGY_PROCESSES',
  strategyCpus: 'HINDSIGHT_STRATEGY_CPUS',
  strategyScratch: 'HINDSIGHT_STRATEGY_SCRATCH',
  sandbox: 'HINDSIGHT_SANDBOX',
  metrics: 'HINDSIGHT_METRICS',
  workerPort: 'HINDSIGHT_WORKER_PORT',
} as const;

export type SettingInput = Partial<Record<keyof typeof settingVariables, string>>;

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 8;
const MIN_SECRET_LENGTH = 32;

const present = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '' ? undefined : value;

/** Reads settings from `env`, with `overrides` (command-line flags) taking precedence. */
export function readSettings(env: NodeJS.ProcessEnv, overrides: SettingInput = {}): PlatformSettings {
  const pick = (key: keyof typeof settingVariables) => present(overrides[key] ?? env[settingVariables[key]]);

  const host = pick('host') ?? '127.0.0.1';
  if (/\s/.test(host))
    throw new SettingsError(settingVariables.host, `"${host}" is not a host name or address.`);

  const portText = pick('port') ?? '8000';
  const port = Number(portText);
  if (!/^[0-9]+$/.test(portText) || port > 65535) {
    throw new SettingsError(settingVariables.port, `"${portText}" is not a port number (0-65535).`);
  }

  const workerPortText = pick('workerPort');
  if (workerPortText !== undefined && (!/^[0-9]+$/.test(workerPortText) || Number(workerPortText) > 65535)) {
    throw new SettingsError(
      settingVariables.workerPort,
      `"${workerPortText}" is not a port number (0-65535).`,
    );
  }

  const databaseUrl = pick('databaseUrl');
  if (databaseUrl !== undefined) {
    let protocol = '';
    try {
      protocol = new URL(databaseUrl).protocol;
    } catch {
      // reported below
    }
    if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
      throw new SettingsError(
        settingVariables.databaseUrl,
        'must be a postgres://user@host:port/database URL.',
      );
    }
  }

  const secret = pick('secret');
  if (secret !== undefined && secret.length < MIN_SECRET_LENGTH) {
    throw new SettingsError(settingVariables.secret, `must be at least ${MIN_SECRET_LENGTH} characters.`);
  }

  const adminEmail = pick('adminEmail');
  const adminPassword = pick('adminPassword');
  if ((adminEmail === undefined) !== (adminPassword === undefined)) {
    const missing = adminEmail === undefined ? settingVariables.adminEmail : settingVariables.adminPassword;
    throw new SettingsError(
      missing,
      `must be set together with ${missing === settingVariables.adminEmail ? settingVariables.adminPassword : settingVariables.adminEmail}.`,
    );
  }
  if (adminEmail !== undefined && !emailPattern.test(adminEmail)) {
    throw new SettingsError(settingVariables.adminEmail, `"${adminEmail}" is not an email address.`);
  }
  if (adminPassword !== undefined && adminPassword.length < MIN_PASSWORD_LENGTH) {
    throw new SettingsError(
      settingVariables.adminPassword,
      `must be at least ${MIN_PASSWORD_LENGTH} characters.`,
    );
  }

  const whole = (key: keyof typeof settingVariables, fallback: number, min: number, max: number) => {
    const text = pick(key) ?? String(fallback);
    const value = Number(text);
    if (!/^[0-9]+$/.test(text) || value < min || value > max) {
      throw new SettingsError(
        settingVariables[key],
        `"${text}" must be a whole number from ${min} to ${max}.`,
      );
    }
    return value;
  };
  /** One of `allowed` (default: its first); `refusal` says what to use instead. */
  const choice = <T extends string>(
    key: keyof typeof settingVariables,
    allowed: readonly T[],
    refusal: (text: string) => string,
  ): T => {
    const text = pick(key) ?? (allowed[0] as T);
    if (!(allowed as readonly string[]).includes(text))
      throw new SettingsError(settingVariables[key], refusal(text));
    return text as T;
  };
  const executor = choice(
    'executor',
    EXECUTOR_KINDS,
    (text) => `"${text}" is not an executor; use ${EXECUTOR_KINDS.join(' or ')}.`,
  );
  const registryUrl = pick('registryUrl');
  if (registryUrl !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(registryUrl)) {
    throw new SettingsError(
      settingVariables.registryUrl,
      'must be the platform base URL, e.g. http://10.0.0.5:8000.',
    );
  }
  const bytes = (key: 'strategyMemory' | 'strategyScratch', fallback: number) => {
    const text = pick(key);
    if (text === undefined) return fallback;
    const value = parseByteSize(text);
    if (value === undefined || value < 16 * 1024 * 1024) {
      throw new SettingsError(
        settingVariables[key],
        `"${text}" must be a size of at least 16MiB, such as 2GiB, 512MiB or a number of bytes.`,
      );
    }
    return value;
  };
  const cpusText = pick('strategyCpus') ?? String(DEFAULT_STRATEGY_LIMITS.cpus);
  const cpus = Number(cpusText);
  if (!/^\d+(\.\d+)?$/.test(cpusText) || cpus < 0.01 || cpus > 1024) {
    throw new SettingsError(
      settingVariables.strategyCpus,
      `"${cpusText}" must be a number of CPUs from 0.01 to 1024, such as 1 or 0.5.`,
    );
  }
  const sandbox = choice(
    'sandbox',
    SANDBOX_SETTINGS,
    (text) => `"${text}" is not a sandbox; use bubblewrap, or none to run trusted strategies unsandboxed.`,
  );
  const metrics = choice('metrics', ['on', 'off'], (text) => `"${text}" must be on or off.`);
  const runner: RunnerSettings = {
    workers: whole('workers', 2, 0, 256),
    executor,
    scenarioQuota: whole('scenarioQuota', 50, 1, 100_000),
    leaseSeconds: whole('leaseSeconds', 15, 1, 3600),
    maxAttempts: whole('maxAttempts', 3, 1, 100),
    stopGraceSeconds: whole('stopGraceSeconds', 30, 0, 86_400),
    connectTimeoutSeconds: whole('connectTimeoutSeconds', 60, 1, 3600),
    stallTimeoutSeconds: whole('stallTimeoutSeconds', 300, 0, 86_400),
    registryUrl: registryUrl?.replace(/\/$/, ''),
    strategyLimits: {
      memoryBytes: bytes('strategyMemory', DEFAULT_STRATEGY_LIMITS.memoryBytes),
      processes: whole('strategyProcesses', DEFAULT_STRATEGY_LIMITS.processes, 8, 1_000_000),
      cpus,
      scratchBytes: bytes('strategyScratch', DEFAULT_STRATEGY_LIMITS.scratchBytes),
    },
    sandbox,
  };

  return {
    host,
    port,
    runner,
    dataDir: resolve(pick('dataDir') ?? '.hindsight'),
    databaseUrl,
    secret,
    admin: adminEmail && adminPassword ? { email: adminEmail, password: adminPassword } : undefined,
    metrics: metrics === 'on',
    workerPort: workerPortText === undefined ? undefined : Number(workerPortText),
  };
}

export const isEmail = (value: string): boolean => emailPattern.test(value);
