"""A family's designated slots stop looking further once its non-trivial answers are all
taken (DRY_SCANS), and a family that gives no new task any more retires (RETIRE_AFTER):
generator.generate.draw.lanes.slot_seed.

The family here is hand-made: each draw index gives the task the test says (a distinct
trivial one unless listed), so which indices a slot draws follows from the rule alone.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from generator.generate.draw.families import (
    EXTRA_BASE,
    EXTRA_DRAWS,
    FamilyContext,
    FamilySpec,
    Plan,
    designated_nontrivial,
)
from generator.generate.draw.lanes import DRY_SCANS, RETIRE_AFTER, SlotSeeds, slot_seed
from generator.generate.model import TaskSeed, ToolCall

SHARE = 0.5  # designates the even slots: ceil((k + 1) / 2) > ceil(k / 2) for k = 0, 2, 4...


async def _never(ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
                 ) -> Plan | None:
    raise AssertionError("the test draws through its own function")


SPEC = FamilySpec(
    name="test_slots", domain="tsfm", category="Knowledge Query", draw=_never,
    derive=lambda p, o: {}, summarise=lambda p, a: "",
    outcome=lambda a: str(a), trivial=frozenset({"few"}),
)


def _seed(index: int, task: str | None = None, nontrivial: bool = False) -> TaskSeed:
    return TaskSeed(
        family=SPEC.name, domain="tsfm", category="Knowledge Query", role="operator",
        draw=index, params={"task": task or f"t{index}"}, mentions=[], answer={},
        tool_sequence=[ToolCall(name="get_ai_tasks", args={})], answer_summary="",
        difficulty="easy", outcome="many" if nontrivial else "few", nontrivial=nontrivial,
    )


class _Stream:
    """Draws by index: ``nontrivial`` maps indices to the non-trivial task they give; every
    other index gives a distinct trivial task."""

    def __init__(self, nontrivial: dict[int, str]) -> None:
        self.nontrivial = nontrivial
        self.made: list[int] = []

    async def __call__(self, index: int) -> TaskSeed | None:
        self.made.append(index)
        task = self.nontrivial.get(index)
        return _seed(index, task, nontrivial=task is not None)


def _extras(slot: int) -> list[int]:
    return [EXTRA_BASE + slot * EXTRA_DRAWS + j for j in range(EXTRA_DRAWS)]


async def _slots(stream: _Stream, n: int, spec: FamilySpec = SPEC, share: float = SHARE
                 ) -> list[TaskSeed | None]:
    kept = SlotSeeds()
    return [await slot_seed(kept, spec, k, share, stream) for k in range(n)]


async def test_after_three_dry_scans_a_designated_slot_takes_the_first_new_task() -> None:
    assert DRY_SCANS == 3  # the draws below are worked for three
    assert [designated_nontrivial(k, SHARE) for k in range(5)] == [True, False, True, False,
                                                                   True]
    # The store's only non-trivial task "N": draw 0 gives it, and so do the first extra of
    # every designated slot and draw 8. Slot 0 (designated) takes N at once. Slots 2, 4
    # and 6 scan their index and all 48 extras, meet N (taken by slot 0) and nothing else
    # non-trivial: each runs dry and keeps its first usable draw. Slot 8 follows three dry
    # scans: it takes the first new task among its draws, trivial or not: draw 8 is N
    # (taken), its first extra too, its second extra is new.
    stream = _Stream({0: "N", 8: "N"} | {_extras(k)[0]: "N" for k in range(0, 12, 2)})
    seeds = await _slots(stream, 10)
    assert stream.made == [0, 1, 2, *_extras(2), 3, 4, *_extras(4), 5, 6, *_extras(6),
                           7, 8, *_extras(8)[:2], 9]
    assert [s.draw for s in seeds if s is not None] == [*range(8), _extras(8)[1], 9]


async def test_a_scan_that_finds_a_new_one_ends_the_dry_run() -> None:
    # As above, but slot 6's fifth extra is a new non-trivial task "M": slot 6 takes it
    # (dry run 2 -> 0), so slots 8 and 10 scan again (both dry: 1, 2) and slot 12 too
    # (dry: 3); slot 14 takes the first new task: its own index.
    found = _extras(6)[4]
    stream = _Stream({0: "N", found: "M"} | {_extras(k)[0]: "N" for k in range(0, 16, 2)})
    seeds = await _slots(stream, 15)
    assert seeds[6] is not None and seeds[6].draw == found
    assert stream.made == [0, 1, 2, *_extras(2), 3, 4, *_extras(4), 5, 6, *_extras(6)[:5],
                           7, 8, *_extras(8), 9, 10, *_extras(10), 11, 12, *_extras(12),
                           13, 14]


async def test_rare_but_untaken_answers_keep_the_slots_looking() -> None:
    # No non-trivial task at all: no scan meets a taken one, so none runs dry and every
    # designated slot scans (the store may still hold one further on).
    stream = _Stream({})
    await _slots(stream, 9)
    assert stream.made == [i for k in range(9)
                           for i in ([k, *_extras(k)] if k % 2 == 0 else [k])]


async def test_a_family_without_outcomes_never_looks_further() -> None:
    stream = _Stream({})
    await _slots(stream, 3, replace(SPEC, outcome=None))
    assert stream.made == [0, 1, 2]


class _Cycle(_Stream):
    """Draw ``i`` gives trivial task ``t{i % 3}``: three tasks, then only repeats."""

    async def __call__(self, index: int) -> TaskSeed | None:
        self.made.append(index)
        return _seed(index, f"t{index % 3}")


async def test_a_family_that_gives_nothing_new_retires() -> None:
    assert RETIRE_AFTER == 64  # the draws below are worked for sixty-four
    # No target (no designated slot): slots 0-2 give the three tasks, slots 3-66 (64)
    # repeat them, so from slot 67 on the family is retired: None, undrawn.
    stream = _Cycle({})
    seeds = await _slots(stream, 70, share=0.0)
    assert stream.made == list(range(67))
    assert [s is None for s in seeds] == [False] * 67 + [True] * 3


async def test_a_later_slot_is_made_after_the_earlier_ones() -> None:
    # Asking for slot 5 first makes slots 0-4 before it (the rules read the slots in order),
    # and asking for them afterwards draws nothing more.
    stream = _Stream({})
    kept = SlotSeeds()
    got = await slot_seed(kept, SPEC, 5, 0.0, stream)
    assert got is not None and got.draw == 5 and stream.made == [0, 1, 2, 3, 4, 5]
    assert [(await slot_seed(kept, SPEC, k, 0.0, stream)).draw for k in range(6)  # type: ignore[union-attr]
            ] == list(range(6))
    assert stream.made == [0, 1, 2, 3, 4, 5]
