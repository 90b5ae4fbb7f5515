"""SMA(fast)/SMA(slow) crossover on the 1-minute candles, on the Hindsight SDK.

Golden cross (the fast SMA crosses above the slow one): go long `quantity`; death cross: go short.
Each crossover is one MARKET order, twice the quantity for a reversal (the same logic as main.py
beside it, which speaks the protocol by hand). Parameters: FAST, SLOW, QUANTITY in the environment
(defaults 10, 30, "0.01"). Push it with `hindsight versions push --bundle strategy.py` (docs/sdk.md).
"""

from decimal import Decimal

from hindsight import Candle, Context, Strategy, run


class SmaCrossover(Strategy):
    params = {"fast": 10, "slow": 30, "quantity": "0.01"}
    subscriptions = [{"instrument": "C:BTCUSD", "events": ["candle_1m"]}]

    def on_start(self, ctx: Context) -> None:
        self.closes: list[float] = []
        self.position = "flat"
        self.side_of_slow = 0  # +1 fast above slow, -1 below, 0 not known yet

    async def on_candle(self, candle: Candle, ctx: Context) -> None:
        if candle.timeframe != "1m":
            return
        fast_n, slow_n = self.params["fast"], self.params["slow"]
        self.closes.append(candle.number("close"))
        del self.closes[:-slow_n]
        if len(self.closes) < slow_n:
            return
        fast = sum(self.closes[-fast_n:]) / fast_n
        slow = sum(self.closes) / slow_n
        side = (fast > slow) - (fast < slow)
        if side == 0:
            return  # touching is not crossing
        crossed = self.side_of_slow != 0 and side != self.side_of_slow
        self.side_of_slow = side
        if crossed:
            await self.move_to("long" if side > 0 else "short", candle, ctx)

    async def move_to(self, target: str, candle: Candle, ctx: Context) -> None:
        """One order for the difference between the position and the target."""
        if self.position == target:
            return
        quantity = Decimal(self.params["quantity"])
        if self.position != "flat":
            quantity *= 2  # a reversal closes and reopens in one fill
        side = ctx.buy if target == "long" else ctx.sell
        order = await side(candle.symbol, quantity)
        if order.status == "REJECTED":
            ctx.log(f"order rejected ({order.reject_reason}); staying {self.position}")
            return
        self.position = target


if __name__ == "__main__":
    run(SmaCrossover)
