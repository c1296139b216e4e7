"""The multi-agent stream of distinct composed tasks (generator.generate.draw.composed)."""

from __future__ import annotations

import asyncio
import random

from generator.generate.draw.composed import ComposedSeeds
from generator.generate.draw.families import EXTRA_BASE, EXTRA_DRAWS, params_key
from generator.generate.model import TaskSeed, ToolCall


def _seed(family: str, draw: int, **params: object) -> TaskSeed:
    return TaskSeed(
        family=family, domain="multiagent" if family == "ma" else "fmsr",
        category="Decision Support", draw=draw, params=dict(params),
        tool_sequence=[ToolCall(name="assets", args={})], answer={"x": 1},
        answer_summary="x", difficulty="easy", role="operator", mentions=[],
    )


# The parent family has 5 distinct tasks (asset a0..a4); its draw j gives asset j % 5
# (so draws 5, 6, ... only repeat), and draw 2 is unusable.
async def _parent(j: int) -> TaskSeed | None:
    return None if j == 2 else _seed("parent", j, asset=f"a{j % 5}")


# The composed task keeps the parent's asset only: parents a0 and a0' collapse.
async def _compose(parent: TaskSeed, i: int) -> TaskSeed | None:
    if parent.params["asset"] == "a3":
        return None  # e.g. ambiguous
    return _seed("ma", i, asset=parent.params["asset"])


async def _own(i: int) -> TaskSeed | None:
    return _seed("ma", i, asset="own")


def _stream(pool: list[TaskSeed], **kw: int) -> ComposedSeeds:
    return ComposedSeeds(pool, _compose, _parent, _own, **kw)


def test_slots_list_each_distinct_task_once_pool_first_then_new_parent_draws() -> None:
    # Pool: accepted parents a1 then a4 (acceptance order): candidates 0 and 1. Then the
    # parent's own draws, new tasks only: draw 0 (a0) is candidate 2; draw 1 (a1, in the
    # pool) and 2 (unusable) are passed over; draw 3 (a3) is candidate 3 and composes to
    # None; draw 4 (a4), 5 (a0), 6 (a1) repeat; draw 7 (a2) is candidate 4. After that the
    # parent only repeats: the stream ends with 4 distinct tasks.
    pool = [_seed("parent", 7, asset="a1"), _seed("parent", 9, asset="a4")]
    stream = _stream(pool, max_misses=8)

    async def go() -> list[TaskSeed | None]:
        return [await stream.get(d) for d in range(6)]

    got = asyncio.run(go())
    assert [s.params["asset"] if s else None for s in got] == [
        "a1", "a4", "a0", "a2", None, None
    ]
    assert [s.draw for s in got if s] == [0, 1, 2, 4]  # candidate index = the family's draw
    assert stream.exhausted
    assert len({params_key(s) for s in got if s}) == 4


def test_the_stream_is_the_same_whatever_order_and_concurrency_ask_for_slots() -> None:
    pool = [_seed("parent", 7, asset="a1")]

    async def delayed_parent(j: int) -> TaskSeed | None:
        await asyncio.sleep(random.random() / 1000)  # randomised timing
        return await _parent(j)

    async def in_order() -> list[str | None]:
        s = ComposedSeeds(pool, _compose, _parent, _own, max_misses=8)
        return [(x.key if x else None) for x in [await s.get(d) for d in range(6)]]

    async def concurrent(order: list[int]) -> list[str | None]:
        s = ComposedSeeds(pool, _compose, delayed_parent, _own, max_misses=8)
        got = await asyncio.gather(*(s.get(d) for d in order))
        by_slot = dict(zip(order, got, strict=True))
        return [(by_slot[d].key if by_slot[d] else None) for d in range(6)]  # type: ignore[union-attr]

    want = asyncio.run(in_order())
    rnd = random.Random(3)
    for _ in range(5):
        order = list(range(6))
        rnd.shuffle(order)
        assert asyncio.run(concurrent(order)) == want


