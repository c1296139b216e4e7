"""The collector during a run (generator.heap): the set-up's objects frozen and sweeps rarer
while the run draws, the interpreter's state back afterwards; --baseline keeps the defaults."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from generator import heap
from generator.config import StoreSettings
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))


def test_freeze_then_thaw_restores_the_collector() -> None:
    before = gc.get_threshold()
    kept = [object() for _ in range(3)]  # noqa: F841 (alive across the freeze)
    state = heap.freeze()
    try:
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == heap.RUN_THRESHOLDS
        assert heap.RUN_THRESHOLDS[0] > 700  # rarer than the interpreter's young sweeps
    finally:
        heap.thaw(state)
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before


@pytest.mark.parametrize("baseline", [False, True])
async def test_a_run_freezes_its_set_up_and_leaves_the_collector_as_it_found_it(
    seeded_settings: StoreSettings, tmp_path: Path, baseline: bool
) -> None:
    before = gc.get_threshold()
    seen: list[tuple[int, tuple[int, int, int]]] = []

    def progress(domain: str, accepted: int, quota: int) -> None:
        seen.append((gc.get_freeze_count(), gc.get_threshold()))

    cfg = GenerateConfig(
        n=8, seed=11, out_dir=str(tmp_path), run_id=f"heap{int(baseline)}", negatives=0,
        baseline=baseline,
    )
    summary = await Pipeline(cfg, settings=seeded_settings, progress=progress).run()
    assert summary.total == 8 and seen
    if baseline:  # the unoptimised path keeps the interpreter's defaults
        assert all(count == 0 and thresholds == before for count, thresholds in seen)
    else:  # while the run draws: the set-up frozen, young sweeps rarer
        assert all(count > 0 and thresholds == heap.RUN_THRESHOLDS for count, thresholds in seen)
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before
