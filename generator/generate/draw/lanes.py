"""A family's lane: its slot seeds, made in slot order, and the state a later slot depends on.

Slot ``k`` of a family is a function of its draws and of the family's earlier slots (the
tasks they hold and two run lengths, :class:`LaneState`), never of what the run accepted:
so another process can make a lane's later slots from its state
(:mod:`generator.generate.draw.ahead`), and a resumed run makes the slots an uninterrupted one made.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from generator.generate.draw.families import (
    FamilySpec,
    Peek,
    Task,
    designated_nontrivial,
    draw_for_slot,
    params_key,
    slot_draws,
)
from generator.generate.model import TaskSeed


@dataclass
class _Lane:
    """One family's slot seeds, made in slot order (:func:`slot_seed`)."""

    seeds: list[TaskSeed | None] = field(default_factory=list)
    tasks: set[str] = field(default_factory=set)  # the tasks of the slots made so far
    dry_run: int = 0  # designated slots in a row whose scan ran dry
    stale_run: int = 0  # slots in a row that gave no new task
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    making: int = 0  # callers making (or waiting to make) slots of this lane


@dataclass(frozen=True)
class LaneState:
    """What a family's next slot depends on besides its draws (see :func:`slot_seed`): its
    index, the tasks of the slots before it and the two run lengths. Enough for another
    process to make the lane's later slots exactly as the run would."""

    slot: int
    tasks: frozenset[str]
    dry_run: int
    stale_run: int


@dataclass
class SlotSeeds:
    """The slot seeds a run made, per family in slot order (:func:`slot_seed`)."""

    lanes: dict[str, _Lane] = field(default_factory=dict)

    def state(self, family: str) -> LaneState | None:
        """The family's lane as it stands, None while one of its slots is being made."""
        lane = self.lanes.get(family)
        if lane is None:
            return LaneState(0, frozenset(), 0, 0)
        if lane.making:
            return None
        return LaneState(len(lane.seeds), frozenset(lane.tasks), lane.dry_run, lane.stale_run)

    def runs(self, family: str) -> tuple[int, int]:
        """The lane's dry and stale run lengths (see :func:`slot_seed`)."""
        lane = self.lanes.get(family, _Lane())
        return lane.dry_run, lane.stale_run

    def can_take_back(self, family: str, slot: int) -> bool:
        """Whether the lane holds exactly the slots before ``slot`` and none is being made."""
        lane = self.lanes.get(family, _Lane())
        return len(lane.seeds) == slot and not lane.making

    def take_back(
        self,
        family: str,
        start: LaneState,
        seeds: list[TaskSeed | None],
        runs: tuple[int, int],
    ) -> None:
        """Go on with a lane this run left at ``start`` and another process made ``seeds``
        of, ending with the run lengths ``runs``.

        Raises:
            ValueError: The lane holds other slots than those before ``start``.
        """
        if not self.can_take_back(family, start.slot):
            lane = self.lanes.get(family, _Lane())
            raise ValueError(
                f"lane {family!r} holds {len(lane.seeds)} slots, not {start.slot}; it cannot "
                "be taken back"
            )
        lane = self.lanes.setdefault(family, _Lane())
        lane.seeds.extend(seeds)
        lane.tasks = set(start.tasks) | {params_key(s) for s in seeds if s is not None}
        lane.dry_run, lane.stale_run = runs

    def resume(self, family: str, state: LaneState) -> None:
        """Go on with a lane another process made up to ``state.slot`` (its earlier seeds
        are not all here: only later slots may be asked for). A lane this process made
        before is replaced, even one holding later slots: a worker may have made those for
        work the run then took back (they equal the run's, but the run's state is the one
        handed over)."""
        self.lanes[family] = _Lane(
            seeds=[None] * state.slot, tasks=set(state.tasks), dry_run=state.dry_run,
            stale_run=state.stale_run,
        )


# Designated slots of a family in a row whose scan ran dry (:func:`slot_seed`) after which a
# designated slot looks no further than its own index.
DRY_SCANS = 3
# Slots of a family in a row that gave no new task after which the family is retired (its
# later slots undrawn, :func:`slot_seed`). High, so that only a family that has run out
# retires: one that still gives a new task on 10% of its slots retires by chance about
# once in 8000 slots (0.9^64); one that has run out costs 64 draws for nothing.
RETIRE_AFTER = 64


