/**
 * RSI mean reversion with brackets, on the 15-minute candles of one FX pair (EURUSD in the sample).
 *
 * While flat: RSI(period) below `oversold` buys, above `overbought` sells, each entry with a
 * stop-loss and a take-profit `stopPips` and `takePips` away, which the gateway places as two exit
 * legs that cancel each other (one-cancels-other). The position closes when a leg fills; the
 * strategy learns it from its position events (subscribe `position_update`).
 */
import { defineStrategy } from '@hindsight/sdk';

export default defineStrategy({
  name: 'rsi-brackets',
  params: { period: 14, oversold: 30, overbought: 70, stopPips: 20, takePips: 30, quantity: '10000' },
  subscriptions: [{ instrument: 'F:EURUSD', events: ['candle_15m', 'order_update', 'position_update'] }],
  create({ period, oversold, overbought, stopPips, takePips, quantity }) {
    const PIP = 0.0001;
    let previous: number | undefined;
    let gain = 0;
    let loss = 0;
    let seen = 0;
    let open = false;
    return {
      async onCandle(candle, ctx) {
        const close = candle.number('close');
        if (previous !== undefined) {
          // Wilder's smoothing of gains and losses.
          const change = close - previous;
          const weight = seen < period ? 1 / (seen + 1) : 1 / period;
          gain += (Math.max(change, 0) - gain) * weight;
          loss += (Math.max(-change, 0) - loss) * weight;
          seen++;
        }
        previous = close;
        if (seen < period || open) return;
        const rsi = loss === 0 ? 100 : 100 - 100 / (1 + gain / loss);
        if (rsi >= oversold && rsi <= overbought) return;
        const buy = rsi < oversold;
        const away = (pips: number, up: boolean) => (close + (up ? pips : -pips) * PIP).toFixed(5);
        const brackets = { stop_loss: away(stopPips, !buy), take_profit: away(takePips, buy) };
        const order = buy
          ? await ctx.buy(candle.symbol, quantity, brackets)
          : await ctx.sell(candle.symbol, quantity, brackets);
        open = order.status === 'FILLED';
      },
      onPosition({ event }) {
        if (event === 'POSITION_CLOSED') open = false;
      },
    };
  },
});
