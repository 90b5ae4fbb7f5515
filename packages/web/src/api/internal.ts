/**
 * The web app's internal JSON API (decision 39): the data its pages need beyond the spec's `/v1`
 * endpoints, under `/app-api/`. It is the platform's `routes/app-api/` and docs/web-internal-api.md;
 * it is not part of the documented API and may change with the app. Same authentication as `/v1`
 * (the session token as bearer), owner-scoped, `{data}` envelopes and the `/v1` error envelope.
 */
import { clearSession, readSession } from '../session.ts';
import type { ApiErrorBody } from './client.ts';

/** How far a run has got: simulated time reached against its window. */
export interface RunProgress {
  /** The simulated time the run has reached (ISO 8601), null before the replay starts. */
  simulatedAt: string | null;
  /** 0..100 with one decimal; 100 once COMPLETE; null while nothing has been replayed. */
  percent: number | null;
  windowStart: string;
  windowEnd: string;
}

export interface RunSummary {
  scenarioId: string;
  strategyId: string;
  strategyName: string;
  strategyVersionId: string;
  versionLabel: string | null;
  label: string | null;
  /** Set when the run was created by `POST .../scenarios/batch`: the sweep it belongs to. */
  batchId: string | null;
  state: 'QUEUED' | 'PENDING' | 'RUNNING' | 'COMPLETE' | 'FAILED' | 'CANCELLED';
  errorType: 'strategy' | 'platform' | null;
  errorMessage: string | null;
  instruments: string[];
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  progress: RunProgress;
}

export interface Timeseries {
  timestamps: number[];
  units: string[];
  nav: string[];
  margin_used: string[];
}

/** One trade lot, as in the trades result file (management-api.md, Result files). */
export interface TradeLot {
  id: string;
  state: 'Open' | 'Closed';
  instrument_symbol: string;
  open_price: string;
  base_open_price?: string;
  open_slippage_bps?: string;
  close_price?: string;
  base_close_price?: string;
  close_slippage_bps?: string;
  entry_commission?: string;
  exit_commission?: string;
  units: string;
  direction: 'Long' | 'Short';
  opened_at: number;
  opened_by_order_id: string;
  closed_at?: number;
  closed_by_order_id?: string;
  realized_pnl?: string;
  close_reason?: 'Normal' | 'Liquidation' | 'EndOfBacktest';
}

export interface Candle {
  /** Epoch ms UTC of the bar's open. */
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

export interface Candles {
  symbol: string;
  /** The timeframe served: the one asked for, or the smallest that fits `maxPoints`. */
  timeframe: string;
  candles: Candle[];
}

/** A span of UTC days, both ends included (YYYY-MM-DD). */
export interface DayRange {
  from: string;
  to: string;
}

export interface InstrumentCoverage {
  symbol: string;
  name: string;
  market: string;
  /** Timeframes a chart or a subscription can ask for. */
  timeframes: string[];
  /**
   * Days with data, as maximal runs of consecutive days; days the market is closed by its calendar
   * (Saturdays for forex, weekends for stocks and futures) do not break a run. Empty when the store
   * holds nothing.
   */
  ranges: DayRange[];
  /** Missing spans between the first and last day with data (what `ranges` leaves out). */
  gaps: DayRange[];
  firstDay: string | null;
  lastDay: string | null;
}

export interface SweepSummary {
  batchId: string;
  strategyId: string;
  strategyName: string;
  strategyVersionId: string;
  createdAt: string;
  runs: number;
  /** Runs per state, e.g. {COMPLETE: 3, RUNNING: 1}. */
  states: Record<string, number>;
  /** The env keys whose values differ between the sweep's runs (its grid), sorted. */
  gridKeys: string[];
}

export interface SweepRun {
  scenarioId: string;
  label: string | null;
  state: RunSummary['state'];
  /** The run's values of the sweep's grid keys. */
  params: Record<string, string>;
  /** The run's metrics once COMPLETE (the `/metrics` endpoint's object), else null. */
  metrics: Record<string, unknown> | null;
}

export interface SweepDetail extends SweepSummary {
  runs: number;
  items: SweepRun[];
}

export class InternalApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const headers = new Headers(init?.headers);
  const session = readSession();
  if (session) headers.set('Authorization', `Bearer ${session.token}`);
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers });
  } catch {
    throw new InternalApiError(0, 'NETWORK', 'Could not reach the platform.');
  }
  if (response.status === 401 && session) clearSession();
  const body = (await response.json().catch(() => undefined)) as { data: T } | ApiErrorBody | undefined;
  if (response.ok && body && 'data' in body) return body.data;
  const error = body && 'error' in body ? body.error : undefined;
  throw new InternalApiError(
    response.status,
    error?.code ?? 'INTERNAL_ERROR',
    error?.message ?? `The request failed (HTTP ${response.status}).`,
  );
}

const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

export const internal = {
  /** The account's runs, newest first, across strategies. */
  runs: (
    params: { strategyId?: string; state?: string; batchId?: string; limit?: number; cursor?: string } = {},
  ) => call<{ runs: RunSummary[]; nextCursor: string | null }>(`/app-api/runs${query(params)}`),
  run: (scenarioId: string) => call<RunSummary>(`/app-api/runs/${scenarioId}`),
  /** Decoded result files of a COMPLETE run (400 otherwise, as `/v1`). */
  timeseries: (scenarioId: string) => call<Timeseries>(`/app-api/runs/${scenarioId}/timeseries`),
  trades: (scenarioId: string) => call<{ trades: TradeLot[] }>(`/app-api/runs/${scenarioId}/trades`),
  metadata: (scenarioId: string) => call<Record<string, unknown>>(`/app-api/runs/${scenarioId}/metadata`),
  /** Bars of one instrument over [from, to) (epoch ms), at `timeframe` or the smallest one with at most `maxPoints` bars. */
  candles: (params: { symbol: string; from: number; to: number; timeframe?: string; maxPoints?: number }) =>
    call<Candles>(`/app-api/candles${query(params)}`),
  coverage: () => call<InstrumentCoverage[]>('/app-api/catalog/coverage'),
  sweeps: () => call<SweepSummary[]>('/app-api/sweeps'),
  sweep: (batchId: string) => call<SweepDetail>(`/app-api/sweeps/${batchId}`),
};
