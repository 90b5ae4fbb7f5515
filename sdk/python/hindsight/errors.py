"""Typed errors: the protocol's ApiError as an exception, and the SDK's own failures."""

from __future__ import annotations

from typing import Any


class HindsightError(Exception):
    """A failed gateway call: the protocol's `code`, the HTTP `status` (None when there was no
    answer: NETWORK_ERROR, TIMEOUT), `message` and `details`. Branch on `code`, never on `message`."""

    def __init__(self, code: str, status: int | None, message: str, details: dict[str, Any] | None = None):
        super().__init__(f"{status if status is not None else 'no response'} {code}: {message}")
        self.code = code
        self.status = status
        self.message = message
        self.details: dict[str, Any] = details or {}

    @classmethod
    def from_response(cls, status: int, body: Any) -> HindsightError:
        """The error of a non-2xx answer; its body is the ApiError `{code, message, details?}`."""
        if isinstance(body, dict) and isinstance(body.get("code"), str):
            return cls(body["code"], status, str(body.get("message", "")), body.get("details"))
        return cls(f"HTTP_{status}", status, "the gateway answered without an ApiError body")


class ConnectionLost(HindsightError):
    """The event stream could not be kept open (reconnecting failed, or the gateway refused to resume)."""

    def __init__(self, message: str, details: dict[str, Any] | None = None):
        super().__init__("CONNECTION_LOST", None, message, details)


class ParamError(ValueError):
    """A parameter's environment variable does not parse as the parameter's type."""

    def __init__(self, variable: str, message: str):
        super().__init__(f"{variable}: {message}")
        self.variable = variable
