"""`run(StrategyClass)`: reads the platform's environment, connects, hands each event to its
handler one at a time in seq order, acknowledges, and exits with the run's status."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any, NoReturn

from .client import StreamEnd, WireClient
from .context import Context
from .errors import HindsightError, ParamError
from .models import Candle, Resource
from .strategy import Strategy, SubscriptionError, check_subscriptions, subscription_warnings


def _log(message: str) -> None:
    print(f"hindsight: {message}", file=sys.stderr, flush=True)


def _fail(message: str, status: int = 2) -> NoReturn:
    _log(message)
    sys.exit(status)


def _subscriptions(text: str | None) -> list[dict[str, Any]]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        _fail("PLATFORM_SUBSCRIPTIONS is not valid JSON")
    if not isinstance(value, list):
        _fail("PLATFORM_SUBSCRIPTIONS must be a JSON array of {instrument, events}")
    return value


async def _call(handler: Callable[..., Any], *args: Any) -> None:
    result = handler(*args)
    if inspect.isawaitable(result):
        await result


async def _dispatch(strategy: Strategy, event: dict[str, Any], ctx: Context) -> bool:
    """Calls the event's handler; True once the backtest is over."""
    kind = event.get("type")
    if kind == "candle":
        candle = Candle.from_bar(event["bar"])
        ctx.remember(candle)
        await _call(strategy.on_candle, candle, ctx)
    elif kind == "order":
        await _call(strategy.on_order, Resource.wrap({k: v for k, v in event.items() if k not in ("type", "seq", "timestamp")}), ctx)
    elif kind == "trade":
        await _call(strategy.on_trade, Resource.wrap(event["trade"]), ctx)
    elif kind == "position":
        await _call(strategy.on_position, Resource.wrap({"event": event.get("event"), "position": event["position"]}), ctx)
    elif kind == "account":
        await _call(strategy.on_account, Resource.wrap({"event": event.get("event"), "account": event["account"]}), ctx)
    elif kind == "error":
        await _call(strategy.on_error, Resource.wrap({k: event[k] for k in ("code", "message", "details") if k in event}), ctx)
    elif kind == "connection" and event.get("event") == "DISCONNECTING":
        if event.get("error"):
            _log(f"the gateway is disconnecting: {event['error']}")
        await _call(strategy.on_end, ctx)
        return True
    return False


async def _session(strategy: Strategy, client: WireClient, ctx: Context) -> int:
    try:
        await client.connect()
    except HindsightError as error:
        _log(f"could not connect to {client.url}: {error}")
        return 1
    try:
        await _call(strategy.on_start, ctx)
        await ctx.settle()
        while True:
            event = await client.events.get()
            if isinstance(event, StreamEnd):
                if event.error is not None:
                    _log(str(event.error))
                    return 1
                await _call(strategy.on_end, ctx)
                await ctx.settle()
                return 0 if event.code == 1000 else 1
            ctx.observe(event)
            over = await _dispatch(strategy, event, ctx)
            await ctx.settle()
            if isinstance(event.get("seq"), int):
                client.handled(event["seq"])
            if client.idle or over:
                await client.ack()
            if over:
                return 0 if not event.get("error") else 1
    finally:
        await client.close()


def run(strategy_class: type[Strategy]) -> NoReturn:
    """Runs the strategy until the backtest ends: exit 0 at its end, 1 with the traceback when a
    handler raises (or the connection is lost for good), 2 on a bad parameter or environment."""
    try:
        check_subscriptions(strategy_class.subscriptions)
        strategy = strategy_class()
        if getattr(strategy, "params", None) is strategy_class.params:  # an __init__ skipped super()
            Strategy.__init__(strategy)
    except (ParamError, SubscriptionError) as error:
        _fail(str(error))
    ws_url = os.environ.get("PROXY_WS_URL") or _fail("PROXY_WS_URL is not set (the gateway's /v1/ws)")
    subscriptions = _subscriptions(os.environ.get("PLATFORM_SUBSCRIPTIONS"))
    if os.environ.get("PLATFORM_SUBSCRIPTIONS", "").strip():  # unset (a standalone gateway): nothing to compare
        for line in subscription_warnings(strategy_class, subscriptions):
            _log(f"warning: {line}")
    client = WireClient(ws_url, os.environ.get("PLATFORM_GATEWAY_API_KEY") or None, _log)
    run_id = os.environ.get("HINDSIGHT_RUN_ID") or os.environ.get("PLATFORM_SCENARIO_ID") or "run"
    ctx = Context(client, strategy.params, run_id, subscriptions)
    try:
        status = asyncio.run(_session(strategy, client, ctx))
    except KeyboardInterrupt:
        status = 130
    except Exception:  # a handler raised, or the gateway failed a call the strategy did not catch
        traceback.print_exc()
        status = 1
    sys.exit(status)
