"""A real small run through the bench reports wall / bound ≥ 1 with its gap split."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.bench.experiments import BenchConfig, run_one
from generator.bench.latency_llm import LatencyChatModel
from generator.config import StoreSettings

pytestmark = pytest.mark.couch


async def test_a_small_run_reports_wall_over_bound_at_least_one(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))
    cfg = BenchConfig(experiment="t", label="N=8", n=8, concurrency=3, batch_size=3,
                      cache="warm", baseline=False)
    res = await run_one(
        cfg, 0, seed=1, warm_dir=tmp_path / "warm", out_dir=tmp_path / "runs", score=False,
        make_model=lambda: LatencyChatModel(call_latency_s=0.02, token_latency_s=0.0001),
        settings=seeded_settings,
    )
    assert res.llm_calls > 0 and res.critical_calls >= 1
    assert 0 < res.bound_s <= res.wall_s
    # at most `concurrency` (4) calls run at once, so their seconds / 4 fit in the wall
    assert 0 < res.slots_bound_s <= res.wall_s
    assert res.chain_call_s > 0 and res.chain_call_s + res.chain_cpu_s == pytest.approx(
        res.bound_s, abs=2e-3)
    # the gap is split exactly into queueing and waiting (each rounded to the millisecond)
    assert res.wall_s - res.bound_s == pytest.approx(res.queue_s + res.waiting_s, abs=3e-3)


async def test_multi_agent_calls_depend_on_their_parents_acceptance(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from generator.generate.run.pipeline import Pipeline
    from generator.generate.run.run_config import GenerateConfig
    from generator.llm.client import LLMClient

    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))
    cfg = GenerateConfig(
        n=5, seed=777, out_dir=str(tmp_path), run_id="ma", negatives=0,
        budget={"iot": 3, "multiagent": 2}, llm="fake", concurrency=3, batch_size=2,
        open_share=0,
    )
    client = LLMClient.from_model(LatencyChatModel(call_latency_s=0.0), label="t",
                                  concurrency=1)
    summary = await Pipeline(cfg, settings=seeded_settings, llm_client=client).run()
    assert summary.accepted.get("multiagent") == 2
    calls = client.timings
    # Both domains start at once (3 slots). iot's first batch (quota 3 + 25 % spares = 4
    # candidates; ceil(batch 2 / 1 parallel call) = 2 seeds a call) is two calls that
    # depend on nothing (a manual budget, no open calls). The multi-agent domain composes
    # from iot's accepted seeds: its calls wait for them, so they depend on the iot calls
    # that got the parents accepted (without those edges its first call has none: 3 roots).
    roots = [c for c in calls if not c.after]
    assert len(roots) == 2 and len(calls) > 2
    assert all(c.stage == "verbalise" for c in roots)
