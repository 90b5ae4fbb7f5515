"""What handlers receive: Candle and the protocol's resources (Order, Trade, Position, Account)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class Resource(dict[str, Any]):
    """A protocol resource or event payload, with the protocol's field names: `order["status"]` or
    `order.status`. Money and quantities stay decimal strings."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @classmethod
    def wrap(cls, value: Any) -> Any:
        """JSON as resources: objects become Resources (nested too), lists stay lists."""
        if isinstance(value, dict):
            return cls({k: cls.wrap(v) for k, v in value.items()})
        if isinstance(value, list):
            return [cls.wrap(v) for v in value]
        return value


Order = Resource
Trade = Resource
Position = Resource
Account = Resource

_NUMERIC = ("open", "high", "low", "close", "volume")


@dataclass(frozen=True, slots=True)
class Candle:
    """A completed candle; prices and volume are decimal strings, `timestamp` is its start."""

    symbol: str
    timeframe: str
    timestamp: str
    open: str
    high: str
    low: str
    close: str
    volume: str

    @classmethod
    def from_bar(cls, bar: dict[str, Any]) -> Candle:
        return cls(
            symbol=bar["symbol"],
            timeframe=bar["timeframe"],
            timestamp=bar["timestamp"],
            open=bar["open"],
            high=bar["high"],
            low=bar["low"],
            close=bar["close"],
            volume=bar["volume"],
        )

    def number(self, field: str) -> float:
        """The field (open, high, low, close or volume) as a float, for indicators."""
        if field not in _NUMERIC:
            raise ValueError(f"number(): {field!r} is not one of {', '.join(_NUMERIC)}")
        return float(getattr(self, field))
