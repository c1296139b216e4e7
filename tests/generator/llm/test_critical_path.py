"""The run's lower bound from its own call graph (generator.llm.timing.critical_path):
a hand-made graph with hand-worked numbers, and dependencies recorded from what the code
awaits."""

from __future__ import annotations

import asyncio

import pytest

from generator.bench.latency_llm import LatencyChatModel
from generator.concurrency import fan_out
from generator.llm.client import LLMClient
from generator.llm.timing import CallTiming, critical_path
from tests.generator.llm.test_client import Question


def _c(call_id: int, req: float, start: float, end: float, cpu_req: float, cpu_end: float,
       after: tuple[int, ...] = (), thread: int | None = None) -> CallTiming:
    return CallTiming(start=start, end=end, round=0, stage="s", ok=True, call_id=call_id,
                      requested=req, after=after, cpu_requested=cpu_req, cpu_end=cpu_end,
                      thread=thread)


# Run 0 → 10 s; the loop thread's CPU clock reads 0 at the start and 3.0 at the end.
#   A: requested 1.0, runs 1.0-3.0,                       CPU 0.8 at request, 1.0 at end
#   B: requested 1.0, runs 1.5-2.5 (0.5 s queued),        CPU 0.8 / 0.9
#   C: after A and B, requested 3.5, runs 4.0-6.0,       CPU 1.3 / 1.5
#   D: after B, requested 2.6, runs 2.6-7.0,             CPU 0.95 / 2.0
A = _c(1, 1.0, 1.0, 3.0, 0.8, 1.0)
B = _c(2, 1.0, 1.5, 2.5, 0.8, 0.9)
C = _c(3, 3.5, 4.0, 6.0, 1.3, 1.5, after=(1, 2))
D = _c(4, 2.6, 2.6, 7.0, 0.95, 2.0, after=(2,))


def test_longest_chain_worked_by_hand() -> None:
    # Gap CPU = min(CPU-clock difference, wall difference).
    # head → A: min(0.8 - 0, 1.0 - 0) = 0.8;  A ends the chain at 0.8 + 2.0 = 2.8
    # head → B: 0.8;                          B: 0.8 + 1.0 = 1.8
    # C: via A 2.8 + min(1.3 - 1.0, 3.5 - 3.0) = 3.1; via B 1.8 + min(0.4, 1.0) = 2.2;
    #    head 1.3 → best 3.1, + 2.0 = 5.1; tail min(3.0 - 1.5, 10 - 6) = 1.5 → 6.6
    # D: via B 1.8 + min(0.95 - 0.9, 2.6 - 2.5) = 1.85; head 0.95 → 1.85 + 4.4 = 6.25;
    #    tail min(3.0 - 2.0, 10 - 7) = 1.0 → 7.25
    # no call at all: min(3.0, 10) = 3.0.  Bound = 7.25 along B → D.
    path = critical_path([A, B, C, D], start=0.0, end=10.0, cpu_start=0.0, cpu_end=3.0)
    assert path.chain == (2, 4)
    assert path.bound_s == pytest.approx(7.25)
    assert path.calls_s == pytest.approx(5.4)  # 1.0 + 4.4
    assert path.cpu_s == pytest.approx(1.85)  # 0.8 head + 0.05 + 1.0 tail
    # wall - bound = 2.75 = queue (B waited 1.0 → 1.5: 0.5) + waiting off the CPU in the
    # chain's gaps: head 1.0 - 0.8 = 0.2, B→D 0.1 - 0.05 = 0.05, tail 3.0 - 1.0 = 2.0 → 2.25
    assert path.queue_s == pytest.approx(0.5)
    assert path.waiting_s == pytest.approx(2.25)
    assert path.cpu_off_chain_s == pytest.approx(1.15)  # 3.0 loop CPU - 1.85 on the chain
    # Of the waiting, the gap B → D (2.5-2.6, 0.05 s off the CPU) passed while A (to 3.0)
    # was in flight: 0.05 s behind a call off the chain; head and tail had none in flight.
    assert path.behind_calls_s == pytest.approx(0.05)
    report = path.report()
    assert report["wall_over_bound"] == round(10 / 7.25, 3) == 1.379
    assert report["gap"] == {"queue_s": 0.5, "waiting_s": 2.25, "behind_calls_s": 0.05,
                             "idle_s": 2.2}


def test_calls_of_unequal_length_count_at_their_own_durations() -> None:
    # A 0-1 then B 1-9 after it: the path is 1 + 8 = 9 s, the whole wall, nothing in gaps.
    calls = [_c(1, 0.0, 0.0, 1.0, 0, 0), _c(2, 1.0, 1.0, 9.0, 0, 0, after=(1,))]
    path = critical_path(calls, start=0.0, end=9.0, cpu_start=0.0, cpu_end=0.0)
    assert path.bound_s == pytest.approx(9.0) and path.chain == (1, 2)
    assert path.waiting_s == pytest.approx(0.0) and path.queue_s == pytest.approx(0.0)
    # Three short calls beside one long one: rounds × median = 1 × 1.0 = 1.0 would call a
    # 6 s wall 6× the bound; the path is the long call: 6.0.
    calls = [_c(i, 0.0, 0.0, 1.0, 0, 0) for i in (1, 2, 3)] + [_c(4, 0.0, 0.0, 6.0, 0, 0)]
    path = critical_path(calls, start=0.0, end=6.0, cpu_start=0.0, cpu_end=0.0)
    assert path.bound_s == pytest.approx(6.0) and path.chain == (4,)


def test_a_dependency_that_had_not_ended_and_foreign_cpu_readings_count_nothing() -> None:
    early = _c(1, 0.0, 0.0, 5.0, 0.0, 0.0)
    # claims to follow call 1 but was requested before it ended: the edge is dropped
    late = _c(2, 4.0, 4.0, 6.0, 0.0, 0.0, after=(1,))
    path = critical_path([early, late], start=0.0, end=6.0, cpu_start=0.0, cpu_end=0.0)
    assert path.bound_s == pytest.approx(5.0) and path.chain == (1,)
    # CPU read on another thread than the loop's: 0 in the gaps
    other = _c(1, 1.0, 1.0, 2.0, 0.9, 1.0, thread=99)
    path = critical_path([other], start=0.0, end=3.0, cpu_start=0.0, cpu_end=1.5, thread=7)
    assert path.bound_s == pytest.approx(1.5)  # the no-call chain: all 1.5 s of loop CPU


async def test_dependencies_follow_what_the_code_awaits() -> None:
    client = LLMClient.from_model(LatencyChatModel(call_latency_s=0.0), concurrency=4)

    async def ask(user: str) -> None:
        await client.ask_json("s", "sys", user, Question)

    await ask("first")
    await fan_out(["b", "c"], ask)  # both after the first; neither after the other
    await ask("last")  # after both fanned-out calls

    async def side() -> None:
        await ask("side")

    task = asyncio.create_task(side())  # started after "last": inherits it
    await task
    t = client.timings
    assert t[0].after == ()
    assert t[1].after == (t[0].call_id,) and t[2].after == (t[0].call_id,)
    # both fanned-out calls (the first one may stay listed: a transitive dependency)
    assert {t[1].call_id, t[2].call_id} <= set(t[3].after) <= {c.call_id for c in t[:3]}
    assert t[4].after == (t[3].call_id,)
    assert all(c.requested is not None and c.requested <= c.start for c in t)
