"""Polite calls to public literature APIs: a shared rate limiter, bounded retries, typed errors.

The online retrievers run in the blocking thread pool, several at a time. Each service gets
one process-wide :class:`RateLimiter`, so two categories fanned out together still keep the
service's minimum interval between requests. Retries back off exponentially on HTTP 429,
5xx and timeouts only; everything else fails at once, because repeating a bad query or an
unreachable host only delays the fallback.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

R = TypeVar("R")


class RetrievalError(Exception):
    """A literature service did not answer usefully after the allowed attempts."""

    def __init__(self, service: str, *, status: int | None, attempts: int, reason: str) -> None:
        self.service = service
        self.status = status
        self.attempts = attempts
        self.reason = reason
        what = f"HTTP {status}" if status is not None else reason
        plural = "attempt" if attempts == 1 else "attempts"
        super().__init__(f"{service}: {what} after {attempts} {plural}")


@dataclass(frozen=True)
class Failure:
    """How one failed attempt is classified."""

    retryable: bool
    status: int | None
    reason: str


class RateLimiter:
    """Keeps successive requests at least ``min_interval_s`` apart, across threads.

    A caller reserves the next free slot under the lock and sleeps outside it, so a
    waiting thread never blocks others from reserving the slot after its own.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next_at: float | None = None

    def wait(
        self,
        min_interval_s: float,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> float:
        """Block until the caller may send a request; return the seconds slept."""
        with self._lock:
            now = clock()
            start = now if self._next_at is None else max(now, self._next_at)
            self._next_at = start + min_interval_s
        delay = start - now
        if delay > 0:
            sleep(delay)
        return delay


_LIMITERS: dict[str, RateLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def limiter_for(service: str) -> RateLimiter:
    """The process-wide limiter of ``service``."""
    with _LIMITERS_LOCK:
        lim = _LIMITERS.get(service)
        if lim is None:
            lim = _LIMITERS[service] = RateLimiter()
        return lim


def reset_limiters() -> None:
    """Forget every limiter's last request (tests that swap in a fake clock use it)."""
    with _LIMITERS_LOCK:
        _LIMITERS.clear()


@dataclass
class Politeness:
    """Retry and pacing policy of one service client."""

    service: str
    min_interval_s: float
    max_retries: int = 3
    backoff_s: float = 2.0
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    limiter: RateLimiter | None = None

    def call(self, fn: Callable[[], R], classify: Callable[[BaseException], Failure | None]) -> R:
        """Run ``fn`` with pacing and bounded retries; raise :class:`RetrievalError` at the end.

        ``max_retries`` counts retries after the first attempt. ``classify`` maps an
        exception of the client library to a :class:`Failure`; exceptions it does not
        recognise (``None``) are bugs and propagate unchanged.
        """
        limiter = self.limiter or limiter_for(self.service)
        attempts = 0
        while True:
            limiter.wait(self.min_interval_s, sleep=self.sleep, clock=self.clock)
            attempts += 1
            try:
                return fn()
            except Exception as exc:
                failure = classify(exc)
                if failure is None:
                    raise
                if not failure.retryable or attempts > self.max_retries:
                    raise RetrievalError(
                        self.service,
                        status=failure.status,
                        attempts=attempts,
                        reason=failure.reason,
                    ) from exc
            # Exponential backoff on top of the limiter's interval: 2 s, 4 s, 8 s by default.
            self.sleep(self.backoff_s * 2 ** (attempts - 1))
