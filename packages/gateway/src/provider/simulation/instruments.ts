import { type InstrumentDefinition, instrumentSeed, type MarketId } from '@hindsight/core';

const CATALOG = new Map(instrumentSeed.map((i) => [i.symbol, i]));

/**
 * The definition a standalone simulation gateway uses: the catalog's (the same seed the platform
 * serves), or for a symbol the catalog does not list, one derived from the symbol itself.
 */
export function instrumentDefinition(symbol: string): InstrumentDefinition | undefined {
  return CATALOG.get(symbol) ?? instrumentFromSymbol(symbol);
}

/**
 * Instrument definitions derived from the platform symbol (`C:`, `F:`, `S:` and `X:` prefixes), for
 * symbols outside the catalog (data imported under a new symbol):
 * - `C:BTCUSD` crypto: underlying BTC, denomination USD (USDT/USDC count as USD, decision 1), a 0.5 bps
 *   half spread around the traded price (decision 3, as the catalog's BTC and ETH);
 * - `F:EURUSD` forex: underlying EUR, denomination USD, bid/ask from the data (zero spread model),
 *   tick 0.00001 (0.001 for JPY-quoted pairs);
 * - `S:SPY` stocks and `X:` futures: denomination USD, a 1 bps half spread.
 */
const MARKET_OF_PREFIX: Record<string, MarketId> = { C: 'CRYPTO', F: 'FOREX', S: 'STOCKS', X: 'FUTURES' };
const STABLE_QUOTES = ['USDT', 'USDC', 'USD'];

export function instrumentFromSymbol(symbol: string): InstrumentDefinition | undefined {
  const match = /^([CFSX]):([A-Z0-9.]{1,20})$/.exec(symbol);
  if (!match) return undefined;
  const market = MARKET_OF_PREFIX[match[1] as string] as MarketId;
  const body = match[2] as string;
  if (market === 'FOREX') {
    if (!/^[A-Z]{6}$/.test(body)) return undefined;
    const denomination = body.slice(3);
    return {
      symbol,
      name: `${body.slice(0, 3)} / ${denomination}`,
      market,
      dataSymbol: body,
      underlying: body.slice(0, 3),
      denomination,
      tickSize: denomination === 'JPY' ? '0.001' : '0.00001',
      pricePrecision: denomination === 'JPY' ? 3 : 5,
      spreadModel: { kind: 'zero' },
    };
  }
  if (market === 'CRYPTO') {
    const quote = STABLE_QUOTES.find((q) => body.endsWith(q) && body.length > q.length);
    if (!quote) return undefined;
    return {
      symbol,
      name: `${body.slice(0, -quote.length)} / US Dollar`,
      market,
      dataSymbol: body,
      underlying: body.slice(0, -quote.length),
      denomination: 'USD',
      spreadModel: { kind: 'half_spread_bps', value: '0.5' },
    };
  }
  return {
    symbol,
    name: body,
    market,
    dataSymbol: body,
    underlying: body,
    denomination: 'USD',
    spreadModel: { kind: 'half_spread_bps', value: '1' },
  };
}
