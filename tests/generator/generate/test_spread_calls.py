"""A batch's seeds spread over concurrent verbalise calls (ceil(B / L) seeds a call, L the
endpoint's parallel calls): more, shorter calls, and the same scenarios."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from generator.bench.latency_llm import LatencyChatModel
from generator.config import StoreSettings
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig
from generator.llm.client import LLMClient

pytestmark = pytest.mark.couch


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))


async def _run(settings: StoreSettings, tmp_path: Path, parallel: int) -> tuple[Any, int]:
    cfg = GenerateConfig(
        n=8, seed=777, out_dir=str(tmp_path), run_id=f"p{parallel}", negatives=0,
        budget={"iot": 4, "fmsr": 2, "multiagent": 2}, llm="fake", concurrency=3,
        batch_size=4, open_share=0,
    )
    client = LLMClient.from_model(LatencyChatModel(call_latency_s=0.0), label="s",
                                  concurrency=parallel)
    summary = await Pipeline(cfg, settings=settings, llm_client=client).run()
    records = json.loads((Path(summary.path) / "scenarios.json").read_text())
    for rec in records:
        rec["provenance"].pop("batch")
        rec["provenance"].pop("run_id")
    return records, client.usage["verbalise"]["calls"]


async def test_spread_calls_word_the_same_scenarios(
    seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    # L = 1: one call per batch of 4 seeds; L = 2: calls of ceil(4 / 2) = 2 seeds.
    one, calls_one = await _run(seeded_settings, tmp_path, 1)
    two, calls_two = await _run(seeded_settings, tmp_path, 2)
    assert len(one) == 8 and two == one
    assert calls_two > calls_one
