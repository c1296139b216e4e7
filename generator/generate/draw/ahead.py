"""Family lanes made ahead in worker processes, on the cores the run's event loop leaves idle.

The slots of a family that draws on its own (not composed from accepted parent seeds) are a
function of the run seed, the family and the pinned fleet snapshot alone
(:func:`~generator.generate.draw.lanes.slot_seed`: each slot depends on its draws and on the
family's earlier slots, never on what the run accepted). So a worker process, forked from
the run once the snapshot is read (it shares the snapshot, the profile and the
registries), makes a family's slots in order, a few chunks ahead of the run, while the run
vets, words and writes. The run takes slot ``k`` when it reaches it, exactly as if it had
made slots ``0..k`` itself:

- it records the drops that making those slots recorded (gated readings, refused calls),
  and only for the slots it reached, so the run's counts do not depend on the workers;
- it primes its tool memo with the outputs of each slot seed's calls (the recompute check
  derives from them).

A family the run has made for a while can go to a worker from the slot the run reached: the
lane's state (:class:`~generator.generate.draw.lanes.LaneState`) is all the later slots depend
on besides their draws. A family's plain draws (``draw_seed`` at an index, which a
multi-agent stream makes of its parent family) are functions of the index alone and go to a
worker the same way, each with every drop it records.

Nothing here decides anything. A worker error or a broken pool hands the family back to the
run, which makes its slots itself from where it has them, with the same results (and sees
the error, if it is a real one).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import os
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from generator.concurrency import forget_threads

if TYPE_CHECKING:
    from generator.generate.checks.checks import CheckOutcome
    from generator.generate.draw.families import FamilyContext
    from generator.generate.draw.lanes import LaneState, SlotSeeds
    from generator.generate.model import Draft, TaskSeed

# Chunks a worker may have waiting before the run keeps a new family (DrawAhead._lane).
MAX_BACKLOG = 8
# A family the run kept goes to a worker with fewer chunks than this waiting.
IDLE_BACKLOG = 2
# The run takes a family back when the chunk it waits for is queued behind this many.
BEHIND_BACKLOG = 4
# Slots of a family asked of a worker at a time, and how far ahead of the run's slot the
# asked slots reach before more are asked.
CHUNK_SLOTS = 4
AHEAD_SLOTS = 4
# The same for a family's plain draws (the parent draws of a multi-agent stream).
CHUNK_DRAWS = 8
AHEAD_DRAWS = 16

# Worded and vetted slot seeds the run holds for the drafts it has not vetted yet.
MAX_PREVETTED = 4096

PR_SET_PDEATHSIG = 1  # prctl(2)

Drop = tuple[str, str, int]  # (family, reason, draw index), as FamilyContext.record_drop


@dataclass(frozen=True)
class Prevetted:
    """A slot seed's first template draft and the outcomes of the checks a worker can tell
    (all but those reading the run's state, see ``checks.reads_run_state``)."""

    draft: Draft
    outcomes: dict[str, CheckOutcome]


Prevet = Callable[["TaskSeed"], Awaitable[Prevetted]]


@dataclass(frozen=True)
class SlotMade:
    """One slot of a family made in a worker, and what making it recorded."""

    seed: TaskSeed | None
    drops: tuple[Drop, ...]
    outputs: list[dict[str, Any]] | None  # the seed's tool outputs, in call order
    # the family's draw at the slot's own index, when making the slot drew it (a
    # multi-agent stream draws its parent family's indices 0, 1, 2... too)
    base_draw: tuple[int, TaskSeed | None] | None = None
    after: tuple[int, int] = (0, 0)  # the lane's dry and stale run lengths after the slot
    prevet: Prevetted | None = None  # on the template path: the seed's draft, vetted


def default_workers() -> int:
    """None: the run draws in its own process unless ``--draw-workers N`` asks for workers.

    Measured as whole commands on 2 cores (issue 31; alternating runs, median of 3,
    ``generate -n 1000`` of the default class, identical output): one fork worker 28.97 s wall and
    28.1 s CPU, in-process 23.52 s and 21.2 s; the workers' start-up and hand-offs cost
    more than the drawing they take over.
    """
    return 0


# -- in the worker process -------------------------------------------------------------

# The run's family context, set before the workers are forked; each worker uses its copy.
_CTX: FamilyContext | None = None
_LANES: SlotSeeds | None = None
_LOOP: asyncio.AbstractEventLoop | None = None
# On the template path: words and vets a slot seed as the run would (its first draft).
_PREVET: Prevet | None = None
# A worker's context for plain draws: its own memo, so every draw records all its drops.
_DRAW_CTX: FamilyContext | None = None


def _start_worker(run_pid: int) -> None:
    global _LOOP, _LANES
    from generator.generate.draw.lanes import SlotSeeds

    _die_with_the_run(run_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run's to handle
    forget_threads()
    _LANES = SlotSeeds()
    _LOOP = asyncio.new_event_loop()


def _die_with_the_run(run_pid: int) -> None:
    """End the worker when the run's process ends, even by SIGKILL (Linux: the parent-death
    signal). A worker left behind would wait for work for ever: it holds its own queue's
    write end, so it never sees the end of it."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the pool's own shutdown is all there is
        return
    if os.getppid() != run_pid:  # the run ended before the signal was set
        os._exit(0)


def _noop() -> None:
    return None


def _make_slots(
    family: str, share: float, start: int, stop: int, resume: LaneState | None, vet: bool
) -> list[SlotMade]:
    assert _CTX is not None and _LANES is not None and _LOOP is not None
    made = _LOOP.run_until_complete(
        make_slots(_CTX, _LANES, family, share, start, stop, resume)
    )
    if _PREVET is None or not vet:
        return made
    prevet = _PREVET
    return [
        m if m.seed is None else replace(m, prevet=_LOOP.run_until_complete(prevet(m.seed)))
        for m in made
    ]


def _make_draws(family: str, start: int, stop: int) -> list[SlotMade]:
    global _DRAW_CTX
    assert _CTX is not None and _LOOP is not None
    if _DRAW_CTX is None:
        _DRAW_CTX = _CTX.fresh()
    return _LOOP.run_until_complete(make_draws(_DRAW_CTX, family, start, stop))


async def make_draws(ctx: FamilyContext, family: str, start: int, stop: int) -> list[SlotMade]:
    """Draws ``start..stop-1`` of ``family`` (``draw_seed``), each with the drops making it
    recorded. ``ctx`` must not have made these draws before (a kept draw records nothing)."""
    from generator.generate.draw.families import FAMILIES, draw_seed

    spec = FAMILIES.get(family)
    made = []
    for draw in range(start, stop):
        with ctx.capturing_drops() as drops:
            seed = await draw_seed(spec, ctx, draw)
        outputs = None if seed is None else await ctx.run(seed.tool_sequence)
        made.append(SlotMade(seed, tuple(drops), outputs, (draw, seed)))
    return made


async def make_slots(
    ctx: FamilyContext,
    lanes: SlotSeeds,
    family: str,
    share: float,
    start: int,
    stop: int,
    resume: LaneState | None = None,
) -> list[SlotMade]:
    """Slots ``start..stop-1`` of ``family``, made as the run makes them (earlier slots
    first, in ``lanes``), each with the drops recorded while it was made. ``resume``: the
    lane as the run left it (a family the run made up to ``resume.slot``, then handed over)."""
    from generator.generate.draw.families import FAMILIES, draw_seed, peek_seed
    from generator.generate.draw.lanes import slot_seed

    spec = FAMILIES.get(family)
    if resume is not None:
        lanes.resume(family, resume)

    async def one(draw: int) -> TaskSeed | None:
        return await draw_seed(spec, ctx, draw)

    async def peek(draw: int, trivial_unwanted: bool) -> Any:
        return await peek_seed(spec, ctx, draw, trivial_unwanted=trivial_unwanted)

    made = []
    for slot in range(start, stop):
        with ctx.capturing_drops() as drops:
            seed = await slot_seed(lanes, spec, slot, share, one, peek)
        outputs = None if seed is None else await ctx.run(seed.tool_sequence)
        drawn, base = ctx.kept_draw(family, slot)
        made.append(SlotMade(
            seed, tuple(drops), outputs, (slot, base) if drawn else None,
            after=lanes.runs(family),
        ))
    return made


# -- in the run ------------------------------------------------------------------------


@dataclass
class _Lane:
    """A family's slots as the run sees them: made by a worker, taken by the run."""

    pool: concurrent.futures.ProcessPoolExecutor
    share: float
    start: LaneState  # the lane when the workers took it: their first slot is start.slot
    made: list[SlotMade] = field(default_factory=list)  # slots start.slot, start.slot + 1...
    asked: list[concurrent.futures.Future[list[SlotMade]]] = field(default_factory=list)
    asked_to: int = 0  # slots asked for so far
    taken: int = 0  # slots whose drops and outputs the run has recorded
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def __post_init__(self) -> None:
        self.asked_to = self.taken = self.start.slot


@dataclass
class _DrawLane:
    """A family's plain draws as the run sees them: made by a worker, taken by the run."""

    pool: concurrent.futures.ProcessPoolExecutor
    asked_to: int  # draws asked for so far (the lane starts at the first draw asked)
    made: dict[int, SlotMade] = field(default_factory=dict)  # made and not taken yet
    asked: list[tuple[int, concurrent.futures.Future[list[SlotMade]]]] = field(
        default_factory=list
    )
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class DrawAhead:
    """Worker processes making the run's family lanes ahead of it (see the module's doc).

    Each worker is a pool of one process, so a family's chunks run one after another in the
    worker that holds its lane; families are spread over the workers in the order the run
    first asks for them.
    """

    def __init__(self, ctx: FamilyContext, workers: int, prevet: Prevet | None = None) -> None:
        """``prevet``: on the template path, how a worker words and vets a slot seed as the
        run would (the run then takes the draft and the outcomes, :meth:`prevetted`)."""
        global _CTX, _PREVET
        _CTX, _PREVET = ctx, prevet
        self._ctx = ctx
        self._prevetted: dict[str, Prevetted] = {}
        self.vetted = 0  # drafts whose checks the run took from the workers
        fork = multiprocessing.get_context("fork")
        self._pools = [
            concurrent.futures.ProcessPoolExecutor(
                1, mp_context=fork, initializer=_start_worker, initargs=(os.getpid(),)
            )
            for _ in range(workers)
        ]
        for pool in self._pools:
            pool.submit(_noop)  # forked now, while the run is between stages
        self.workers = workers
        self._lanes: dict[str, _Lane] = {}
        self.given_back: set[str] = set()  # families the run makes itself
        self.failed: set[str] = set()  # of those, the ones a worker failed on
        self.held: set[str] = set()  # families whose slots the workers made at some time
        self.slots_taken = 0  # slots the run took from the workers
        self.adopted = 0  # families the run made for a while, then handed to the workers
        self.taken_back = 0  # families the run took back from a worker behind with its work
        self._draw_lanes: dict[str, _DrawLane] = {}
        self.draws_taken = 0  # plain draws the run took from the workers
        self.draws_queued = 0  # times the run drew rather than wait for a queued chunk

    def _backlog(self, pool: concurrent.futures.ProcessPoolExecutor | None = None) -> int:
        """Chunks asked and not made yet, of one worker or of all."""
        slots = sum(
            not f.done()
            for lane in self._lanes.values()
            if pool is None or lane.pool is pool
            for f in lane.asked
        )
        return slots + sum(
            not f.done()
            for draws in self._draw_lanes.values()
            if pool is None or draws.pool is pool
            for _, f in draws.asked
        )

    def _idle_pool(self) -> concurrent.futures.ProcessPoolExecutor | None:
        """A worker with fewer than :data:`IDLE_BACKLOG` chunks waiting, if any."""
        return next((p for p in self._pools if self._backlog(p) < IDLE_BACKLOG), None)

    def _behind(
        self,
        pool: concurrent.futures.ProcessPoolExecutor,
        mine: list[concurrent.futures.Future[Any]],
    ) -> bool:
        """Whether a lane's next chunk (the first of ``mine``, its chunks not taken yet)
        waits in the worker's queue behind :data:`BEHIND_BACKLOG` chunks of other lanes."""
        return self._backlog(pool) - sum(not f.done() for f in mine) >= BEHIND_BACKLOG

    async def draw(self, family: str, draw: int) -> TaskSeed | None:
        """Plain draw ``draw`` of ``family``, as ``draw_seed`` gives it in the run: the kept
        one if the run has it, else the worker's, whose drops and outputs the run then
        records as if it had made the draw (a draw's drops are a function of the draw).

        A family's draws go to a worker with fewer than :data:`IDLE_BACKLOG` chunks
        waiting, from the first draw asked then (a multi-agent stream asks its parent
        family's draws in order). A draw whose chunk waits in a worker's queue behind other
        work is not waited for: the run draws it and takes the family's draws back.

        Raises:
            LookupError: The workers do not have it: the caller draws it itself.
        """
        done, seed = self._ctx.kept_draw(family, draw)
        if done:
            return seed
        lane = self._draw_lanes.get(family)
        if lane is None:
            if family in self.failed:
                raise LookupError(family)
            pool = self._idle_pool()
            if pool is None:
                raise LookupError(family)
            lane = self._draw_lanes[family] = _DrawLane(pool, asked_to=draw)
        async with lane.lock:
            while lane.asked_to < draw + 1 + AHEAD_DRAWS:
                start = lane.asked_to
                stop = start + (1 if not lane.asked and not lane.made else CHUNK_DRAWS)
                try:
                    future = lane.pool.submit(_make_draws, family, start, stop)
                except (RuntimeError, concurrent.futures.BrokenExecutor):
                    break  # shut down or broken: the run draws
                lane.asked.append((start, future))
                lane.asked_to = stop
            while draw not in lane.made and lane.asked and lane.asked[0][0] <= draw:
                start, future = lane.asked[0]
                if self._behind(lane.pool, [f for _, f in lane.asked]) and future.cancel():
                    # queued behind other work: the run draws now rather than wait, and the
                    # family's draws go to a worker again only once one is nearly idle
                    self._drop_draws(family)
                    self.draws_queued += 1
                    raise LookupError(family)
                lane.asked.pop(0)
                try:
                    made: list[SlotMade] = await asyncio.wrap_future(future)
                except Exception as exc:  # the run draws (and sees a real error)
                    self.failed.add(family)
                    self._drop_draws(family)
                    raise LookupError(family) from exc
                lane.made.update(zip(range(start, start + len(made)), made, strict=True))
            taken = lane.made.pop(draw, None)
            for earlier in [d for d in lane.made if d < draw]:  # passed: a stream goes on
                del lane.made[earlier]
        if taken is None:
            raise LookupError(family)
        self.draws_taken += 1
        self._record(family, taken)
        return taken.seed

    def _lane(self, family: str, kept: SlotSeeds) -> _Lane | None:
        """The family's lane if the workers make its slots, else None (the run makes them).

        A family goes to the workers when the run first asks for it, unless they already
        have :data:`MAX_BACKLOG` chunks to make each: then the run keeps it for now (so the
        run is not idle while the workers make everyone's first slots). A family the run
        kept goes to a worker later, from the slot the run has reached, once that worker
        has fewer than :data:`IDLE_BACKLOG` chunks waiting and the run is not making one of
        the family's slots (:meth:`SlotSeeds.state`). A family a worker failed on stays
        with the run. Which process makes a family's slots changes only who waits, never a
        slot.
        """
        lane = self._lanes.get(family)
        if lane is not None or family in self.failed:
            return lane
        pool: concurrent.futures.ProcessPoolExecutor | None
        if family not in self.given_back:
            if self._backlog() >= MAX_BACKLOG * len(self._pools):
                self.given_back.add(family)
                return None
            pool = self._pools[len(self._lanes) % len(self._pools)]
        else:
            pool = self._idle_pool()
            if pool is None:
                return None
        start = kept.state(family)
        if start is None:
            return None
        if family in self.given_back:
            self.given_back.discard(family)
            self.adopted += 1
        lane = self._lanes[family] = _Lane(pool, share=-1.0, start=start)
        self.held.add(family)
        return lane

    async def slot(
        self, family: str, slot: int, share: float, kept: SlotSeeds
    ) -> TaskSeed | None:
        """Slot ``slot`` of ``family`` under non-trivial share ``share``; ``kept``: the
        run's own lanes (a family the run made for a while goes on from there).

        Raises:
            LookupError: The workers do not make it (see :meth:`_lane`): the caller makes
                it, or has made it, itself.
        """
        lane = self._lane(family, kept)
        if lane is None or slot < lane.start.slot:
            raise LookupError(family)
        lane.share = share
        first = lane.start.slot
        async with lane.lock:
            if self._lanes.get(family) is not lane:  # taken back while this call waited
                return await self.slot(family, slot, share, kept)
            self._ask(family, lane, slot + 1 + AHEAD_SLOTS)
            while first + len(lane.made) <= slot:
                if not lane.asked:  # the pools are shut down
                    self._give_back(family)
                    raise LookupError(family)
                future = lane.asked[0]
                if (self._behind(lane.pool, lane.asked)
                        and kept.can_take_back(family, lane.start.slot) and future.cancel()):
                    self._take_back(family, lane, kept)
                    raise LookupError(family)
                lane.asked.pop(0)
                try:
                    made: list[SlotMade] = await asyncio.wrap_future(future)
                    lane.made.extend(made)
                except Exception as exc:  # the run makes the slots itself (and sees a real error)
                    self.failed.add(family)
                    self._give_back(family)
                    raise LookupError(family) from exc
            while lane.taken <= slot:
                self._record(family, lane.made[lane.taken - first])
                lane.taken += 1
                self.slots_taken += 1
            return lane.made[slot - first].seed

    def _take_back(self, family: str, lane: _Lane, kept: SlotSeeds) -> None:
        """The run makes the family's slots again, from the last one the worker made: its
        next chunk waits in the worker's queue behind other work (the run would wait for
        it). The lane's state then is the state the workers took it with, the tasks of the
        slots they made and the run lengths after the last of them. The run asks for a slot
        past those, so it has reached them all (a run making its own slots makes every
        earlier one first): their drops and outputs are recorded now, even for slots whose
        candidates the run never asks for again."""
        for future in lane.asked:
            future.cancel()  # queued behind the first, which was
        first = lane.start.slot
        after = lane.made[-1].after if lane.made else (lane.start.dry_run, lane.start.stale_run)
        kept.take_back(family, lane.start, [m.seed for m in lane.made], after)
        for made in lane.made[lane.taken - first:]:
            self._record(family, made)
            self.slots_taken += 1
        del self._lanes[family]
        self.given_back.add(family)
        self.taken_back += 1

    def _ask(self, family: str, lane: _Lane, to: int) -> None:
        while lane.asked_to < to:
            start = lane.asked_to
            first = start == lane.start.slot
            stop = start + (1 if first else CHUNK_SLOTS)  # the first slot alone: it is awaited
            resume = lane.start if first and start else None
            # words and vets the seeds too unless the worker has a backlog (then the run
            # would wait for it: the run vets them itself)
            vet = self._backlog(lane.pool) < IDLE_BACKLOG
            try:
                future = lane.pool.submit(
                    _make_slots, family, lane.share, start, stop, resume, vet
                )
            except (RuntimeError, concurrent.futures.BrokenExecutor):
                return  # shut down or broken: seen when the run waits for what it has
            lane.asked.append(future)
            lane.asked_to = stop

    def prevetted(self, seed_key: str, *, let_go: bool = False) -> Prevetted | None:
        """What a worker found wording and vetting this seed (``let_go``: for the last
        time)."""
        if let_go:
            found = self._prevetted.pop(seed_key, None)
            self.vetted += found is not None
            return found
        return self._prevetted.get(seed_key)

    def _record(self, family: str, made: SlotMade) -> None:
        if made.seed is not None and made.prevet is not None:
            self._prevetted[made.seed.key] = made.prevet
            if len(self._prevetted) > MAX_PREVETTED:  # seeds the run passed over unworded
                del self._prevetted[next(iter(self._prevetted))]
        for drop in made.drops:
            self._ctx.record_drop(*drop)
        if made.seed is not None and made.outputs is not None:
            self._ctx.prime(made.seed.tool_sequence, made.outputs)
        if made.base_draw is not None:
            self._ctx.prime_draw(family, *made.base_draw)

    def _drop_draws(self, family: str) -> None:
        """The run draws the family's plain draws itself: its queued chunks are cancelled."""
        lane = self._draw_lanes.pop(family, None)
        for _, future in lane.asked if lane else []:
            future.cancel()

    def _give_back(self, family: str) -> None:
        self.given_back.add(family)
        lane = self._lanes.pop(family, None)
        for future in lane.asked if lane else []:
            future.cancel()

    def stats(self) -> dict[str, Any]:
        """How the work was shared: workers, families and slots they made, families the
        run made itself, and those a worker failed on."""
        return {
            "workers": self.workers,
            "families": len(self.held),
            "slots_taken": self.slots_taken,
            "adopted": self.adopted,
            "taken_back": self.taken_back,
            "draws_taken": self.draws_taken,
            "draws_queued": self.draws_queued,
            "vetted": self.vetted,
            "kept_by_run": len(self.given_back - self.failed),
            "failed": sorted(self.failed),
        }

    def close(self) -> None:
        """Stop the workers (slots not taken are dropped)."""
        for lane in self._lanes.values():
            for future in lane.asked:
                future.cancel()
        for draws in self._draw_lanes.values():
            for _, future in draws.asked:
                future.cancel()
        for pool in self._pools:
            pool.shutdown(wait=True, cancel_futures=True)  # waits for a chunk at most
