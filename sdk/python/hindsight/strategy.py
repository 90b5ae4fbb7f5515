"""The Strategy base class: declared parameters and the handlers a subclass overrides."""

from __future__ import annotations

import os
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, ClassVar

from .params import Params, read_params

if TYPE_CHECKING:
    from .context import Context
    from .models import Candle, Resource

HandlerResult = Awaitable[None] | None


class Strategy:
    """Subclass it, declare `params = {name: default}` and override the handlers you need; each may
    be synchronous or `async`. One instance per backtest: keep state on `self`. `self.params` holds
    this run's values, read from the environment (the name in upper snake case) when instantiated."""

    params: ClassVar[dict[str, Any]] = {}

    def __init__(self) -> None:
        self.params: Params = read_params(type(self).params, os.environ)  # type: ignore[misc]

    def on_start(self, ctx: Context) -> HandlerResult:
        """Before the first event."""

    def on_candle(self, candle: Candle, ctx: Context) -> HandlerResult:
        """A completed candle of a subscribed timeframe."""

    def on_order(self, update: Resource, ctx: Context) -> HandlerResult:
        """`{event, order, parent_order_id?}` (subscription `order_update`)."""

    def on_trade(self, trade: Resource, ctx: Context) -> HandlerResult:
        """A fill (subscription `trade_update`)."""

    def on_position(self, update: Resource, ctx: Context) -> HandlerResult:
        """`{event, position}` (subscription `position_update`)."""

    def on_account(self, update: Resource, ctx: Context) -> HandlerResult:
        """`{event, account}` (subscription `account_update`)."""

    def on_error(self, error: Resource, ctx: Context) -> HandlerResult:
        """An `error` event: `{code, message, details?}` (LIQUIDATION, POSITION_UNPROTECTED, ...)."""

    def on_end(self, ctx: Context) -> HandlerResult:
        """The backtest ended (DISCONNECTING)."""
