"""The Strategy base class: declared parameters, subscriptions and the handlers a subclass overrides."""

from __future__ import annotations

import os
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, ClassVar

from .params import Params, read_params

if TYPE_CHECKING:
    from .context import Context
    from .models import Candle, Resource

HandlerResult = Awaitable[None] | None

# The events a subscription names, as the scenario validation accepts them (docs/scenarios.md).
TIMEFRAMES = ("1m", "2m", "5m", "10m", "15m", "30m", "1h", "2h", "4h", "12h", "1d", "1w")
UPDATE_EVENTS = ("order_update", "position_update", "account_update", "trade_update")
EVENT_NAMES = tuple(f"candle_{tf}" for tf in TIMEFRAMES) + UPDATE_EVENTS
# The handlers only the events of one kind call.
_HANDLER_EVENTS = (
    ("on_candle", "candle_<timeframe>"),
    ("on_order", "order_update"),
    ("on_trade", "trade_update"),
    ("on_position", "position_update"),
    ("on_account", "account_update"),
)


class SubscriptionError(ValueError):
    """A strategy's `subscriptions` declaration is malformed."""


class Strategy:
    """Subclass it, declare `params = {name: default}` (and `subscriptions`, what it needs) and
    override the handlers you need; each may be synchronous or `async`. One instance per backtest:
    keep state on `self`. `self.params` holds this run's values, read from the environment (the name
    in upper snake case) when instantiated."""

    params: ClassVar[dict[str, Any]] = {}
    # What the handlers need: [{"instrument": "C:BTCUSD", "events": ["candle_1m", "order_update"]}].
    subscriptions: ClassVar[list[dict[str, Any]] | None] = None

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


def check_subscriptions(declared: Any) -> None:
    """Raises SubscriptionError naming what is wrong with a `subscriptions` declaration."""
    if declared is None:
        return
    shape = 'a list of {"instrument": ..., "events": [...]}, e.g. [{"instrument": "C:BTCUSD", "events": ["candle_1m"]}]'
    if not isinstance(declared, list) or not declared:
        raise SubscriptionError(f"subscriptions: {shape}")
    seen: set[str] = set()
    for i, item in enumerate(declared):
        at = f"subscriptions[{i}]"
        if not isinstance(item, dict):
            raise SubscriptionError(f"{at}: {shape}")
        extra = [key for key in item if key not in ("instrument", "events")]
        if extra:
            raise SubscriptionError(f"{at}: {extra[0]} is no field of a subscription (instrument, events)")
        instrument, events = item.get("instrument"), item.get("events")
        if not isinstance(instrument, str) or not instrument.strip():
            raise SubscriptionError(f'{at}.instrument: a platform symbol such as "C:BTCUSD"')
        if instrument in seen:
            raise SubscriptionError(f"{at}: {instrument} is declared twice; merge its events into one")
        seen.add(instrument)
        if not isinstance(events, list) or not events:
            raise SubscriptionError(f'{at}.events: a non-empty list of event names, e.g. ["candle_1m"]')
        for j, event in enumerate(events):
            if event not in EVENT_NAMES:
                raise SubscriptionError(f"{at}.events[{j}]: {event!r} is no event; events: {', '.join(EVENT_NAMES)}")
        if not any(event.startswith("candle_") for event in events):
            raise SubscriptionError(f"{at}.events: name a candle_<timeframe>; update events alone replay nothing")


def _covers(pattern: str, event: str) -> bool:
    """Whether a delivered event pattern (candle_1m, candle_*, candle_*m, candle_{1,5}m...) covers an event."""
    if pattern == event:
        return True
    if not pattern.startswith("candle_") or not event.startswith("candle_"):
        return False
    body, tf = pattern[7:], event[7:]
    if body == "*":
        return True
    if body in ("*m", "*h"):
        return tf.endswith(body[1:])
    if body.startswith("{") and body.endswith("}m") and tf.endswith("m"):
        return tf[:-1] in body[1:-2].split(",")
    return False


def subscription_warnings(strategy: type[Strategy], delivered: list[dict[str, Any]]) -> list[str]:
    """One line for each declared (instrument, event) the run does not deliver, and for each handler
    no delivered event calls."""
    delivered = [s for s in delivered if isinstance(s, dict) and isinstance(s.get("events"), list)]
    what = "; ".join(f"{s.get('instrument')} {', '.join(map(str, s['events']))}" for s in delivered) or "no subscription"
    warnings = []
    for declared in strategy.subscriptions or []:
        for event in declared["events"]:
            if not any(
                s.get("instrument") == declared["instrument"] and any(_covers(str(p), event) for p in s["events"])
                for s in delivered
            ):
                warnings.append(
                    f"the strategy subscribes to {declared['instrument']} {event}, which this run does not deliver (it delivers {what})"
                )
    patterns = [str(p) for s in delivered for p in s["events"]]
    for handler, event in _HANDLER_EVENTS:
        overridden = getattr(strategy, handler) is not getattr(Strategy, handler)
        fires = any(p.startswith("candle_") if handler == "on_candle" else p == event for p in patterns)
        if overridden and not fires:
            warnings.append(f"{handler} is never called: this run delivers no {event} (it delivers {what})")
    return warnings
