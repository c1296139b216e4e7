"""The SmolLM2 path end to end: the real offline model verbalises, the checks judge it.

Quality is not judged (135M parameters): the run must finish, write its folder, count the
model's tokens and account for every candidate as accepted or rejected with reasons.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.config import StoreSettings
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig

pytestmark = pytest.mark.smollm2


async def test_generation_with_smollm2_runs_end_to_end(
    smollm2_ready: None,
    seeded_settings: StoreSettings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))
    cfg = GenerateConfig(
        n=2, seed=3, llm="smollm2", budget={"iot": 2}, negatives=0, out_dir=str(tmp_path),
        run_id="smol", concurrency=1, batch_size=2, max_repairs=1, candidates_per_slot=1,
        open_share=0,
    )
    summary = await Pipeline(cfg, settings=seeded_settings).run()
    run = tmp_path / "smol"
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["config"]["llm"] == "smollm2"
    assert summary.tokens["verbalise"]["calls"] >= 1
    assert summary.tokens["verbalise"]["output_tokens"] > 0
    accepted = json.loads((run / "scenarios.json").read_text())
    rejected = [
        json.loads(line)
        for line in (run / "rejected.jsonl").read_text().splitlines()
        if line.strip()
    ] if (run / "rejected.jsonl").exists() else []
    assert len(accepted) == summary.total <= 2
    # Every drawn candidate ends accepted or with at least one rejection line.
    keys = {r["provenance"]["family"] for r in accepted} | {x["seed_key"] for x in rejected}
    assert keys and all(x["reasons"] for x in rejected)
    assert all(r["provenance"]["model"] == "smollm2" for r in accepted)
