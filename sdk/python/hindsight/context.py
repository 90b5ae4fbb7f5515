"""The context handed to every handler: orders, positions and account over the gateway, the
candles received, simulated time and a log."""

from __future__ import annotations

import asyncio
import sys
from collections import deque
from collections.abc import Coroutine
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

from .client import WireClient
from .decimals import decimal_string
from .errors import HindsightError
from .models import Account, Candle, Order, Position, Resource, Trade
from .params import Params

CANDLES_KEPT = 1000
# Order and position fields that hold decimals: rendered as canonical decimal strings.
DECIMAL_FIELDS = frozenset(
    {
        "quantity",
        "limit_price",
        "stop_price",
        "trailing_distance",
        "stop_loss",
        "take_profit",
        "leverage",
        "display_quantity",
    }
)


def request_body(fields: dict[str, Any]) -> dict[str, Any]:
    """A request body: None fields dropped, decimal fields rendered, floats refused (TypeError)."""
    body: dict[str, Any] = {}
    for name, value in fields.items():
        if value is None:
            continue
        if name in DECIMAL_FIELDS:
            body[name] = decimal_string(value, name)
        elif isinstance(value, float):
            raise TypeError(f"{name}: the float {value!r} is refused; the protocol takes no JSON numbers here")
        else:
            body[name] = value
    return body


def _query(path: str, **params: str | None) -> str:
    present = {k: v for k, v in params.items() if v is not None}
    return f"{path}?{urlencode(present)}" if present else path