def test_extra_indices_of_a_designated_slot_draw_as_before() -> None:
    stream = _stream([_seed("parent", 7, asset="a1")], max_misses=8)
    got = asyncio.run(stream.get(EXTRA_BASE + 3))  # an extra of slot 0
    assert got is not None and got.params == {"asset": "own"} and got.draw == EXTRA_BASE + 3
    assert len(stream.seeds) == 1  # the stream was listed only as far as slot 0


def test_an_endless_parent_of_repeats_ends_after_max_misses() -> None:
    calls: list[int] = []

    async def same(j: int) -> TaskSeed | None:
        calls.append(j)
        return _seed("parent", j, asset="a0")

    stream = ComposedSeeds([], _compose, same, _own, max_misses=10)
    assert asyncio.run(stream.get(0)) is not None  # a0 once
    assert asyncio.run(stream.get(1)) is None  # then only repeats: stop after 10 misses
    assert stream.exhausted and len(calls) == 11


def test_a_stream_started_while_the_parent_pool_grows_equals_one_on_the_final_pool() -> None:
    final = [_seed("parent", 7, asset="a1"), _seed("parent", 9, asset="a4")]

    async def first_slots(stream: ComposedSeeds) -> list[str | None]:
        return [(s.key if s else None) for s in [await stream.get(d) for d in range(5)]]

    async def growing() -> list[str | None]:
        pool: list[TaskSeed] = []
        changed = asyncio.Condition()
        done = False

        async def wait_pool(i: int) -> None:
            async with changed:
                await changed.wait_for(lambda: len(pool) > i or done)

        async def parent_domain() -> None:
            nonlocal done
            for seed in final:
                await asyncio.sleep(0.01)  # the parent accepts later than multi-agent asks
                async with changed:
                    pool.append(seed)
                    changed.notify_all()
            async with changed:
                done = True
                changed.notify_all()

        stream = ComposedSeeds(pool, _compose, _parent, _own, max_misses=8, wait_pool=wait_pool)
        got, _ = await asyncio.gather(first_slots(stream), parent_domain())
        return got

    want = asyncio.run(first_slots(_stream(list(final), max_misses=8)))
    assert asyncio.run(growing()) == want
    assert want[:2] == ["ma#0", "ma#1"]  # the pool's two parents come first


def test_extra_indices_of_a_slot_past_the_exhausted_stream_draw_nothing() -> None:
    # 4 distinct tasks (see the first test): slot 3 exists, slot 4 is past the end.
    pool = [_seed("parent", 7, asset="a1"), _seed("parent", 9, asset="a4")]
    stream = _stream(pool, max_misses=8)
    inside = asyncio.run(stream.get(EXTRA_BASE + 3 * EXTRA_DRAWS))
    assert inside is not None and inside.params == {"asset": "own"}
    assert asyncio.run(stream.get(EXTRA_BASE + 4 * EXTRA_DRAWS + 5)) is None
    assert stream.exhausted and len(stream.seeds) == 4


def test_peek_is_what_get_gives_before_the_gate() -> None:
    """``peek`` of a stream slot is its seed; of an extra index within the stream, the own
    family's probe (``peek_own``, not ``draw_own``); of an extra index past the end of the
    stream, None, as ``get`` gives. The stream of the first test holds 4 distinct tasks."""
    pool = [_seed("parent", 7, asset="a1"), _seed("parent", 9, asset="a4")]
    peeked: list[int] = []

    async def peek_own(i: int) -> TaskSeed | None:
        peeked.append(i)
        return _seed("ma", i, asset="probe")

    stream = ComposedSeeds(pool, _compose, _parent, _own, max_misses=8, peek_own=peek_own)

    async def go() -> None:
        first = await stream.peek(0)
        assert first is not None and first is await stream.get(0)
        extra = await stream.peek(EXTRA_BASE + 3 * EXTRA_DRAWS + 1)  # slot 3: in the stream
        assert extra is not None and extra.params == {"asset": "probe"}
        assert peeked == [EXTRA_BASE + 3 * EXTRA_DRAWS + 1]
        past = EXTRA_BASE + 4 * EXTRA_DRAWS  # slot 4: past the 4 distinct tasks
        assert await stream.peek(past) is None and await stream.get(past) is None
        assert peeked == [EXTRA_BASE + 3 * EXTRA_DRAWS + 1]

    asyncio.run(go())
