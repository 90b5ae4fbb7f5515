import { calendarOf } from '@hindsight/core';
import { BarHistory, type Scenario } from '@hindsight/gateway';
import type { BarStore } from '@hindsight/marketdata';
import type { ReportCandles } from '../../report/index.ts';

/**
 * The candles of each instrument for the report's price charts: the finest timeframe that draws the
 * window in at most MAX_CANDLES bars (entries and exits are marked on them), built from the stored
 * bars as the strategy's candles are.
 */
const MAX_CANDLES = 5000;
const TIMEFRAMES: readonly [string, number][] = [
  ['1m', 60_000],
  ['5m', 300_000],
  ['15m', 900_000],
  ['1h', 3_600_000],
  ['4h', 14_400_000],
  ['1d', 86_400_000],
  ['1w', 604_800_000],
];

export async function priceCandles(scenario: Scenario, store: BarStore): Promise<ReportCandles[]> {
  const { start, end } = scenario.window;
  const [timeframe] = TIMEFRAMES.find(([, ms]) => (end - start) / ms <= MAX_CANDLES) ?? ['1w'];
  const history = new BarHistory(store);
  const out: ReportCandles[] = [];
  for (const instrument of scenario.instruments) {
    const bars = await history.bars(
      {
        symbol: instrument.symbol,
        calendar: calendarOf(instrument.market),
        spreadModel: instrument.spreadModel,
      },
      { timeframe: timeframe as never, start, end: end - 1, limit: 10_000 },
      end,
    );
    out.push({
      symbol: instrument.symbol,
      timeframe: timeframe as string,
      bars: bars.map((bar) => ({
        time: Date.parse(bar.timestamp),
        open: bar.open,
        high: bar.high,
        low: bar.low,
        close: bar.close,
      })),
    });
  }
  return out;
}
