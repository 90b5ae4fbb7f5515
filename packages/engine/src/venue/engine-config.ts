import { Dec, type MarketId, type SessionCalendar, type Timeframe } from '@hindsight/core';
import type { CommissionSettings } from '../models/commission.ts';
import type { FundingSettings } from '../models/funding.ts';
import type { SlippageSettings } from '../models/slippage.ts';

/** What a run is configured with (docs/engine.md "Inputs"), and the error for one it cannot run. */

/** A configuration the engine cannot run (the message says what to change). */
export class EngineConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineConfigError';
  }
}

export interface EngineInstrument {
  symbol: string;
  market: MarketId;
  underlying: string;
  denomination: string;
  calendar: SessionCalendar;
}

export type UpdateKind = 'order_update' | 'position_update' | 'account_update' | 'trade_update';

export interface EngineSubscription {
  instrument: string;
  timeframes: readonly Timeframe[];
  updates: readonly UpdateKind[];
}

export interface EngineConfig {
  instruments: readonly EngineInstrument[];
  subscriptions: readonly EngineSubscription[];
  startTime: number;
  endTime: number;
  positionMode: 'netting' | 'hedging';
  initialCapital: string;
  commission?: CommissionSettings;
  slippage?: SlippageSettings;
  funding?: FundingSettings;
  /** Stamped in the result metadata; default ENGINE_VERSION. */
  engineVersion?: string;
  /**
   * Volume participation (docs/fills.md): the largest share of a bar's volume that fills may take, a
   * decimal in (0, 1]. Unset: fills are never limited by volume (orders fill whole).
   */
  maxVolumeParticipation?: string;
  /** Check the accounting identity after every group of bars (tests and debug runs). */
  assertIdentity?: boolean;
}

/** The configured volume participation as a decimal; undefined when unset. */
export function participationOf(value: string | undefined): Dec | undefined {
  if (value === undefined) return undefined;
  const share = new Dec(value);
  if (!share.gt(0) || share.gt(1))
    throw new EngineConfigError(`maxVolumeParticipation must be in (0, 1], not ${value}`);
  return share;
}