async def slot_seed(
    kept: SlotSeeds,
    spec: FamilySpec,
    slot: int,
    share: float,
    one: Callable[[int], Awaitable[TaskSeed | None]],
    peek: Peek | None = None,
) -> TaskSeed | None:
    """The seed of a family's slot (None: nothing usable); ``one`` draws an index,
    ``peek`` as in :func:`draw_for_slot`; ``kept`` holds the slot seeds made so far.

    A family's slots are made in slot order (a later slot waits for the earlier ones), and
    each is a function of the slots before it, which are functions of their indices (drawn
    again after a resume): the choice stays the same in a resumed run.

    - A designated slot (:func:`draw_for_slot`) passes over the tasks of earlier slots (the
      run would reject such a repeat, losing the non-trivial answer).
    - Its scan *runs dry* when it ends without a non-trivial answer although it met
      non-trivial tasks, all of them taken by earlier slots: the family's store is running
      out of such answers. After :data:`DRY_SCANS` designated slots in a row ran dry, a
      designated slot takes the first new task among its draws, trivial or not (and counts
      as dry). A family whose non-trivial answers are rare but not taken keeps looking.
    - After :data:`RETIRE_AFTER` slots in a row gave no new task (nothing usable, or a task
      an earlier slot holds), the family is *retired*: its later slots are None, undrawn.

    Without the last two rules a family that has run out costs ``EXTRA_DRAWS`` draws per
    designated slot and a draw per slot for nothing, which made time grow faster than the
    set.
    """
    lane = kept.lanes.setdefault(spec.name, _Lane())
    if slot >= len(lane.seeds):
        lane.making += 1
        try:
            async with lane.lock:
                while len(lane.seeds) <= slot:
                    await _next_slot(lane, spec, share, one, peek)
        finally:
            lane.making -= 1
    return lane.seeds[slot]


async def _first_new(
    slot: int,
    share: float,
    one: Callable[[int], Awaitable[TaskSeed | None]],
    peek: Peek | None,
    repeat: Callable[[Task], bool],
) -> TaskSeed | None:
    """The first usable seed among the slot's draws (:func:`slot_draws`) whose task is
    not a ``repeat`` (a draw ``peek`` shows as unusable or repeated is not made)."""
    for index in slot_draws(slot, share):
        if peek is not None:
            task = await peek(index, False)
            if task is None or repeat(task):
                continue
        seed = await one(index)
        if seed is not None and not repeat(seed):
            return seed
    return None


async def _next_slot(
    lane: _Lane,
    spec: FamilySpec,
    share: float,
    one: Callable[[int], Awaitable[TaskSeed | None]],
    peek: Peek | None,
) -> None:
    """Make the lane's next slot (see :func:`slot_seed`)."""
    slot = len(lane.seeds)
    designated = designated_nontrivial(slot, share) and spec.outcome is not None
    taken = False  # the scan passed over a non-trivial task an earlier slot holds

    def repeat(task: Task) -> bool:
        nonlocal taken
        if params_key(task) not in lane.tasks:
            return False
        taken = taken or bool(task.nontrivial)
        return True

    seed: TaskSeed | None
    if lane.stale_run >= RETIRE_AFTER:
        seed, dry = None, True  # retired
    elif designated and lane.dry_run >= DRY_SCANS:
        seed, dry = await _first_new(slot, share, one, peek, repeat), True
    else:
        seed = await draw_for_slot(
            spec, slot, share, one, skip=repeat if lane.tasks else None, peek=peek
        )
        dry = taken and not (seed is not None and seed.nontrivial)
    if designated:
        lane.dry_run = lane.dry_run + 1 if dry else 0
    task = None if seed is None else params_key(seed)
    lane.stale_run = 0 if task is not None and task not in lane.tasks else lane.stale_run + 1
    if task is not None:
        lane.tasks.add(task)
    lane.seeds.append(seed)
