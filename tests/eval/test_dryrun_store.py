"""Dry runs against a generated run on the seeded store: the reference agent, SmolLM2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.dryrun import run_dry
from eval.grade_answers import load_scenarios
from eval.model import DryRunResult
from generator.config import StoreSettings


@pytest.fixture
def generated_run(seeded_settings: StoreSettings, tmp_path: Path,
                  monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small template run (8 scenarios, 2 negatives) on the session's seeded store."""
    import asyncio

    from generator.generate.run.pipeline import Pipeline
    from generator.generate.run.run_config import GenerateConfig

    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))
    cfg = GenerateConfig(n=8, seed=11, out_dir=str(tmp_path), run_id="r", negatives=2)
    asyncio.run(Pipeline(cfg, settings=seeded_settings).run())
    return tmp_path / "r"


@pytest.mark.couch
def test_the_reference_agent_passes_every_scenario_and_catches_a_bad_reference(
    generated_run: Path, seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    import asyncio

    records = load_scenarios(generated_run)
    assert len(records) == 10
    report = asyncio.run(run_dry(records, "reference", scenarios_path=generated_run,
                                 settings=seeded_settings, concurrency=2))
    assert report.pass_rate == 1.0 and report.mean_score == 1.0, [
        (r.id, r.failure_class, r.error) for r in report.results if r.failure_class]
    negatives = [r for r in report.results if r.grade.negative]
    assert len(negatives) == 2 and all("cannot" in (r.final_answer or "") for r in negatives)
    # A stored reference the tools no longer support fails, with the fact named.
    first = next(r for r in records if not r.get("negative"))
    key = next(iter(first["reference_answer"]))
    tampered = {**first, "reference_answer": {**first["reference_answer"], key: "tampered"}}
    (tmp_path / "t").mkdir()
    bad = asyncio.run(run_dry([tampered], "reference", scenarios_path=generated_run,
                              settings=seeded_settings))
    r = bad.results[0]
    assert r.failure_class == "wrong_answer" and r.grade.violations[0].path.startswith(key)


@pytest.mark.couch
@pytest.mark.smollm2
def test_a_smollm2_agent_dry_run_completes_with_classed_failures(
    smollm2_ready: None, generated_run: Path, seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    import asyncio

    records = load_scenarios(generated_run)
    out = tmp_path / "smol"
    report = asyncio.run(run_dry(records, "llm:smollm2", sample=5, max_steps=4, timeout=300,
                                 concurrency=1, out=out, settings=seeded_settings))
    assert report.scenarios == 5 and report.agent == "llm:smollm2"
    saved = sorted((out / "trajectories").glob("*.json"))
    assert len(saved) == 5
    for path in saved:
        r = DryRunResult.model_validate_json(path.read_text())
        # Every attempt is graded and either passes or carries one failure class.
        assert r.failure_class is None or r.failure_class in report.failure_classes
        assert r.steps, r.id
    assert sum(report.failure_classes.values()) + round(report.pass_rate * 5) == 5
    assert json.loads((out / "dryrun.json").read_text())["scenarios"] == 5
