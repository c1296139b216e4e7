"""Registry and the async fan-out helper."""

from __future__ import annotations

import asyncio

import pytest

from generator.concurrency import fan_out, to_thread
from generator.errors import UserError
from generator.registry import Registry


def test_registry_rejects_duplicates_and_suggests() -> None:
    reg: Registry[int] = Registry("tool")
    reg.add("interpret_dga", 1)
    reg.register("assess_load_profile")(2)
    with pytest.raises(ValueError, match="already registered"):
        reg.add("interpret_dga", 3)
    with pytest.raises(UserError) as err:
        reg.get("interpret_dgaa")
    assert "did you mean 'interpret_dga'" in str(err.value)
    assert "assess_load_profile" in str(err.value)
    assert reg.names() == ["assess_load_profile", "interpret_dga"]


async def test_fan_out_keeps_order_and_limits_concurrency() -> None:
    running = 0
    peak = 0

    async def work(i: int) -> int:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.01 * (5 - i % 5))
        running -= 1
        return i * i

    assert await fan_out(range(10), work, limit=3) == [i * i for i in range(10)]
    assert peak == 3


async def test_fan_out_surfaces_the_real_error() -> None:
    async def work(i: int) -> int:
        if i == 2:
            raise UserError("bad item", value=i)
        await asyncio.sleep(0.05)
        return i

    with pytest.raises(UserError, match="bad item"):
        await fan_out(range(4), work)


async def test_to_thread_runs_off_the_event_loop() -> None:
    import threading

    main = threading.get_ident()
    assert await to_thread(threading.get_ident) != main
