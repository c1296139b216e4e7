"""A 50-scenario template run on the seeded test store, generated once for the export tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from generator.config import StoreSettings
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig


@pytest.fixture(scope="module")
async def run50(
    seeded_settings: StoreSettings, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Path]:
    """Run folder of a 50-scenario template run (+2 negatives) on the seeded fleet."""
    root = tmp_path_factory.mktemp("export_run")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SCENARIOGEN_CACHE_DIR", str(root / "cache"))
        cfg = GenerateConfig(n=50, seed=11, out_dir=str(root), run_id="r50", negatives=2)
        await Pipeline(cfg, settings=seeded_settings).run()
        yield root / "r50"
