"""The SMA(10)/SMA(30) crossover of examples/ in backtesting.py, on the same bars, for the SDK benchmark.

Usage: python3 backtesting-sma.py BARS.csv

BARS.csv is Binance's 1m kline CSV (open_time in ms, open, high, low, close, volume, ...), the
benchmark's BTCUSDT sample decompressed. The strategy is backtesting.py's canonical crossover (its
README's `SmaCross`): two SMAs through `self.I` (a pandas rolling mean, as `backtesting.test.SMA`)
and `backtesting.lib.crossover`, a market order per crossover with `exclusive_orders=True`, so each
order closes the open trade and opens the opposite one (long on a golden cross, short on a death
cross, always in the market after the first), commission 1 bp of notional on each fill.
backtesting.py trades whole units, or a fraction of equity for a size under 1, never 0.01 BTC: the
bars are quoted per 0.01 BTC instead (prices x 0.01, volume x 100) and the strategy trades one
unit, the transformation `backtesting.lib.FractionalBacktest` applies (0.6.2 on), done here so
that every version runs the same code; cash 100,000 as in backtrader-sma.py. Orders fill at the
next bar's open, as in backtrader. Time is `bt.run()` alone: it computes the indicators, runs the
strategy and computes the statistics; the CSV is read into a DataFrame before it (backtesting.py
takes a DataFrame, where backtrader's `cerebro.run()` reads the file). Prints one JSON line.
"""

import json
import sys
import time
import warnings

import backtesting
import pandas as pd
from backtesting import Backtest, Strategy
from backtesting.lib import crossover

# 0.01 BTC, the size of the example's position, is one unit of the backtest.
UNIT = 0.01


def sma(values, period):
    return pd.Series(values).rolling(period).mean()


class SmaCross(Strategy):
    fast = 10
    slow = 30

    def init(self):
        self.fast_sma = self.I(sma, self.data.Close, self.fast)
        self.slow_sma = self.I(sma, self.data.Close, self.slow)
        self.orders = 0

    def next(self):
        if crossover(self.fast_sma, self.slow_sma):
            self.buy(size=1)
            self.orders += 1
        elif crossover(self.slow_sma, self.fast_sma):
            self.sell(size=1)
            self.orders += 1


def read_bars(path):
    bars = pd.read_csv(path, usecols=range(6))
    bars.columns = ["Time", "Open", "High", "Low", "Close", "Volume"]
    bars.index = pd.to_datetime(bars.pop("Time"), unit="ms")
    bars[["Open", "High", "Low", "Close"]] *= UNIT
    bars["Volume"] /= UNIT
    return bars


def main():
    bars = read_bars(sys.argv[1])
    # The position open at the end stays open, as in backtrader: it is not among the closed trades.
    warnings.filterwarnings("ignore", message="Some trades remain open")
    bt = Backtest(bars, SmaCross, cash=100_000, commission=0.0001, exclusive_orders=True)
    started = time.perf_counter()
    stats = bt.run()
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "bars": len(bars),
                "seconds": seconds,
                "orders": stats["_strategy"].orders,
                "trades": int(stats["# Trades"]),
                "value": float(stats["Equity Final [$]"]),
                "version": getattr(backtesting, "__version__", None),
            }
        )
    )


if __name__ == "__main__":
    main()
