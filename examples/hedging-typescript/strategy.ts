/**
 * Hedging: a long and a short position in one instrument at once (a hedging account,
 * `positionMode: "hedging"`), each closed on its own by its position id.
 *
 * Every `every` candles the strategy opens a long and a short of `quantity`; each one is closed
 * once it has moved `target` percent in its favour, or after `maxBars` candles, whichever comes first.
 */
import { defineStrategy, type Position } from '@hindsight/sdk';

export default defineStrategy({
  name: 'hedging',
  params: { every: 60, target: 0.2, maxBars: 240, quantity: '0.01' },
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
  create({ every, target, maxBars, quantity }) {
    let bars = 0;
    const openedAt = new Map<string, number>();
    return {
      async onCandle(candle, ctx) {
        bars++;
        const close = candle.number('close');
        const positions: Position[] = await ctx.positions(candle.symbol);
        for (const position of positions) {
          const entry = Number(position.average_entry_price);
          const move = ((close - entry) / entry) * 100 * (position.side === 'LONG' ? 1 : -1);
          if (!openedAt.has(position.id)) openedAt.set(position.id, bars);
          const age = bars - (openedAt.get(position.id) as number);
          if (move >= target || age >= maxBars) {
            await ctx.close(position.id);
            openedAt.delete(position.id);
          }
        }
        if (bars % every !== 0) return;
        // On a hedging account each order opens a position of its own: both stay open side by side.
        await ctx.buy(candle.symbol, quantity);
        await ctx.sell(candle.symbol, quantity);
      },
    };
  },
});
