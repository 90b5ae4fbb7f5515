import { expandEvents, mergeEnv } from '@hindsight/core';
import type { ConfigurationSettings } from '../repositories/configurations.ts';

/**
 * The environment a strategy starts with, over its image's own `Env` (which the executor lays first):
 * the scenario's env (configuration, then run layer, merged and checked at creation), then the
 * platform's values of decision 19c, which no user layer may set (`PLATFORM_*` and the three URL keys
 * are rejected by the env rules, so nothing is silently overridden).
 */
export function strategyEnvironment(
  scenarioId: string,
  settings: ConfigurationSettings,
  gateway: { host: string; port: number; apiKey: string },
): Record<string, string> {
  const host = gateway.host.includes(':') ? `[${gateway.host}]` : gateway.host;
  const base = `http://${host}:${gateway.port}`;
  return mergeEnv(settings.env, {
    TRADING_GATEWAY_URL: base,
    PROXY_REST_URL: `${base}/v1`,
    PROXY_WS_URL: `ws://${host}:${gateway.port}/v1/ws`,
    PLATFORM_SCENARIO_ID: scenarioId,
    PLATFORM_SUBSCRIPTIONS: JSON.stringify(
      settings.subscriptions.map((s) => ({
        instrument: s.instrument,
        events: expandEvents(s.events).events,
      })),
    ),
    PLATFORM_START_TIME: settings.startTime,
    PLATFORM_END_TIME: settings.endTime,
    PLATFORM_INITIAL_CAPITAL: String(settings.initialCapital),
    PLATFORM_GATEWAY_API_KEY: gateway.apiKey,
  });
}
