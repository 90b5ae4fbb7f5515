/** Decision 30: the market list is fixed; a recognised market may have no instruments. */
export const MARKETS = [
  { id: 'CRYPTO', name: 'Cryptocurrency' },
  { id: 'FOREX', name: 'Foreign exchange' },
  { id: 'FUTURES', name: 'Futures' },
  { id: 'STOCKS', name: 'Stocks' },
] as const;

export type MarketId = (typeof MARKETS)[number]['id'];
export const MARKET_IDS: readonly MarketId[] = MARKETS.map((m) => m.id);

export const INSTRUMENT_STATUSES = ['available', 'coming_soon'] as const;
export type InstrumentStatus = (typeof INSTRUMENT_STATUSES)[number];

/** Symbol prefix per market (spec: `C` crypto, `F` forex, `S` stocks). */
export const SYMBOL_PREFIX: Record<MarketId, string> = { CRYPTO: 'C', FOREX: 'F', FUTURES: 'X', STOCKS: 'S' };
