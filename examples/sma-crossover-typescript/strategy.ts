/**
 * SMA crossover on 1-minute candles, on the Hindsight SDK (docs/sdk.md).
 *
 * Golden cross (the fast SMA crosses above the slow one): go long `quantity`. Death cross: go short.
 * A reversal is one MARKET order of twice the quantity (it closes the position and opens the
 * opposite one in one fill on a netting account). The periods and the quantity are parameters:
 * FAST, SLOW and QUANTITY in the environment, or `--param fast=5` to `hindsight backtest`.
 */
import { Decimal, defineStrategy } from '@hindsight/sdk';

export default defineStrategy({
  name: 'sma-crossover',
  params: { fast: 10, slow: 30, quantity: '0.01' },
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
  create({ fast, slow, quantity }) {
    const reversal = new Decimal(quantity).times(2);
    const closes: number[] = [];
    let sideOfSlow = 0; // +1 while the fast SMA is above the slow one, -1 below
    let position: 'flat' | 'long' | 'short' = 'flat';
    const mean = (count: number) => {
      let sum = 0;
      for (let i = closes.length - count; i < closes.length; i++) sum += closes[i] as number;
      return sum / count;
    };
    return {
      onCandle(candle, ctx) {
        closes.push(candle.number('close'));
        if (closes.length > slow) closes.shift();
        if (closes.length < slow) return;
        const side = Math.sign(mean(fast) - mean(slow));
        if (side === 0) return; // touching is not crossing
        const crossed = sideOfSlow !== 0 && side !== sideOfSlow;
        sideOfSlow = side;
        if (!crossed) return;
        const size = position === 'flat' ? quantity : reversal;
        position = side > 0 ? 'long' : 'short';
        // Not awaited: the order goes out before this bar is acknowledged, so it fills at this bar.
        if (side > 0) ctx.buy(candle.symbol, size);
        else ctx.sell(candle.symbol, size);
      },
      onOrder({ event, order }, ctx) {
        if (event === 'ORDER_REJECTED') ctx.log(`order ${order.id} rejected: ${order.reject_reason}`);
      },
    };
  },
});