class Context:
    """What a handler can do. Calls that reach the gateway return an awaitable (an asyncio Task,
    already started): `await` it for the answer. One that a handler does not await still completes
    before the next event is handled."""

    def __init__(self, client: WireClient, params: Params, run_id: str, subscriptions: list[dict[str, Any]]):
        self.params = params
        self.subscriptions = subscriptions
        self.run_id = run_id
        self.time: str | None = None
        self.now: int | None = None
        self._client = client
        self._orders_placed = 0
        self._candles: dict[tuple[str, str], deque[Candle]] = {}
        self._default_timeframe: dict[str, str] = {}
        self._tasks: list[asyncio.Task[Any]] = []

    # --- what the runner tells the context -------------------------------------------------------

    def observe(self, event: dict[str, Any]) -> None:
        """Simulated time from the event's timestamp; a candle joins the history."""
        stamp = event.get("timestamp")
        if isinstance(stamp, str):
            self.time = stamp
            self.now = int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)

    def remember(self, candle: Candle) -> None:
        key = (candle.symbol, candle.timeframe)
        if key not in self._candles:
            self._candles[key] = deque(maxlen=CANDLES_KEPT)
            self._default_timeframe.setdefault(candle.symbol, candle.timeframe)
        self._candles[key].append(candle)

    async def settle(self) -> None:
        """Waits for the calls a handler started and did not await (their errors are the handler's)."""
        tasks, self._tasks = self._tasks, []
        unfinished = [t for t in tasks if not t.done()]
        if unfinished:
            await asyncio.gather(*unfinished)

    def _start(self, call: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(call)
        self._tasks.append(task)
        return task

    # --- market data and logging ------------------------------------------------------------------

    def candles(self, symbol: str, timeframe: str | None = None, count: int | None = None) -> list[Candle]:
        """The last `count` candles received (all kept, at most 1,000, when None), oldest first.
        Without a timeframe, the symbol's first timeframe received."""
        frame = timeframe or self._default_timeframe.get(symbol)
        kept = self._candles.get((symbol, frame or ""), ())
        history = list(kept)
        return history if count is None else history[max(0, len(history) - count) :]

    def log(self, *parts: object) -> None:
        """A line on the strategy's log (stderr), stamped with simulated time."""
        print(self.time or "-", *parts, file=sys.stderr, flush=True)

    # --- orders -----------------------------------------------------------------------------------

    def next_client_order_id(self) -> str:
        self._orders_placed += 1
        return f"{self.run_id}-{self._orders_placed}"

    def buy(self, symbol: str, quantity: Any, **options: Any) -> asyncio.Task[Order]:
        """Places a buy order (MARKET unless `order_type` says otherwise); resolves to the Order,
        REJECTED with its `reject_reason` when the venue rejected it."""
        return self._order("BUY", symbol, quantity, options)

    def sell(self, symbol: str, quantity: Any, **options: Any) -> asyncio.Task[Order]:
        """Places a sell order; see `buy`."""
        return self._order("SELL", symbol, quantity, options)

    def _order(self, side: str, symbol: str, quantity: Any, options: dict[str, Any]) -> asyncio.Task[Order]:
        fields = {"symbol": symbol, "side": side, "quantity": quantity, "order_type": "MARKET", **options}
        body = request_body(fields)  # a float is refused here, before anything is sent
        body.setdefault("client_order_id", self.next_client_order_id())
        return self._start(self._placed("POST", "/v1/orders", body))

    async def _placed(self, method: str, path: str, body: dict[str, Any] | None) -> Order:
        """An order-creating call, resolved to the Order (the REJECTED one on a 422 ORDER_REJECTED)."""
        try:
            handle = await self._client.call(method, path, body)
        except HindsightError as error:
            order_id = error.details.get("order_id")
            if error.code == "ORDER_REJECTED" and isinstance(order_id, str):
                return await self._get_order(order_id)
            raise
        return await self._get_order(handle["id"])

    async def _get_order(self, order_id: str) -> Order:
        return Resource(Resource.wrap(await self._client.call("GET", f"/v1/orders/{quote(order_id, safe='')}")))

    def modify(self, order_id: str, **changes: Any) -> asyncio.Task[Order]:
        """PATCH an order (quantity, limit_price, stop_price, stop_loss, take_profit,
        trailing_distance); resolves to the Order."""
        body = request_body(changes)

        async def call() -> Order:
            answer = await self._client.call("PATCH", f"/v1/orders/{quote(order_id, safe='')}", body)
            return Resource(Resource.wrap(answer["order"]))

        return self._start(call())

    def cancel(self, order_id: str) -> asyncio.Task[Order]:
        """Cancels an order; resolves to the Order."""

        async def call() -> Order:
            answer = await self._client.call("DELETE", f"/v1/orders/{quote(order_id, safe='')}")
            return Resource(Resource.wrap(answer["order"]))

        return self._start(call())

    def cancel_all(self, symbol: str | None = None) -> asyncio.Task[Resource]:
        """Cancels the open orders (of a symbol); resolves to `{cancelled_count, failed_count, failed_order_ids}`."""
        return self._start(self._wrapped("DELETE", _query("/v1/orders", symbol=symbol)))

    def close(self, position_id: str, **options: Any) -> asyncio.Task[Order]:
        """Closes (part of) a position (`quantity`, `order_type`, `limit_price`,
        `cancel_associated_orders`); resolves to the close Order."""
        body = request_body(options) or None
        return self._start(self._placed("DELETE", f"/v1/positions/{quote(position_id, safe='')}", body))

    def close_all(self, symbol: str | None = None) -> asyncio.Task[list[Resource]]:
        """Closes every position (of a symbol); resolves to the close orders' handles `{id, status, client_order_id}`."""
        return self._start(self._wrapped("DELETE", _query("/v1/positions", symbol=symbol)))

    def move_exits(self, position_id: str, *, stop_loss: Any = None, take_profit: Any = None) -> asyncio.Task[Resource]:
        """Moves a bracket's exit legs; resolves to `{position_id, stop_loss, take_profit}`."""
        body = request_body({"stop_loss": stop_loss, "take_profit": take_profit})
        return self._start(self._wrapped("PATCH", f"/v1/positions/{quote(position_id, safe='')}", body))

    # --- current state ----------------------------------------------------------------------------

    def positions(self, symbol: str | None = None) -> asyncio.Task[list[Position]]:
        return self._start(self._wrapped("GET", _query("/v1/positions", symbol=symbol)))

    def orders(self, symbol: str | None = None) -> asyncio.Task[list[Order]]:
        """The open orders (of a symbol)."""
        return self._start(self._wrapped("GET", _query("/v1/orders", symbol=symbol)))

    def trades(self, symbol: str | None = None) -> asyncio.Task[list[Trade]]:
        return self._start(self._wrapped("GET", _query("/v1/trades", symbol=symbol)))

    def account(self) -> asyncio.Task[Account]:
        return self._start(self._wrapped("GET", "/v1/account"))

    async def _wrapped(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return Resource.wrap(await self._client.call(method, path, body))
