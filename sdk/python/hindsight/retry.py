"""The protocol's retry schedule (docs/protocol.md, Errors and retries) and its loop."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from typing import TypeVar

from .errors import HindsightError

T = TypeVar("T")

RETRYABLE_CODES = frozenset({"RATE_LIMITED", "PROVIDER_ERROR", "PROVIDER_UNAVAILABLE", "NETWORK_ERROR", "TIMEOUT"})
FIRST_DELAY = 0.5
MAX_DELAY = 30.0
MAX_ATTEMPTS = 5
BUDGET_SECONDS = 60.0


def is_retryable(error: HindsightError) -> bool:
    """RATE_LIMITED, PROVIDER_ERROR, PROVIDER_UNAVAILABLE and lost answers; an ORDER_REJECTED only
    when it is transient (`self-trade` or `wash` in its message or passthrough reject_code)."""
    if error.code in RETRYABLE_CODES:
        return True
    if error.code == "ORDER_REJECTED":
        text = f"{error.message} {error.details.get('reject_code', '')}".lower()
        return "self-trade" in text or "wash" in text
    return False


def hinted_delay(error: HindsightError, now: datetime | None = None) -> float | None:
    """The gateway's own advice: `details.retry_after_seconds`, else the time until `details.reset_at`."""
    after = error.details.get("retry_after_seconds")
    if isinstance(after, (int, float)) and not isinstance(after, bool) and after >= 0:
        return float(after)
    reset_at = error.details.get("reset_at")
    if isinstance(reset_at, str):
        try:
            moment = datetime.fromisoformat(reset_at.replace("Z", "+00:00"))
        except ValueError:
            return None
        return max(0.0, (moment - (now or datetime.now(timezone.utc))).total_seconds())
    return None


def backoff_delays() -> list[float]:
    """The ceilings of the delays before attempts 2..5: 500 ms doubling, at most 30 s."""
    return [min(FIRST_DELAY * 2**n, MAX_DELAY) for n in range(MAX_ATTEMPTS - 1)]


async def with_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    what: str,
    log: Callable[[str], None],
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    rng: random.Random | None = None,
) -> T:
    """Runs `attempt` until it succeeds, or fails with an error that is not retryable, or the schedule
    is spent (5 attempts or 60 s). A hinted delay is used as given (plus up to 100 ms of jitter);
    otherwise full jitter: a random delay between 0 and the current ceiling."""
    chance = rng or random
    started = time.monotonic()
    ceilings = backoff_delays()
    for number in range(1, MAX_ATTEMPTS + 1):
        try:
            return await attempt()
        except HindsightError as error:
            if not is_retryable(error) or number == MAX_ATTEMPTS:
                raise
            hint = hinted_delay(error)
            delay = hint + chance.uniform(0, 0.1) if hint is not None else chance.uniform(0, ceilings[number - 1])
            if time.monotonic() - started + delay > BUDGET_SECONDS:
                raise
            after = error.details.get("retry_after_seconds")
            source = f"retry_after_seconds={after}" if after is not None else "hinted" if hint is not None else "backoff"
            log(f"{what}: {error.code}; retrying in {delay:.2f} s ({source}, attempt {number + 1} of {MAX_ATTEMPTS})")
            await sleep(delay)
    raise AssertionError("unreachable")
