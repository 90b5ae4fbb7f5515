/**
 * Momentum across several FX pairs at once (EURUSD and USDJPY in the sample), on hourly candles.
 *
 * Each pair is long `quantity` units while its close is above its SMA(`period`) and short while
 * below; a flip is one MARKET order of twice the quantity. Positions held over the daily rollover
 * pay or earn funding (the scenario's `costs.funding`), which the account's balance shows.
 */
import { Decimal, defineStrategy } from '@hindsight/sdk';

export default defineStrategy({
  name: 'fx-momentum',
  params: { period: 24, quantity: '10000' },
  subscriptions: [
    { instrument: 'F:EURUSD', events: ['candle_1h', 'order_update'] },
    { instrument: 'F:USDJPY', events: ['candle_1h', 'order_update'] },
  ],
  create({ period, quantity }) {
    const double = new Decimal(quantity).times(2);
    const pairs = new Map<string, { closes: number[]; side: number }>();
    return {
      onCandle(candle, ctx) {
        let pair = pairs.get(candle.symbol);
        if (!pair) {
          pair = { closes: [], side: 0 };
          pairs.set(candle.symbol, pair);
        }
        const close = candle.number('close');
        pair.closes.push(close);
        if (pair.closes.length > period) pair.closes.shift();
        if (pair.closes.length < period) return;
        const mean = pair.closes.reduce((sum, c) => sum + c, 0) / period;
        const side = Math.sign(close - mean);
        if (side === 0 || side === pair.side) return;
        const size = pair.side === 0 ? quantity : double;
        pair.side = side;
        if (side > 0) ctx.buy(candle.symbol, size);
        else ctx.sell(candle.symbol, size);
      },
      async onEnd(ctx) {
        const account = await ctx.account();
        ctx.log(`balance ${account.balance} ${account.currency}`);
      },
    };
  },
});
