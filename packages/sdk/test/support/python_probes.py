"""Strategies that probe the Python SDK for packages/sdk/test/python-sdk.test.ts; PROBE picks one.

Each prints `RESULT <json>` lines on stdout for the test to read:
- orders: a float quantity is refused (TypeError), a huge order comes back REJECTED, a Decimal
  quantity goes out canonical with a deterministic client_order_id, a sync handler's order
  completes; then a limit order is modified and cancelled, a position opened and closed;
- raise: a handler raises on the third candle;
- ratelimit: three account reads at start against a gateway that allows two a minute;
- reconnect: holds the 40th candle until the test has killed the socket and the SDK reconnected,
  then counts what it handled.
"""

import asyncio
import json
import os
from decimal import Decimal

from hindsight import Strategy, run


def result(**fields):
    print("RESULT " + json.dumps(fields), flush=True)


class Probe(Strategy):
    params = {"probe": "orders"}

    def on_start(self, ctx):
        self.candles = []
        self.order_events = []
        if self.params["probe"] == "ratelimit":
            return self.read_account_three_times(ctx)

    async def read_account_three_times(self, ctx):
        balances = [(await ctx.account()).balance for _ in range(3)]
        result(balances=balances)

    async def on_candle(self, candle, ctx):
        self.candles.append((candle.timeframe, candle.timestamp))
        probe, n = self.params["probe"], len(self.candles)
        if probe == "orders" and n == 1:
            try:
                ctx.buy(candle.symbol, 0.01)
            except TypeError as error:
                result(type_error=str(error))
            rejected = await ctx.buy(candle.symbol, "1000000")
            filled = await ctx.buy(candle.symbol, Decimal("0.0100"))
            result(rejected=rejected, filled=filled, time=ctx.time, now=ctx.now)
        if probe == "orders" and n == 2:
            self.sync_order = ctx.sell(candle.symbol, "0.01")  # not awaited: settled before the next event
        if probe == "orders" and n == 3:
            result(sync_order=self.sync_order.result(), kept=len(ctx.candles(candle.symbol)))
        if probe == "orders" and n == 4:
            await self.manage_orders_and_positions(candle.symbol, ctx)
        if probe == "raise" and n == 3:
            raise RuntimeError("boom from on_candle")
        if probe == "reconnect" and n == 40:
            print("READY", flush=True)
            for _ in range(300):  # until the test has killed the socket and the SDK reconnected
                if ctx._client.reconnects:
                    break
                await asyncio.sleep(0.1)

    async def manage_orders_and_positions(self, symbol, ctx):
        limit = await ctx.buy(symbol, "0.01", order_type="LIMIT", limit_price="20000")
        modified = await ctx.modify(limit.id, limit_price=Decimal("20001.50"))
        open_orders = await ctx.orders(symbol)
        cancelled = await ctx.cancel(limit.id)
        await ctx.buy(symbol, "0.02")
        positions = await ctx.positions(symbol)
        closed = await ctx.close(positions[0].id)
        result(
            limit_status=limit.status,
            modified_price=modified.limit_price,
            open_orders=[o.id for o in open_orders],
            limit_id=limit.id,
            cancelled_status=cancelled.status,
            position=positions[0],
            close_order=closed,
            positions_after=len(await ctx.positions()),
            trades=len(await ctx.trades(symbol)),
            cancel_all=await ctx.cancel_all(),
            account=await ctx.account(),
        )

    def on_order(self, update, ctx):
        self.order_events.append((update.event, update.order.client_order_id))

    def on_end(self, ctx):
        result(end=True, candles=len(self.candles), distinct=len(set(self.candles)), order_events=self.order_events)


if __name__ == "__main__":
    run(Probe)
