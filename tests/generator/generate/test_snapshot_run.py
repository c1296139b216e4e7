"""A run that reads the fleet through the per-run snapshot makes exactly the scenarios the
live-store path makes (same ids, texts, answers, tool calls, negatives)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.config import StoreSettings
from generator.generate.pipeline import Pipeline
from generator.generate.run_config import GenerateConfig


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
