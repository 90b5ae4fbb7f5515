import { calendarOf, TIMEFRAME_MS, TIMEFRAMES, type Timeframe } from '@hindsight/core';
import { BarHistory, type Scenario } from '@hindsight/gateway';
import type { BarStore } from '@hindsight/marketdata';
import type { ReportCandles } from '../../report/index.ts';

/**
 * The candles of each instrument for the report's price charts: the finest timeframe that draws the
 * window in at most MAX_CANDLES bars (entries and exits are marked on them), built from the stored
 * bars as the strategy's candles are.
 */
const MAX_CANDLES = 5000;
const DAY_MS = 86_400_000;
const spanOf = (timeframe: Timeframe): number =>
  timeframe === '1d' ? DAY_MS : timeframe === '1w' ? 7 * DAY_MS : TIMEFRAME_MS[timeframe];

export async function priceCandles(scenario: Scenario, store: BarStore): Promise<ReportCandles[]> {
  const { start, end } = scenario.window;
  const timeframe = TIMEFRAMES.find((tf) => (end - start) / spanOf(tf) <= MAX_CANDLES) ?? '1w';
  const history = new BarHistory(store);
  const out: ReportCandles[] = [];
  for (const instrument of scenario.instruments) {
    const bars = await history.bars(
      {
        symbol: instrument.symbol,
        calendar: calendarOf(instrument.market),
        spreadModel: instrument.spreadModel,
      },
      { timeframe, start, end: end - 1, limit: 10_000 },
      end,
    );
    out.push({
      symbol: instrument.symbol,
      timeframe,
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
