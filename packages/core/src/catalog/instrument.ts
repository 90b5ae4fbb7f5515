import type { MarketId } from './markets.ts';

/**
 * Decision 3: how bid and ask are derived for trade-only bars. `zero`: bid = ask = traded price;
 * `half_spread_bps`: bid/ask = price -/+ price x value / 10000.
 */
export type SpreadModel = { kind: 'zero' } | { kind: 'half_spread_bps'; value: string };

/** Static description of an instrument; availability is derived from stored data, never from here. */
export interface InstrumentDefinition {
  symbol: string;
  name: string;
  market: MarketId;
  dataSymbol: string;
  underlying: string;
  denomination: string;
  /** FX only (spec): tick size as a decimal string and its number of decimals. */
  tickSize?: string;
  pricePrecision?: number;
  spreadModel: SpreadModel;
}

/** Availability of stored data for one instrument, as UTC days `YYYY-MM-DD`. */
export interface DataCoverage {
  symbol: string;
  firstDay: string;
  lastDay: string;
}
