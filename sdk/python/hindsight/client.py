"""The wire client: one WebSocket to the gateway that carries the events, REST calls as `request`
frames, pongs and acknowledgments, and that is reopened with `resume_from_seq` when it is lost."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import websockets
from websockets.exceptions import ConnectionClosed, WebSocketException

from .errors import ConnectionLost, HindsightError
from .retry import with_retries

REQUEST_TIMEOUT_SECONDS = 10.0
# The client of the installed websockets (legacy in 10 to 13, the new asyncio one from 14).
_connect: Any = getattr(websockets, "connect")  # noqa: B009 - a lazy attribute type checkers miss
# Close codes after which there is nothing to resume: the end of the run, a shutdown, a failed run.
FINAL_CLOSE_CODES = frozenset({1000, 1001, 4001})


@dataclass(frozen=True)
class StreamEnd:
    """Queued after the last event: the socket closed for good (`code`), or `error` if it was lost."""

    code: int | None
    error: HindsightError | None = None


@dataclass
class _Pending:
    frame: dict[str, Any]
    answer: asyncio.Future[tuple[int, Any]]
    sent_on: int = -1  # the connection generation it was sent on


async def _open_socket(url: str, headers: dict[str, str]) -> Any:
    """websockets 14 and later name the header option additional_headers; older releases (Debian's
    python3-websockets 10) extra_headers."""
    options: dict[str, Any] = {"ping_interval": None, "max_size": 2**24, "open_timeout": REQUEST_TIMEOUT_SECONDS}
    try:
        return await _connect(url, additional_headers=headers, **options)
    except TypeError:
        return await _connect(url, extra_headers=headers, **options)


def _upgrade_error(error: BaseException) -> HindsightError:
    """A failed WebSocket opening as a HindsightError (NETWORK_ERROR and TIMEOUT are retried)."""
    status = getattr(error, "status_code", None)
    response = getattr(error, "response", None)
    if status is None and response is not None:
        status = getattr(response, "status_code", None)
    if isinstance(status, int):
        codes = {400: "INVALID_VALUE", 401: "UNAUTHORIZED", 429: "RATE_LIMITED", 503: "PROVIDER_UNAVAILABLE"}
        return HindsightError(codes.get(status, f"HTTP_{status}"), status, f"the WebSocket upgrade was refused: {error}")
    if isinstance(error, asyncio.TimeoutError):
        return HindsightError("TIMEOUT", None, "opening the WebSocket timed out")
    return HindsightError("NETWORK_ERROR", None, f"could not open the WebSocket: {error}")


class WireClient:
    """Events go to `events` in `seq` order, each once (a resumed connection's replay is skipped up
    to the last seq received); the runner reports what it handled and acknowledges with `ack()`."""

    def __init__(self, url: str, api_key: str | None, log: Callable[[str], None]):
        self.url = url
        self.headers = {"X-API-Key": api_key} if api_key else {}
        self.log = log
        self.events: asyncio.Queue[dict[str, Any] | StreamEnd] = asyncio.Queue()
        self.received_seq = 0
        self.handled_seq = 0
        self.acked_seq = 0
        self.reconnects = 0
        self._ws: Any = None
        self._generation = 0
        self._connected = asyncio.Event()
        self._pending: dict[str, _Pending] = {}
        self._requests = 0
        self._reader: asyncio.Task[None] | None = None
        self._closing = False
        self._ending = False

    async def connect(self) -> None:
        """Opens the stream (retrying network failures); the run starts now."""
        self._ws = await with_retries(lambda: self._open(None), what="connecting", log=self.log)
        self._connected.set()
        self._reader = asyncio.create_task(self._read_loop())

    async def _open(self, resume_from_seq: int | None) -> Any:
        url = self.url
        if resume_from_seq is not None:
            url += ("&" if "?" in url else "?") + f"resume_from_seq={resume_from_seq}"
        try:
            return await _open_socket(url, self.headers)
        except (OSError, asyncio.TimeoutError, WebSocketException) as error:
            raise _upgrade_error(error) from None

    async def _read_loop(self) -> None:
        try:
            await self._read_frames()
        except Exception as error:  # noqa: BLE001 - a fault here must end the run, not hang it
            failure = HindsightError("INTERNAL_ERROR", None, f"the SDK's reader failed: {error!r}")
            self.events.put_nowait(StreamEnd(None, failure))

    async def _read_frames(self) -> None:
        while True:
            ws = self._ws
            try:
                async for raw in ws:
                    await self._on_frame(raw)
            except ConnectionClosed:
                pass
            if self._closing:
                return
            code = ws.close_code
            if self._ending or code in FINAL_CLOSE_CODES:
                self.events.put_nowait(StreamEnd(code))
                return
            if not await self._reconnect(code):
                return

    async def _reconnect(self, code: int | None) -> bool:
        """Reopens the stream after the last handled seq and re-sends the requests still unanswered."""
        self._connected.clear()
        self.log(f"the connection was lost (close code {code}); reconnecting")
        try:
            self._ws = await with_retries(
                lambda: self._open(self.handled_seq),
                what="reconnecting",
                log=self.log,
            )
        except HindsightError as error:
            lost = ConnectionLost(f"the connection was lost and could not be reopened: {error}")
            for pending in self._pending.values():
                if not pending.answer.done():
                    pending.answer.set_exception(lost)
            self.events.put_nowait(StreamEnd(code, lost))
            return False
        self.reconnects += 1
        self._generation += 1
        self.acked_seq = 0  # an ack sent on the lost connection may never have arrived
        self.log(f"reconnected with resume_from_seq={self.handled_seq}")
        self._connected.set()
        for pending in list(self._pending.values()):
            if pending.sent_on != self._generation and not pending.answer.done():
                pending.sent_on = self._generation
                await self._send(pending.frame)
        return True

    async def _on_frame(self, raw: str | bytes) -> None:
        try:
            payload = json.loads(raw)
        except ValueError:
            self.log(f"ignored a frame that is not JSON: {str(raw)[:200]!r}")
            return
        for event in payload if isinstance(payload, list) else [payload]:
            kind = event.get("type")
            if kind == "ping":
                await self._send({"type": "pong"})
                continue
            request_id = event.get("request_id")
            if kind == "error" and isinstance(event.get("details"), dict):
                request_id = event["details"].get("request_id")
            if kind in ("response", "error") and request_id in self._pending:
                self._answer(request_id, event)
                continue
            seq = event.get("seq")
            if isinstance(seq, int):
                if seq <= self.received_seq:
                    continue  # already received: replayed by a resume
                self.received_seq = seq
            if kind == "connection" and event.get("event") == "DISCONNECTING":
                self._ending = True
            self.events.put_nowait(event)

    def _answer(self, request_id: str, event: dict[str, Any]) -> None:
        pending = self._pending[request_id]
        if pending.answer.done():
            return
        if event["type"] == "response":
            pending.answer.set_result((int(event["status"]), event.get("body")))
        else:  # the gateway could not use the frame (an SDK fault) or failed running it
            status = 500 if event.get("code") == "INTERNAL_ERROR" else 400
            pending.answer.set_result((status, {k: event.get(k) for k in ("code", "message", "details")}))

    async def _send(self, frame: dict[str, Any]) -> None:
        """Sends a frame; on a lost connection it is dropped (requests are re-sent after reconnecting)."""
        ws = self._ws
        if ws is None or not self._connected.is_set():
            return
        try:
            await ws.send(json.dumps(frame, separators=(",", ":")))
        except ConnectionClosed:
            pass

    async def request_once(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One REST call over the socket: its HTTP status and body."""
        self._requests += 1
        request_id = f"r-{self._requests}"
        frame: dict[str, Any] = {"type": "request", "request_id": request_id, "method": method, "path": path}
        if body is not None:
            frame["body"] = body
        pending = _Pending(frame, asyncio.get_running_loop().create_future())
        self._pending[request_id] = pending
        try:
            if self._connected.is_set():
                pending.sent_on = self._generation
                await self._send(frame)
            return await asyncio.wait_for(asyncio.shield(pending.answer), REQUEST_TIMEOUT_SECONDS)
        except asyncio.TimeoutError:
            raise HindsightError("TIMEOUT", None, f"{method} {path}: no answer in {REQUEST_TIMEOUT_SECONDS:g} s") from None
        finally:
            del self._pending[request_id]

    async def call(self, method: str, path: str, body: Any = None) -> Any:
        """A REST call with the protocol's retries; the success body, else a HindsightError."""

        async def attempt() -> Any:
            status, answer = await self.request_once(method, path, body)
            if 200 <= status < 300:
                return answer
            raise HindsightError.from_response(status, answer)

        return await with_retries(attempt, what=f"{method} {path}", log=self.log)

    def handled(self, seq: int) -> None:
        if seq > self.handled_seq:
            self.handled_seq = seq

    @property
    def idle(self) -> bool:
        """Whether every event received so far has been handled."""
        return self.events.empty()

    async def ack(self) -> None:
        """`event_ack` with `last_seq` = the last handled seq, unless it was acknowledged already."""
        if self.handled_seq > self.acked_seq and self._connected.is_set():
            self.acked_seq = self.handled_seq
            await self._send({"type": "event_ack", "correlation_id": f"ack-{self.acked_seq}", "last_seq": self.acked_seq})

    async def close(self) -> None:
        self._closing = True
        if self._ws is not None:
            try:
                await self._ws.close()
            except Exception:  # noqa: BLE001 - closing a socket that is gone already
                pass
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):  # noqa: BLE001
                pass
