"""Per-call LLM timings: rounds as recorded by the client, and the manifest's bound."""

from __future__ import annotations

import asyncio
import itertools

from generator.llm.client import LLMClient
from generator.llm.fake import ScriptedChatModel
from generator.llm.timing import CallTiming, llm_timing, next_round
from tests.generator.llm.test_client import GOOD, ActionModel, Question


def _t(start: float, end: float, rnd: int) -> CallTiming:
    return CallTiming(start=start, end=end, round=rnd, stage="s", ok=True)


def test_round_is_one_past_the_longest_chain_ended_before_the_start() -> None:
    done = [_t(0.0, 1.0, 1), _t(0.5, 1.5, 1), _t(1.0, 2.0, 2)]
    assert next_round([], 0.0) == 1
    assert next_round(done, 0.9) == 1  # nothing has ended at 0.9
    assert next_round(done, 1.0) == 2  # the first ended exactly at 1.0 (end <= start)
    assert next_round(done, 2.5) == 3  # after the round-2 call


def test_bound_arithmetic_on_stub_timings() -> None:
    # durations 1.0, 1.0, 1.2, 0.8, 2.0 -> sorted 0.8 1.0 1.0 1.2 2.0 -> median 1.0
    calls = [
        _t(0.0, 1.0, 1), _t(0.0, 1.0, 1), _t(1.0, 2.2, 2), _t(2.2, 3.0, 3), _t(0.1, 2.1, 1),
    ]
    block = llm_timing(calls, wall_s=6.0)
    # bound = 3 rounds x 1.0 s = 3.0 s; wall / bound = 6.0 / 3.0 = 2.0
    assert block == {
        "calls": 5, "median_s": 1.0, "critical_rounds": 3, "bound_s": 3.0, "wall_s": 6.0,
        "wall_over_bound": 2.0,
    }
    # even count: durations 1.0 and 3.0 -> median 2.0; 2 rounds -> bound 4.0; 5 / 4 = 1.25
    block = llm_timing([_t(0.0, 1.0, 1), _t(1.0, 4.0, 2)], wall_s=5.0)
    assert (block["median_s"], block["bound_s"], block["wall_over_bound"]) == (2.0, 4.0, 1.25)


def test_no_calls_has_no_ratio() -> None:
    assert llm_timing([], wall_s=2.5) == {
        "calls": 0, "median_s": 0.0, "critical_rounds": 0, "bound_s": 0.0, "wall_s": 2.5,
        "wall_over_bound": None,
    }


async def test_client_records_sequential_calls_as_successive_rounds() -> None:
    client = LLMClient.from_model(ScriptedChatModel([GOOD, GOOD, GOOD]))
    for _ in range(3):
        assert (await client.ask_json("verbalise", "sys", "user", Question)).ok
    timings = client.timings
    assert [t.round for t in timings] == [1, 2, 3]
    assert all(t.stage == "verbalise" and t.ok and t.end >= t.start for t in timings)
    assert all(a.end <= b.start for a, b in itertools.pairwise(timings))


async def test_client_records_overlapping_calls_in_one_round() -> None:
    model = ActionModel(actions=[("sleep", 0.05)] * 3)
    client = LLMClient.from_model(model, concurrency=3)
    results = await asyncio.gather(
        *(client.ask_json("verbalise", "sys", f"u{i}", Question) for i in range(3))
    )
    assert all(r.ok for r in results)
    timings = client.timings
    assert len(timings) == 3 and {t.round for t in timings} == {1}
    block = llm_timing(timings, wall_s=1.0)
    assert block["critical_rounds"] == 1 and block["calls"] == 3


async def test_failed_attempts_are_recorded_too() -> None:
    model = ActionModel(actions=[TimeoutError("slow"), GOOD])
    client = LLMClient.from_model(model, sleep=_no_sleep)
    assert (await client.ask_json("s", "sys", "user", Question)).ok
    assert [(t.ok, t.round) for t in client.timings] == [(False, 1), (True, 2)]


async def _no_sleep(_: float) -> None:
    return None
