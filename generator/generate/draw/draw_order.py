"""The order of the single domains' draws on the LLM path (one at a time, by priority).

A draw from the fleet snapshot is CPU work that never suspends. Run as many concurrent
tasks, every queued draw of every domain runs before a domain whose batch is drawn gets to
send its LLM call, so the first calls of all domains go out together, after all the first
draws. Taking turns through a :class:`PriorityGate` instead, the domain on the longest
LLM chain draws first (:func:`draw_ranks`) and each batch's call goes out as soon as its
own draws are done, while the other domains draw. What is drawn is unchanged: a draw is a
function of its domain and candidate index (and the run seed), whatever the order.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from generator.generate.model import TaskSeed
    from generator.generate.run.domain_run import Drawer


class PriorityGate:
    """A lock whose waiters are served lowest rank first (first come first within a rank).

    The gate is handed over one loop step after it frees (``call_soon``), so the draws
    queued in the same step all wait and the best of them gets it, not merely the first
    to run.
    """

    def __init__(self) -> None:
        self._busy = False
        self._handing = False
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    async def acquire(self, rank: int) -> None:
        """Wait for the gate (cancellation-safe: a cancelled waiter never holds it)."""
        loop = asyncio.get_running_loop()
        granted: asyncio.Future[None] = loop.create_future()
        heapq.heappush(self._waiters, (rank, next(self._order), granted))
        self._hand_over_soon(loop)
        try:
            await granted
        except asyncio.CancelledError:
            if granted.done() and not granted.cancelled():
                self.release()  # handed over just before the cancellation: pass it on
            raise

    def release(self) -> None:
        """Free the gate; the best waiter gets it one loop step later."""
        self._busy = False
        self._hand_over_soon(asyncio.get_running_loop())

    def _hand_over_soon(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self._busy and not self._handing:
            self._handing = True
            loop.call_soon(self._hand_over)

    def _hand_over(self) -> None:
        self._handing = False
        if self._busy:
            return
        while self._waiters:
            _, _, granted = heapq.heappop(self._waiters)
            if not granted.done():
                granted.set_result(None)
                self._busy = True
                return


def draw_ranks(
    quotas: Mapping[str, int], parents: Iterable[str], order: Iterable[str]
) -> dict[str, int]:
    """Rank 0 draws first: domains a multi-agent family composes from (multi-agent waits
    for their accepted seeds), then larger quotas (more batches), then ``order``."""
    parent_set = set(parents)
    ranked = sorted(
        enumerate(order),
        key=lambda io: (io[1] not in parent_set, -quotas.get(io[1], 0), io[0]),
    )
    return {domain: rank for rank, (_, domain) in enumerate(ranked)}


def taking_turns(drawer: Drawer, gate: PriorityGate, rank: int) -> Drawer:
    """``drawer`` whose calls hold ``gate`` (at ``rank``) while they compute.

    The gate is held for the draw's first step only: all of a draw that never waits, but a
    draw that waits (e.g. for a model loading in a worker thread) frees the gate for the
    others meanwhile and finishes outside it.
    """

    async def draw(domain: str, candidate: int) -> TaskSeed | None:
        await gate.acquire(rank)
        try:
            task = asyncio.ensure_future(drawer(domain, candidate))
            try:
                await asyncio.sleep(0)  # the draw's first step runs before this resumes
            except BaseException:
                task.cancel()
                raise
        finally:
            gate.release()
        return await task

    return draw
