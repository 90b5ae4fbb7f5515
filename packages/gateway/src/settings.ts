import { resolve } from 'node:path';
import { type LogFilter, parseLogFilter } from './log-filter.ts';

/**
 * Gateway settings come from the environment only (trading-gateway.md: Configuration). Every value is
 * checked before anything starts, so a bad one stops the gateway with one line naming the variable.
 * Variables beyond the spec's table configure what the spec leaves open (docs/gateway.md).
 */
export const PROVIDERS = ['simulation'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export const MODES = ['paper', 'live', 'simulation'] as const;
export type GatewayMode = (typeof MODES)[number];

/** The modes each provider runs in; the first is its default. */
export const PROVIDER_MODES: Record<ProviderName, readonly GatewayMode[]> = {
  simulation: ['simulation', 'paper'],
};

export const DEFAULT_STALL_TIMEOUT_SECONDS = 300;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60_000;

export interface GatewaySettings {
  provider: ProviderName;
  mode: GatewayMode;
  host: string;
  port: number;
  /** Unset: unauthenticated (a warning is logged at startup). */
  apiKey: string | undefined;
  enableSwagger: boolean;
  log: LogFilter;
  /** Simulation: the inline scenario configuration file. */
  scenarioFile: string | undefined;
  /** Simulation: where `market/` (the bar store) lives. */
  dataDir: string;
  /** Simulation: where the result files go; undefined = ./results/<timestamp> at the end of the run. */
  resultsDir: string | undefined;
  /** Simulation: a strategy that leaves events unacknowledged this long fails the run; 0 = wait forever. */
  stallTimeoutMs: number;
  /** Ingress limit per fixed one-minute window. */
  rateLimitPerMinute: number;
  /** Simulation in paper mode: simulated minutes per wall-clock minute (1 = real time). */
  replaySpeed: number;
  gitSha: string;
}

export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'SettingsError';
  }
}

const present = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === '' ? undefined : value.trim();

function wholeNumber(variable: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || value < min || value > max) {
    throw new SettingsError(variable, `"${text}" must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

/** A true/false variable (also 1/0, any case). */
function flag(env: NodeJS.ProcessEnv, variable: string, byDefault: boolean): boolean {
  const text = present(env[variable])?.toLowerCase();
  if (text === undefined) return byDefault;
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new SettingsError(variable, `"${text}" must be true or false.`);
}

export function readGatewaySettings(env: NodeJS.ProcessEnv): GatewaySettings {
  const providerText = present(env.GATEWAY_PROVIDER);
  if (providerText === undefined) {
    throw new SettingsError(
      'GATEWAY_PROVIDER',
      `is not set; the gateway serves one provider, choose one of: ${PROVIDERS.join(', ')}.`,
    );
  }
  if (!(PROVIDERS as readonly string[]).includes(providerText)) {
    throw new SettingsError(
      'GATEWAY_PROVIDER',
      `"${providerText}" is not a provider; valid providers: ${PROVIDERS.join(', ')}.`,
    );
  }
  const provider = providerText as ProviderName;
  const modes = PROVIDER_MODES[provider];
  const modeText = present(env.GATEWAY_MODE)?.toLowerCase() ?? (modes[0] as GatewayMode);
  if (!(MODES as readonly string[]).includes(modeText)) {
    throw new SettingsError('GATEWAY_MODE', `"${modeText}" is not a mode; use ${MODES.join(', ')}.`);
  }
  if (!modes.includes(modeText as GatewayMode)) {
    throw new SettingsError(
      'GATEWAY_MODE',
      `the ${provider} provider runs in ${modes.join(' or ')} mode only, not ${modeText}.`,
    );
  }

  const host = present(env.GATEWAY_HOST) ?? '127.0.0.1';
  if (/\s/.test(host)) throw new SettingsError('GATEWAY_HOST', `"${host}" is not a host name or address.`);
  const port = wholeNumber('GATEWAY_PORT', present(env.GATEWAY_PORT) ?? '8080', 0, 65535);

  const enableSwagger = flag(env, 'ENABLE_SWAGGER', false);

  const log = parseLogFilter(env.RUST_LOG);
  if (typeof log === 'string') throw new SettingsError('RUST_LOG', log);

  const scenarioFile = present(env.HINDSIGHT_SCENARIO);
  if (provider === 'simulation' && scenarioFile === undefined) {
    throw new SettingsError(
      'HINDSIGHT_SCENARIO',
      'is not set; the simulation provider replays the scenario configuration in this JSON file.',
    );
  }

  const stallText = present(env.GATEWAY_STALL_TIMEOUT_SECONDS);
  const stallSeconds =
    stallText === undefined
      ? DEFAULT_STALL_TIMEOUT_SECONDS
      : wholeNumber('GATEWAY_STALL_TIMEOUT_SECONDS', stallText, 0, 86_400);
  const rateText = present(env.GATEWAY_RATE_LIMIT_PER_MINUTE);
  const rateLimitPerMinute =
    rateText === undefined
      ? DEFAULT_RATE_LIMIT_PER_MINUTE
      : wholeNumber('GATEWAY_RATE_LIMIT_PER_MINUTE', rateText, 1, 100_000_000);

  const speedText = present(env.HINDSIGHT_REPLAY_SPEED) ?? '1';
  const replaySpeed = Number(speedText);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(speedText) || !(replaySpeed > 0) || replaySpeed > 1_000_000) {
    throw new SettingsError(
      'HINDSIGHT_REPLAY_SPEED',
      `"${speedText}" must be a number above 0 (simulated minutes per wall-clock minute, 1 = real time).`,
    );
  }

  const resultsDir = present(env.HINDSIGHT_RESULTS_DIR);
  return {
    provider,
    mode: modeText as GatewayMode,
    host,
    port,
    apiKey: present(env.GATEWAY_API_KEY),
    enableSwagger,
    log,
    scenarioFile: scenarioFile === undefined ? undefined : resolve(scenarioFile),
    dataDir: resolve(present(env.HINDSIGHT_DATA_DIR) ?? '.hindsight'),
    resultsDir: resultsDir === undefined ? undefined : resolve(resultsDir),
    stallTimeoutMs: stallSeconds * 1000,
    rateLimitPerMinute,
    replaySpeed,
    gitSha: present(env.HINDSIGHT_GIT_SHA) ?? 'unknown',
  };
}
