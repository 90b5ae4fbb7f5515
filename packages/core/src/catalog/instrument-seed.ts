import type { InstrumentDefinition } from './instrument.ts';

/**
 * Static catalog seed. Availability (`available` / `coming_soon`, `dataStartDate`, `dataEndDate`) is never
 * set here: it is derived from the data the store holds (the platform's catalog reads it from the market store). The bundled sample data
 * (data/sample/) covers C:BTCUSD, F:EURUSD, F:USDJPY and S:SPY; every other entry is coming soon.
 *
 * Spread models (decision 3):
 * - Forex bars carry bid and ask, so FX pairs use `zero`: the model is never applied.
 * - Crypto and stocks are trade-only bars, so they get a small half spread around the traded price.
 *   BTC/ETH: 0.5 bps (top-of-book on major venues is well under that; 0.5 bps is a modest, conservative
 *   allowance); SOL: 1 bps (thinner books). Stocks/ETFs: 1 bps (a one-cent SPY spread is ~0.8 bps wide, and
 *   the sample data includes extended hours, where spreads are wider).
 *
 * Trading rules: FX pairs carry `tickSize`/`pricePrecision` (5 decimals, 3 for JPY-quoted pairs); crypto
 * carries neither (spec). Stocks carry neither either: the spec prescribes them only for FX, the sample data
 * holds sub-cent prices (LEAN deci-cents), and fills are not rounded (decision 2), so a $0.01 tick would be
 * informational only and is left out as "trading rules unknown".
 *
 * Crypto quoted in USDT is listed as USD (decision 1); "JPY-quoted" means denomination JPY (decision 30).
 */

const CRYPTO_HALF_SPREAD_BPS = '0.5';
const STOCK_HALF_SPREAD_BPS = '1';

export const instrumentSeed: InstrumentDefinition[] = [
  // Crypto
  {
    symbol: 'C:BTCUSD',
    name: 'Bitcoin / US Dollar',
    market: 'CRYPTO',
    dataSymbol: 'BTCUSDT',
    underlying: 'BTC',
    denomination: 'USD',
    spreadModel: { kind: 'half_spread_bps', value: CRYPTO_HALF_SPREAD_BPS },
  },
  {
    symbol: 'C:ETHUSD',
    name: 'Ethereum / US Dollar',
    market: 'CRYPTO',
    dataSymbol: 'ETHUSDT',
    underlying: 'ETH',
    denomination: 'USD',
    spreadModel: { kind: 'half_spread_bps', value: CRYPTO_HALF_SPREAD_BPS },
  },
  {
    symbol: 'C:SOLUSD',
    name: 'Solana / US Dollar',
    market: 'CRYPTO',
    dataSymbol: 'SOLUSDT',
    underlying: 'SOL',
    denomination: 'USD',
    spreadModel: { kind: 'half_spread_bps', value: '1' },
  },

  // Forex
  {
    symbol: 'F:EURUSD',
    name: 'Euro / US Dollar',
    market: 'FOREX',
    dataSymbol: 'EURUSD',
    underlying: 'EUR',
    denomination: 'USD',
    tickSize: '0.00001',
    pricePrecision: 5,
    spreadModel: { kind: 'zero' },
  },
  {
    symbol: 'F:USDJPY',
    name: 'US Dollar / Japanese Yen',
    market: 'FOREX',
    dataSymbol: 'USDJPY',
    underlying: 'USD',
    denomination: 'JPY',
    tickSize: '0.001',
    pricePrecision: 3,
    spreadModel: { kind: 'zero' },
  },
  {
    symbol: 'F:GBPUSD',
    name: 'British Pound / US Dollar',
    market: 'FOREX',
    dataSymbol: 'GBPUSD',
    underlying: 'GBP',
    denomination: 'USD',
    tickSize: '0.00001',
    pricePrecision: 5,
    spreadModel: { kind: 'zero' },
  },
  {
    symbol: 'F:AUDUSD',
    name: 'Australian Dollar / US Dollar',
    market: 'FOREX',
    dataSymbol: 'AUDUSD',
    underlying: 'AUD',
    denomination: 'USD',
    tickSize: '0.00001',
    pricePrecision: 5,
    spreadModel: { kind: 'zero' },
  },
  {
    symbol: 'F:USDCHF',
    name: 'US Dollar / Swiss Franc',
    market: 'FOREX',
    dataSymbol: 'USDCHF',
    underlying: 'USD',
    denomination: 'CHF',
    tickSize: '0.00001',
    pricePrecision: 5,
    spreadModel: { kind: 'zero' },
  },
  {
    symbol: 'F:EURJPY',
    name: 'Euro / Japanese Yen',
    market: 'FOREX',
    dataSymbol: 'EURJPY',
    underlying: 'EUR',
    denomination: 'JPY',
    tickSize: '0.001',
    pricePrecision: 3,
    spreadModel: { kind: 'zero' },
  },
  {
    symbol: 'F:GBPJPY',
    name: 'British Pound / Japanese Yen',
    market: 'FOREX',
    dataSymbol: 'GBPJPY',
    underlying: 'GBP',
    denomination: 'JPY',
    tickSize: '0.001',
    pricePrecision: 3,
    spreadModel: { kind: 'zero' },
  },

  // Stocks
  {
    symbol: 'S:SPY',
    name: 'SPDR S&P 500 ETF Trust',
    market: 'STOCKS',
    dataSymbol: 'SPY',
    underlying: 'SPY',
    denomination: 'USD',
    spreadModel: { kind: 'half_spread_bps', value: STOCK_HALF_SPREAD_BPS },
  },
  {
    symbol: 'S:QQQ',
    name: 'Invesco QQQ Trust',
    market: 'STOCKS',
    dataSymbol: 'QQQ',
    underlying: 'QQQ',
    denomination: 'USD',
    spreadModel: { kind: 'half_spread_bps', value: STOCK_HALF_SPREAD_BPS },
  },
  {
    symbol: 'S:AAPL',
    name: 'Apple Inc.',
    market: 'STOCKS',
    dataSymbol: 'AAPL',
    underlying: 'AAPL',
    denomination: 'USD',
    spreadModel: { kind: 'half_spread_bps', value: STOCK_HALF_SPREAD_BPS },
  },
];
