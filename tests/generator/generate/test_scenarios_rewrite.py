"""scenarios.json during a run: rewritten from the accepted records once they have grown by
a tenth since its last rewrite (linear in all; a rewrite per batch was quadratic), and whole
at the end."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from generator.config import StoreSettings
from generator.generate.run.pipeline import SCENARIOS_GROWTH, Pipeline
from generator.generate.run.run_config import GenerateConfig
from generator.generate.run.run_folder import RunFolder


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))


async def test_rewrites_grow_by_a_tenth_and_the_last_holds_every_record(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sizes: list[int] = []
    real = RunFolder.write_scenarios

    def counting(self: RunFolder, order: dict[str, int], **kw: Any) -> None:
        sizes.append(self.records_held)
        real(self, order, **kw)

    monkeypatch.setattr(RunFolder, "write_scenarios", counting)
    cfg = GenerateConfig(n=120, seed=31, out_dir=str(tmp_path), run_id="rewrites", batch_size=2)
    summary = await Pipeline(cfg, settings=seeded_settings).run()
    assert summary.total == 120

    *during, last = sizes
    assert last == 120
    assert len(json.loads((tmp_path / "rewrites" / "scenarios.json").read_text())) == 120
    # 120 records in batches of 2 would have been ~60 rewrites; each one during the run
    # holds at least a tenth more records than the one before (integer tenths)
    assert during and len(during) < 60
    for before, after in itertools.pairwise(during):
        assert after >= before + max(1, before // SCENARIOS_GROWTH), (before, after)
