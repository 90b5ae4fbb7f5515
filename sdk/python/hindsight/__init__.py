"""Hindsight strategy SDK: write a `Strategy` subclass, call `run(YourStrategy)`.

See docs/sdk.md in the Hindsight repository for the API and docs/protocol.md for the wire protocol.
"""

from .context import Context
from .decimals import decimal_string
from .errors import ConnectionLost, HindsightError, ParamError
from .models import Account, Candle, Order, Position, Resource, Trade
from .params import env_name, read_params
from .runner import run
from .strategy import Strategy

__all__ = [
    "Account",
    "Candle",
    "ConnectionLost",
    "Context",
    "HindsightError",
    "Order",
    "ParamError",
    "Position",
    "Resource",
    "Strategy",
    "Trade",
    "decimal_string",
    "env_name",
    "read_params",
    "run",
]
