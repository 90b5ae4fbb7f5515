/**
 * What the launch form and the runs filter choose from: the account's strategies, a strategy's ready
 * versions, the saved configurations and the available instruments. Each list is read whole (every
 * page), since they feed <select>s.
 */
import { api, errorMessage } from '../api/client.ts';
import type { components } from '../api/openapi.gen.ts';
import { allPages, type Loaded } from './cursor-list.ts';

export type Strategy = components['schemas']['Strategy'];
export type Version = components['schemas']['Version'];
export type Configuration = components['schemas']['Configuration'];
export type Instrument = components['schemas']['Instrument'];

export const loadStrategies = () =>
  allPages<Strategy>(
    (cursor) => api.GET('/v1/strategies', { params: { query: { limit: 100, ...(cursor && { cursor }) } } }),
    'your strategies',
  );

export const loadReadyVersions = (strategyId: string) =>
  allPages<Version>(
    (cursor) =>
      api.GET('/v1/strategies/{strategy_id}/versions', {
        params: {
          path: { strategy_id: strategyId },
          query: { limit: 100, imageStatus: 'ready', ...(cursor && { cursor }) },
        },
      }),
    'the versions',
  );

export const loadConfigurations = () =>
  allPages<Configuration>(
    (cursor) =>
      api.GET('/v1/configurations', { params: { query: { limit: 100, ...(cursor && { cursor }) } } }),
    'your configurations',
  );

export async function loadInstruments(): Promise<Loaded<Instrument>> {
  const { data, error } = await api.GET('/v1/instruments', { params: { query: { status: 'available' } } });
  if (!data) return { ok: false, message: errorMessage(error, 'Could not load the catalog.') };
  return { ok: true, items: data.data };
}
