"""The SMA(10)/SMA(30) crossover of examples/ in backtrader, on the same bars, for the gateway benchmark.

Usage: python3 backtrader-sma.py BARS.csv [--stdstats]

BARS.csv is Binance's 1m kline CSV (open_time in ms, open, high, low, close, volume, ...), the
benchmark's BTCUSDT sample decompressed. The strategy is backtrader's canonical crossover: two
`bt.ind.SMA` lines and `bt.ind.CrossOver`, a market order per crossover to hold 0.01 long or short
(`order_target_size`, as the example's reversal orders do), commission 1 bp of notional. Time is
`cerebro.run()` alone: it reads the CSV (preload), computes the indicators and runs the strategy,
as the gateway benchmark's `from_connection` figure counts the gateway's data read and result files.
`--stdstats` keeps backtrader's default observers (broker value, trades, buy/sell marks); without it
they are off, backtrader's fastest configuration for this strategy. Prints one JSON line.
"""

import json
import sys
import time
from datetime import datetime, timezone

import backtrader as bt


class SmaCross(bt.Strategy):
    params = (("fast", 10), ("slow", 30), ("size", 0.01))

    def __init__(self):
        fast = bt.ind.SMA(period=self.p.fast)
        slow = bt.ind.SMA(period=self.p.slow)
        self.crossover = bt.ind.CrossOver(fast, slow)
        self.orders = 0

    def next(self):
        if self.crossover > 0:
            self.order_target_size(target=self.p.size)
            self.orders += 1
        elif self.crossover < 0:
            self.order_target_size(target=-self.p.size)
            self.orders += 1


def from_milliseconds(text):
    return datetime.fromtimestamp(int(text) / 1000, tz=timezone.utc).replace(tzinfo=None)


def main():
    path = sys.argv[1]
    stdstats = "--stdstats" in sys.argv[2:]
    cerebro = bt.Cerebro(stdstats=stdstats)
    cerebro.adddata(
        bt.feeds.GenericCSVData(
            dataname=path,
            dtformat=from_milliseconds,
            timeframe=bt.TimeFrame.Minutes,
            compression=1,
            datetime=0,
            open=1,
            high=2,
            low=3,
            close=4,
            volume=5,
            openinterest=-1,
            headers=True,
        )
    )
    cerebro.addstrategy(SmaCross)
    cerebro.broker.setcash(100_000.0)
    cerebro.broker.setcommission(commission=0.0001)
    started = time.perf_counter()
    (strategy,) = cerebro.run()
    seconds = time.perf_counter() - started
    bars = len(strategy.data)
    print(
        json.dumps(
            {
                "bars": bars,
                "seconds": seconds,
                "orders": strategy.orders,
                "stdstats": stdstats,
                "value": cerebro.broker.getvalue(),
                "version": bt.__version__,
            }
        )
    )


if __name__ == "__main__":
    main()
