"""The one async fan-out helper and the bounded thread pool for blocking calls."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from generator.llm.timing import join

T = TypeVar("T")
R = TypeVar("R")
P = ParamSpec("P")

_pool: ThreadPoolExecutor | None = None
_pool_size = 4
_semaphores: dict[str, asyncio.Semaphore] = {}


def configure_threads(n: int) -> None:
    """Set the size of the blocking-call pool (takes effect before its first use)."""
    global _pool, _pool_size
    if n < 1:
        raise ValueError("thread pool size must be >= 1")
    if _pool is not None and n != _pool_size:
        _pool.shutdown(wait=False)
        _pool = None
    _pool_size = n


def forget_threads() -> None:
    """In a forked child: drop the parent's pool and semaphores (its threads did not come
    along, so work queued to them would never run); the child makes its own on first use."""
    global _pool
    _pool = None
    _semaphores.clear()


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=_pool_size, thread_name_prefix="scenariogen-io")
    return _pool


async def to_thread(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run a blocking call in the bounded pool, never on the event loop."""
    return await start_thread(fn, *args, **kwargs)


def start_thread(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> asyncio.Future[R]:
    """Start a blocking call in the bounded pool now; await the future for its result.

    Unlike a task wrapping :func:`to_thread`, the call is handed to a thread before this
    returns, so it runs while the caller goes on with work that never yields to the loop.
    """
    loop = asyncio.get_running_loop()
    return loop.run_in_executor(_get_pool(), functools.partial(fn, *args, **kwargs))


def semaphore(name: str, size: int) -> asyncio.Semaphore:
    """A named semaphore, created once per event loop and name."""
    key = f"{name}:{id(asyncio.get_running_loop())}"
    sem = _semaphores.get(key)
    if sem is None:
        sem = _semaphores[key] = asyncio.Semaphore(size)
    return sem


async def fan_out(
    items: Iterable[T],
    fn: Callable[[T], Awaitable[R]],
    *,
    limit: int | None = None,
) -> list[R]:
    """Apply ``fn`` to every item concurrently; results keep input order.

    The first exception cancels the others and is raised (unwrapped from the
    ``ExceptionGroup`` when it is the only one), so callers see the real error.
    """
    seq = list(items)
    results: list[R | None] = [None] * len(seq)
    gate = asyncio.Semaphore(limit) if limit else None

    async def run(i: int, item: T) -> None:
        if gate is None:
            results[i] = await fn(item)
            return
        async with gate:
            results[i] = await fn(item)

    tasks: list[asyncio.Task[None]] = []
    try:
        async with asyncio.TaskGroup() as tg:
            for i, item in enumerate(seq):
                tasks.append(tg.create_task(run(i, item)))
    except BaseExceptionGroup as group:
        first: BaseException = group
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        raise first from None
    # The caller awaited every item: the LLM calls they observed are its dependencies too.
    join(tasks)
    return results  # type: ignore[return-value]
