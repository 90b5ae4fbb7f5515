"""SMA(10)/SMA(30) crossover on the 1-minute candles of one instrument.

Golden cross (the fast SMA crosses above the slow one): go long. Death cross (it crosses below): go
short. The position is ORDER_QUANTITY (default "0.01") long or short; each crossover is one MARKET
order (twice the quantity for a reversal) sent to the trading gateway, whose address and key the
platform passes in the environment:

  PROXY_REST_URL            http://host:port/v1
  PROXY_WS_URL              ws://host:port/v1/ws
  PLATFORM_GATEWAY_API_KEY  sent as X-API-Key on REST calls and on the WebSocket upgrade
  PLATFORM_SUBSCRIPTIONS    JSON array of {instrument, events}; the first one with candle_1m is traded

A lost WebSocket is opened again with `resume_from_seq` (see `reconnect`), and no event is lost or
handled twice. Dependencies: the Python 3.11 standard library and `websockets`.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import os
import random
import re
import sys
import time
import urllib.parse
import uuid
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import NoReturn

import websockets

FAST_PERIOD = 10
SLOW_PERIOD = 30
TIMEFRAME = "1m"
CANDLE_EVENT = f"candle_{TIMEFRAME}"

# Quantities and prices stay decimal strings end to end; only the indicator parses closes to floats.
POSITIVE_DECIMAL = re.compile(r"(?=.*[1-9])[0-9]+(\.[0-9]+)?")

# The gateway's retry advice: 500 ms doubling up to 30 s with full jitter, at most 5 attempts or
# 60 s in all, 10 s per request; only these codes (and network failures) are worth retrying.
RETRYABLE_CODES = {"RATE_LIMITED", "PROVIDER_UNAVAILABLE", "PROVIDER_ERROR", "NETWORK_ERROR"}
MAX_ATTEMPTS = 5
RETRY_BUDGET_SECONDS = 60.0
REQUEST_TIMEOUT_SECONDS = 10.0
# A lost socket is opened again on the same schedule, with resume_from_seq; after these close codes
# there is nothing to resume: the end of the run (1000), a gateway shutting down (1001), a failed run.
FINAL_CLOSE_CODES = {1000, 1001, 4001}

log = logging.getLogger("sma-crossover")


@dataclass(frozen=True)
class Config:
    rest_url: str
    ws_url: str
    api_key: str | None
    symbol: str
    quantity: str


def read_config() -> Config:
    """Reads the environment the platform sets; exits with status 2 when something is missing."""

    def fail(message: str) -> NoReturn:
        log.error("%s", message)
        sys.exit(2)

    rest_url = os.environ.get("PROXY_REST_URL") or fail("PROXY_REST_URL is not set")
    ws_url = os.environ.get("PROXY_WS_URL") or fail("PROXY_WS_URL is not set")
    quantity = os.environ.get("ORDER_QUANTITY", "0.01")
    if not POSITIVE_DECIMAL.fullmatch(quantity):
        fail(f'ORDER_QUANTITY must be a positive decimal string such as "0.01", not {quantity!r}')
    try:
        subscriptions = json.loads(os.environ.get("PLATFORM_SUBSCRIPTIONS", "[]"))
    except ValueError:
        fail("PLATFORM_SUBSCRIPTIONS is not valid JSON")
    symbol = next((s["instrument"] for s in subscriptions if CANDLE_EVENT in s.get("events", [])), None)
    if symbol is None:
        fail(f"no subscription includes {CANDLE_EVENT}; subscribe one instrument to it")
    api_key = os.environ.get("PLATFORM_GATEWAY_API_KEY") or None
    return Config(rest_url.rstrip("/"), ws_url, api_key, symbol, quantity)


class GatewayError(Exception):
    """A failed gateway call. `code` is the gateway's ApiError code, or NETWORK_ERROR."""

    def __init__(self, status: int | None, code: str, message: str, details: dict | None = None):
        super().__init__(f"{status or 'no response'} {code}: {message}")
        self.code = code
        self.details = details or {}

    def retry_delay(self, backoff: float) -> float:
        """The gateway's retry_after_seconds, else the time until reset_at, else the backoff."""
        if "retry_after_seconds" in self.details:
            return float(self.details["retry_after_seconds"])
        if "reset_at" in self.details:
            reset_at = datetime.fromisoformat(self.details["reset_at"].replace("Z", "+00:00"))
            return max(0.0, (reset_at - datetime.now(timezone.utc)).total_seconds())
        return backoff


