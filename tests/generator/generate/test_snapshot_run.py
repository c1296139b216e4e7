"""A run that reads the fleet through the per-run snapshot makes exactly the scenarios the
live-store path makes (same ids, texts, answers, tool calls, negatives)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.config import StoreSettings
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))


def _facts(run: Path, name: str) -> list[tuple[Any, ...]]:
    records = json.loads((run / name).read_text())
    return [
        (r["id"], r["type"], r["text"], r.get("reference_answer"), r.get("tool_sequence"),
         r.get("family"), r.get("difficulty"))
        for r in records
    ]


async def test_snapshot_and_live_store_make_the_same_scenarios(
    seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    runs, rejected = {}, {}
    for name, live in (("snap", False), ("live", True)):
        cfg = GenerateConfig(n=40, seed=4242, out_dir=str(tmp_path), run_id=name, negatives=3)
        summary = await Pipeline(cfg, settings=seeded_settings, live_store=live).run()
        assert summary.total == 40
        runs[name] = tmp_path / name
        rejected[name] = summary.rejected
    for name in ("scenarios.json", "negative_scenarios.json"):
        snap, live = _facts(runs["snap"], name), _facts(runs["live"], name)
        assert snap == live
        assert len({f[0] for f in snap}) == len(snap) > 0
    # Every domain with families is in the comparison, so every data tool was exercised.
    assert {f[1] for f in _facts(runs["snap"], "scenarios.json")} >= {"iot", "fmsr", "tsfm", "wo"}
    assert rejected["snap"] == rejected["live"]


async def test_the_snapshot_read_runs_while_the_set_up_does(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fleet is read in a thread from the moment it is asked for, while the run's
    set-up goes on without yielding to the loop (loading tools, families, templates): a
    read that waits for the loop's next turn starts only once the set-up is done (with
    the profile cached, as here, nothing before the set-up yields either)."""
    import threading

    from generator.generate.run import stages
    from generator.store.snapshot import FleetSnapshot

    started = threading.Event()
    seen: list[bool] = []
    load, load_tools = FleetSnapshot.load.__func__, stages.load_tools  # type: ignore[attr-defined]

    def reading(cls: type[FleetSnapshot], *args: Any, **kwargs: Any) -> FleetSnapshot:
        started.set()
        return load(cls, *args, **kwargs)  # type: ignore[no-any-return]

    def set_up() -> None:
        seen.append(started.wait(timeout=10))  # blocks the loop, as the real set-up does
        load_tools()

    def config(run_id: str) -> GenerateConfig:
        return GenerateConfig(n=6, seed=3, out_dir=str(tmp_path), run_id=run_id, negatives=0)

    await Pipeline(config("warm"), settings=seeded_settings).run()  # caches the profile
    monkeypatch.setattr(FleetSnapshot, "load", classmethod(reading))
    monkeypatch.setattr(stages, "load_tools", set_up)
    summary = await Pipeline(config("overlap"), settings=seeded_settings).run()
    assert summary.total == 6
    assert seen == [True]
