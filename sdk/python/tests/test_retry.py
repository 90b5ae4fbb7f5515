"""The retry schedule: what is retried, the hinted delays, the attempt limit."""

import asyncio
import random
import unittest

from hindsight import HindsightError
from hindsight.retry import backoff_delays, hinted_delay, is_retryable, with_retries


class RetryTest(unittest.TestCase):
    def test_what_is_retried(self) -> None:
        for code in ("RATE_LIMITED", "PROVIDER_ERROR", "PROVIDER_UNAVAILABLE", "NETWORK_ERROR"):
            self.assertTrue(is_retryable(HindsightError(code, 503, "")))
        for code in ("INVALID_VALUE", "ORDER_NOT_FOUND", "INTERNAL_ERROR", "SHUTTING_DOWN"):
            self.assertFalse(is_retryable(HindsightError(code, 400, "")))
        self.assertFalse(is_retryable(HindsightError("ORDER_REJECTED", 422, "insufficient margin")))
        self.assertTrue(is_retryable(HindsightError("ORDER_REJECTED", 422, "Self-Trade prevented")))

    def test_delays(self) -> None:
        self.assertEqual(backoff_delays(), [0.5, 1.0, 2.0, 4.0])
        self.assertEqual(hinted_delay(HindsightError("RATE_LIMITED", 429, "", {"retry_after_seconds": 7})), 7.0)
        self.assertIsNone(hinted_delay(HindsightError("PROVIDER_ERROR", 502, "")))

    def test_five_attempts_then_the_error(self) -> None:
        attempts: list[int] = []
        slept: list[float] = []

        async def fail() -> None:
            attempts.append(1)
            raise HindsightError("RATE_LIMITED", 429, "slow down", {"retry_after_seconds": 1})

        async def sleep(seconds: float) -> None:
            slept.append(seconds)

        with self.assertRaises(HindsightError):
            asyncio.run(with_retries(fail, what="x", log=lambda _: None, sleep=sleep, rng=random.Random(1)))
        self.assertEqual(len(attempts), 5)
        self.assertEqual(len(slept), 4)
        self.assertTrue(all(1.0 <= s <= 1.1 for s in slept))

    def test_a_non_retryable_error_is_raised_at_once(self) -> None:
        attempts: list[int] = []

        async def fail() -> None:
            attempts.append(1)
            raise HindsightError("INVALID_VALUE", 400, "no")

        with self.assertRaises(HindsightError):
            asyncio.run(with_retries(fail, what="x", log=lambda _: None))
        self.assertEqual(len(attempts), 1)


if __name__ == "__main__":
    unittest.main()