class Gateway:
    """The REST side of the trading gateway; this strategy only submits orders. Requests go over one
    kept-alive HTTP connection: a backtest places thousands of orders, and opening a connection per
    order costs more than the order."""

    def __init__(self, rest_url: str, api_key: str | None):
        url = urllib.parse.urlsplit(rest_url)
        self.host, self.port, self.base_path = url.hostname or "localhost", url.port or 80, url.path
        self.headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self.headers["X-API-Key"] = api_key
        self.connection: http.client.HTTPConnection | None = None

    def _post(self, path: str, body: dict) -> dict:
        data = json.dumps(body)
        for reopened in (False, True):
            reused = self.connection is not None
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=REQUEST_TIMEOUT_SECONDS)
            try:
                self.connection.request("POST", self.base_path + path, body=data, headers=self.headers)
                response = self.connection.getresponse()
                payload = response.read()
                break
            except (http.client.HTTPException, OSError) as error:
                self.connection.close()
                self.connection = None
                # The gateway may have closed an idle kept-alive connection: reopen it once at once.
                if reopened or not reused or not isinstance(error, ConnectionError):
                    raise GatewayError(None, "NETWORK_ERROR", str(error)) from None
        try:
            answer = json.loads(payload)
        except ValueError:
            answer = {}
        if 200 <= response.status < 300:
            return answer
        code = answer.get("code", f"HTTP_{response.status}")
        raise GatewayError(response.status, code, answer.get("message", response.reason), answer.get("details"))

    async def submit_market_order(self, symbol: str, side: str, quantity: str) -> dict:
        """POST /orders, retrying transient failures. Every retry reuses the client_order_id, so a
        request that did reach the gateway returns the existing order instead of placing a second."""
        order = {
            "symbol": symbol,
            "side": side,
            "quantity": quantity,
            "order_type": "MARKET",
            "client_order_id": f"sma-{uuid.uuid4().hex}",
        }
        deadline = time.monotonic() + RETRY_BUDGET_SECONDS
        backoff = 0.5
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                return await asyncio.to_thread(self._post, "/orders", order)
            except GatewayError as error:
                delay = error.retry_delay(random.uniform(0, backoff))
                last_try = attempt == MAX_ATTEMPTS or time.monotonic() + delay > deadline
                if error.code not in RETRYABLE_CODES or last_try:
                    raise
                log.warning("order %s: %s; retrying in %.1f s", order["client_order_id"], error, delay)
                await asyncio.sleep(delay)
                backoff = min(backoff * 2, 30.0)
        raise AssertionError("unreachable")


class SmaCrossover:
    """Keeps both SMAs and a flat/long/short state, and turns crossovers into orders."""

    def __init__(self, gateway: Gateway, symbol: str, quantity: str):
        self.gateway = gateway
        self.symbol = symbol
        self.quantity = quantity
        self.closes: deque[float] = deque(maxlen=SLOW_PERIOD)
        self.position = "flat"
        self.side_of_slow = 0  # +1 fast above slow, -1 below, 0 not known yet

    async def on_bar(self, bar: dict) -> None:
        if bar["symbol"] != self.symbol or bar["timeframe"] != TIMEFRAME:
            return
        self.closes.append(float(bar["close"]))
        if len(self.closes) < SLOW_PERIOD:
            return
        fast = sum(list(self.closes)[-FAST_PERIOD:]) / FAST_PERIOD
        slow = sum(self.closes) / SLOW_PERIOD
        side = (fast > slow) - (fast < slow)
        if side == 0:
            return  # touching is not crossing
        crossed = self.side_of_slow != 0 and side != self.side_of_slow
        self.side_of_slow = side
        if crossed:
            cross = "golden" if side > 0 else "death"
            log.info("%s cross at %s: fast %.6f, slow %.6f", cross, bar["timestamp"], fast, slow)
            await self.move_to("long" if side > 0 else "short")

    async def move_to(self, target: str) -> None:
        """One order for the difference between the position and the target (as backtrader's
        order_target_size does): the quantity from flat, twice the quantity for a reversal, which
        closes the position and opens the opposite one in one fill on a netting account."""
        if self.position == target:
            return
        side = "BUY" if target == "long" else "SELL"
        quantity = self.quantity if self.position == "flat" else str(Decimal(self.quantity) * 2)
        try:
            handle = await self.gateway.submit_market_order(self.symbol, side, quantity)
        except GatewayError as error:
            log.error("%s %s %s failed: %s; staying %s", side, quantity, self.symbol, error, self.position)
            return
        log.info("%s %s %s: %s (order %s)", side, quantity, self.symbol, target, handle.get("id"))
        self.position = target


