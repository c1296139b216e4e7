"""Multi-agent seeds without rejection blow-up: a deterministic stream of distinct tasks.

A multi-agent family composes from a seed of its parent family (``compose_from``). Slot
``d`` used to compose from the ``d``-th accepted parent and, past the accepted ones, from
the parent's own draw ``d``: those are mostly parents already used, so the composed tasks
repeated accepted ones and the domain rejected them, ever more often as the distinct
combinations ran out (about 8 draws per accepted seed at n = 3000, super-linear growth).

:class:`ComposedSeeds` instead enumerates the family's *distinct* composed tasks once, in a
fixed order, and slot ``d`` takes the ``d``-th of them:

1. candidate parents: the accepted parent seeds in acceptance order, then the parent
   family's own draws ``0, 1, 2, …`` whose task (family + parameters) is not among the
   parents already listed;
2. candidate ``i`` composes the family's draw ``i`` from candidate parent ``i``; a draw that
   is unusable (``None``) or whose task repeats an earlier listed one is passed over.

The stream is a pure function of the run seed, the store and the accepted parents (which
are final when multi-agent starts), so any concurrency gives the same slots and a resumed
run the same seeds. After ``max_misses`` consecutive candidates that add nothing the stream
ends: the remaining distinct combinations are taken as exhausted and later slots are
``None`` (counted as unavailable draws, cheaply, instead of drawn and rejected).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from generator.generate.draw.families import EXTRA_BASE, EXTRA_DRAWS, Task, params_key
from generator.generate.model import TaskSeed

# Consecutive candidates adding no new task after which the stream is taken as exhausted.
MAX_MISSES = 256

Compose = Callable[[TaskSeed, int], Awaitable[TaskSeed | None]]
DrawParent = Callable[[int], Awaitable[TaskSeed | None]]
DrawOwn = Callable[[int], Awaitable[TaskSeed | None]]
PeekOwn = Callable[[int], Awaitable[Task | None]]
WaitPool = Callable[[int], Awaitable[None]]


class ComposedSeeds:
    """The distinct composed tasks of one multi-agent family, listed lazily in order.

    Multi-agent may start while the parent family's domain still runs: ``pool`` is then the
    live list of its accepted seeds (growing in stream order) and ``wait_pool(i)`` returns
    once the pool holds ``i + 1`` seeds or the parent's domain has finished. Candidate ``i``
    waits for it, so the stream is the same whenever multi-agent starts.

    Args:
        pool: Accepted seeds of the parent family, in acceptance order (read live).
        compose: Composes the family's draw ``i`` from a parent seed.
        draw_parent: Draws the parent family's seed ``j`` (None when unusable).
        draw_own: Draws index ``i`` the old way (the family draws its parent itself); used
            for the extra indices of a slot designated non-trivial (``>= EXTRA_BASE``).
        max_misses: See :data:`MAX_MISSES`.
        wait_pool: See above; None when ``pool`` is final.
        peek_own: What ``draw_own`` would give before its interpretation gate
            (:func:`~generator.generate.draw.families.peek_seed`); default ``draw_own``.
    """

    def __init__(
        self,
        pool: list[TaskSeed],
        compose: Compose,
        draw_parent: DrawParent,
        draw_own: DrawOwn,
        *,
        max_misses: int = MAX_MISSES,
        wait_pool: WaitPool | None = None,
        peek_own: PeekOwn | None = None,
        took_parent: Callable[[TaskSeed], None] | None = None,
    ) -> None:
        self.pool = pool
        self.wait_pool = wait_pool
        # Told of each accepted parent taken from the pool (the LLM call graph: a composed
        # seed depends on the calls that got its parent accepted).
        self.took_parent = took_parent
        self.compose = compose
        self.draw_parent = draw_parent
        self.draw_own = draw_own
        self.peek_own: PeekOwn = peek_own or draw_own
        self.max_misses = max_misses
        self.seeds: list[TaskSeed] = []
        self.candidates = 0  # candidate index i (also the family's draw index)
        self.exhausted = False
        self._tasks: set[str] = set()
        self._parents: set[str] | None = None  # the final pool's tasks, once known
        self._parent_draw = 0
        self._misses = 0
        self._lock = asyncio.Lock()

    async def _next_parent(self) -> TaskSeed | None:
        """Candidate parent ``self.candidates``: a pool seed, else the next new own draw."""
        i = self.candidates
        if self.wait_pool is not None and i >= len(self.pool):
            await self.wait_pool(i)
        if i < len(self.pool):
            if self.took_parent is not None:
                self.took_parent(self.pool[i])
            return self.pool[i]
        if self._parents is None:  # the pool is final from here on
            self._parents = {params_key(p) for p in self.pool}
        while self._misses < self.max_misses:
            j = self._parent_draw
            self._parent_draw += 1
            parent = await self.draw_parent(j)
            if parent is None or params_key(parent) in self._parents:
                self._misses += 1
                continue
            self._parents.add(params_key(parent))
            return parent
        return None

    async def _extend(self) -> None:
        """List one more distinct task, or mark the stream exhausted."""
        while not self.exhausted:
            if self._misses >= self.max_misses:
                self.exhausted = True
                return
            parent = await self._next_parent()
            if parent is None:
                self.exhausted = True
                return
            i = self.candidates
            self.candidates += 1
            seed = await self.compose(parent, i)
            if seed is None or params_key(seed) in self._tasks:
                self._misses += 1
                continue
            self._misses = 0
            self._tasks.add(params_key(seed))
            self.seeds.append(seed)
            return

    async def get(self, draw: int) -> TaskSeed | None:
        """The seed of draw ``draw``: the ``draw``-th distinct task (None past the end).

        Extra indices of a designated slot (``>= EXTRA_BASE``) draw as before, except for a
        slot past the end of the stream (the distinct tasks are exhausted): None, instead
        of 48 draws that could only repeat.
        """
        if draw >= EXTRA_BASE:
            return await self.draw_own(draw) if await self._has_slot_of(draw) else None
        async with self._lock:
            while len(self.seeds) <= draw and not self.exhausted:
                await self._extend()
        return self.seeds[draw] if draw < len(self.seeds) else None

    async def peek(self, draw: int) -> Task | None:
        """What :meth:`get` gives before the interpretation gate (see
        :func:`~generator.generate.draw.families.draw_for_slot`): a stream seed as it is, an extra
        index's probe."""
        if draw >= EXTRA_BASE:
            return await self.peek_own(draw) if await self._has_slot_of(draw) else None
        return await self.get(draw)

    async def _has_slot_of(self, draw: int) -> bool:
        """True when the slot of an extra index is within the stream (listed up to it)."""
        slot = (draw - EXTRA_BASE) // EXTRA_DRAWS
        async with self._lock:
            while len(self.seeds) <= slot and not self.exhausted:
                await self._extend()
        return slot < len(self.seeds)
