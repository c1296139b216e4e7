"""The executor seam: results stream back as units finish, locally and on a two-node Ray
cluster; a wrong RAY_ADDRESS is one line and exit 2."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from generator.errors import UserError
from generator.executor import LocalExecutor, RayExecutor, make_executor


class Spec(BaseModel):
    offset: int


class Unit(BaseModel):
    value: int
    delay: float = 0.0


def setup(spec: Spec) -> dict[str, int]:
    return {"offset": spec.offset, "calls": 0}


async def add(ctx: dict[str, int], unit: Unit) -> int:
    await asyncio.sleep(unit.delay)
    ctx["calls"] += 1
    return unit.value + ctx["offset"]


def node_of(ctx: dict[str, int], unit: Unit) -> str:
    import time

    import ray

    time.sleep(unit.delay)
    return str(ray.get_runtime_context().get_node_id())


async def _collect(executor: Any, fn: Any, units: list[Unit], **kw: Any) -> list[tuple[int, Any]]:
    return [pair async for pair in executor.stream(setup, Spec(offset=100), fn, units, **kw)]


def test_local_streams_results_in_the_order_they_finish() -> None:
    units = [Unit(value=1, delay=0.3), Unit(value=2, delay=0.0), Unit(value=3, delay=0.15)]
    pairs = asyncio.run(_collect(LocalExecutor(), add, units, concurrency=3))
    # Unit 1 finishes first, then 2, then 0; each index names its input.
    assert pairs == [(1, 102), (2, 103), (0, 101)]


def test_local_runs_a_blocking_unit_off_the_event_loop() -> None:
    def double(ctx: dict[str, int], unit: Unit) -> int:
        return unit.value * 2

    assert asyncio.run(_collect(LocalExecutor(), double, [Unit(value=4)])) == [(0, 8)]


def test_an_unknown_executor_names_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_EXECUTOR", "dask")
    with pytest.raises(UserError, match="valid: local, ray"):
        make_executor()
    monkeypatch.setenv("SCENARIOGEN_EXECUTOR", "RAY")
    assert make_executor().name == "ray"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_wrong_ray_address_is_one_line_and_exit_2(tmp_path: Path) -> None:
    # Nobody listens on the port: Ray itself would retry for about two minutes.
    scenario = {"id": "s1", "type": "fmsr", "text": "What fault?",
                "reference_answer": {"fault_type": "PD"}}
    (tmp_path / "s.json").write_text(json.dumps([scenario]))
    address = f"127.0.0.1:{_free_port()}"
    proc = subprocess.run(
        [sys.executable, "-m", "generator.cli", "dryrun", str(tmp_path / "s.json"),
         "--executor", "ray"],
        capture_output=True, text=True, timeout=60, check=False,
        env={**__import__("os").environ, "RAY_ADDRESS": address},
    )
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and address in lines[0]
    assert "fix:" in lines[0] and "Traceback" not in proc.stderr


def _every_node_takes_work(address: str) -> None:
    """Join the cluster and run a no-op pinned (hard) to each live node: a node counts as
    registered before its raylet takes work, and a soft-pinned actor dealt to it meanwhile
    lands on another node (a replacement node added by an earlier test, for instance)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)

    @ray.remote(num_cpus=0)
    def here() -> str:
        return str(ray.get_runtime_context().get_node_id())

    nodes = sorted(n["NodeID"] for n in ray.nodes() if n.get("Alive"))
    assert len(nodes) == 2, ray.nodes()
    pinned = [here.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n, soft=False))
              .remote() for n in nodes]
    assert sorted(ray.get(pinned, timeout=120)) == nodes


def test_ray_spreads_units_over_both_nodes_and_streams_them(ray_cluster: Any) -> None:
    _every_node_takes_work(ray_cluster.address)
    executor = RayExecutor(ray_cluster.address)
    try:
        units = [Unit(value=i, delay=0.2) for i in range(6)]
        pairs = asyncio.run(_collect(executor, node_of, units, workers=2))
        plus = asyncio.run(_collect(executor, add, units, workers=2, concurrency=2))
    finally:
        executor.close()
    assert sorted(i for i, _ in pairs) == list(range(6))
    assert len({node for _, node in pairs}) == 2, pairs  # both nodes did work
    assert sorted(plus) == [(i, 100 + i) for i in range(6)]