async def connect(url: str, headers: dict):
    """websockets 14 and later call the header option additional_headers; older releases (such as
    Debian's python3-websockets) call it extra_headers."""
    try:
        return await websockets.connect(url, additional_headers=headers)
    except TypeError:
        return await websockets.connect(url, extra_headers=headers)


async def reconnect(url: str, headers: dict, handled_seq: int):
    """Opens the event stream again after a lost socket, or returns None after MAX_ATTEMPTS tries.
    With resume_from_seq the gateway first sends again every event after that seq (the ones the lost
    socket never delivered, or that were not handled yet), then goes on: no event is lost."""
    url += ("&" if "?" in url else "?") + f"resume_from_seq={handled_seq}"
    backoff = 0.5
    for _ in range(MAX_ATTEMPTS):
        await asyncio.sleep(random.uniform(0, backoff))
        try:
            return await connect(url, headers)
        except (OSError, asyncio.TimeoutError, websockets.WebSocketException) as error:
            log.warning("reconnecting failed: %s", error)
            backoff = min(backoff * 2, 30.0)
    return None


def event_ack(processed: list[str], last_seq: int) -> str:
    return json.dumps(
        {
            "type": "event_ack",
            "correlation_id": str(uuid.uuid4()),
            "events_processed": processed,
            "timestamp": int(time.time() * 1000),
            "last_seq": last_seq,
        }
    )


async def run() -> int:
    config = read_config()
    strategy = SmaCrossover(Gateway(config.rest_url, config.api_key), config.symbol, config.quantity)
    log.info("trading %s on %s candles, SMA(%d)/SMA(%d), %s per order", config.symbol, TIMEFRAME,
             FAST_PERIOD, SLOW_PERIOD, config.quantity)

    headers = {"X-API-Key": config.api_key} if config.api_key else {}
    ws = await connect(config.ws_url, headers)
    handled_seq = 0  # the seq of the last event handled: a resumed connection starts after it
    while True:
        try:
            if handled_seq:
                # A resumed connection. The ack sent last may have been lost with the old socket, and
                # a backtest holds its clock until one arrives: acknowledge what was handled again.
                await ws.send(event_ack([], handled_seq))
            async for message in ws:
                payload = json.loads(message)
                events = payload if isinstance(payload, list) else [payload]  # one event, or a batch
                processed: list[str] = []
                for event in events:
                    kind = event.get("type")
                    if kind == "ping":
                        await ws.send('{"type":"pong"}')
                        continue
                    if "seq" in event and event["seq"] <= handled_seq:
                        continue  # handled before a reconnect (a resume does not send it; be sure)
                    if kind == "connection" and event.get("event") == "DISCONNECTING":
                        log.info("the gateway is disconnecting: the run is over")
                        await ws.close()
                        return 0
                    if kind == "candle":
                        await strategy.on_bar(event["bar"])
                    elif kind == "order" and event.get("event") in ("ORDER_REJECTED", "ORDER_EXPIRED"):
                        order = event["order"]
                        reason = order.get("reject_reason") or ""
                        log.warning("order %s: %s %s", order["id"], event["event"], reason)
                    elif kind == "error":
                        log.warning("gateway error %s: %s", event.get("code"), event.get("message"))
                    if "seq" in event:
                        processed.append(f"{kind}:{event['seq']}")
                        handled_seq = event["seq"]
                if processed:
                    # A backtest holds its simulated clock until this acknowledgment arrives.
                    await ws.send(event_ack(processed, handled_seq))
        except websockets.ConnectionClosed:
            pass
        if ws.close_code == 1000:
            return 0
        if ws.close_code in FINAL_CLOSE_CODES:
            log.error("the gateway closed the connection (close code %s)", ws.close_code)
            return 1
        # Orders go over HTTP, so none is lost with the socket: only the event stream needs resuming.
        log.warning("the connection to the gateway was lost (close code %s); resuming after seq %d",
                    ws.close_code, handled_seq)
        ws = await reconnect(config.ws_url, headers, handled_seq)
        if ws is None:
            log.error("the connection to the gateway was lost and could not be opened again")
            return 1


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s", stream=sys.stdout)
    sys.exit(asyncio.run(run()))
