"""The draw gate of the LLM path: lowest rank first, first come first within a rank."""

from __future__ import annotations

import asyncio

from generator.generate.draw.draw_order import PriorityGate, draw_ranks, taking_turns
from generator.generate.model import TaskSeed


async def test_waiters_queued_together_are_served_by_rank_then_arrival() -> None:
    gate = PriorityGate()
    held: list[str] = []

    async def worker(name: str, rank: int) -> None:
        await gate.acquire(rank)
        try:
            held.append(name)  # never suspends while holding, as a draw from the snapshot
        finally:
            gate.release()

    # Queued in this order in one loop step: the first to run is not served first.
    jobs = [("iot-1", 2), ("iot-2", 2), ("fmsr-1", 0), ("tsfm-1", 3), ("fmsr-2", 0)]
    await asyncio.gather(*(worker(n, r) for n, r in jobs))
    assert held == ["fmsr-1", "fmsr-2", "iot-1", "iot-2", "tsfm-1"]


async def test_a_cancelled_waiter_never_holds_the_gate() -> None:
    gate = PriorityGate()
    await gate.acquire(0)  # held by us
    waiting = asyncio.create_task(gate.acquire(0))
    later = asyncio.create_task(gate.acquire(1))
    await asyncio.sleep(0)
    waiting.cancel()
    gate.release()
    await asyncio.wait_for(later, timeout=5)  # the cancelled one was skipped
    assert waiting.cancelled()
    gate.release()


def test_ranks_put_multiagent_parents_then_larger_quotas_first() -> None:
    # Parents {iot, wo} first (wo's quota 9 > iot's 4), then fmsr (12) before tsfm (3);
    # vibration (no quota) last, by the given order.
    ranks = draw_ranks(
        {"iot": 4, "fmsr": 12, "tsfm": 3, "wo": 9}, ["wo", "iot"],
        ["iot", "fmsr", "tsfm", "wo", "vibration"],
    )
    assert ranks == {"wo": 0, "iot": 1, "fmsr": 2, "tsfm": 3, "vibration": 4}


async def test_taking_turns_passes_the_draw_through() -> None:
    seen: list[tuple[str, int]] = []

    async def drawer(domain: str, candidate: int) -> TaskSeed | None:
        seen.append((domain, candidate))
        return None

    gated = taking_turns(drawer, PriorityGate(), 0)
    assert await gated("iot", 7) is None
    assert seen == [("iot", 7)]


async def test_a_draw_that_waits_frees_the_gate_for_the_others() -> None:
    # Draw 1 (rank 0) waits for an event only draw 2 (rank 1) sets: holding the gate
    # through the wait would never finish.
    gate = PriorityGate()
    ready = asyncio.Event()

    async def drawer(domain: str, candidate: int) -> TaskSeed | None:
        if candidate == 1:
            await ready.wait()
        else:
            ready.set()
        return None

    first = taking_turns(drawer, gate, 0)
    second = taking_turns(drawer, gate, 1)
    await asyncio.wait_for(asyncio.gather(first("fmsr", 1), second("iot", 2)), timeout=5)
