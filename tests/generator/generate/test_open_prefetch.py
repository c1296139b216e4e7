"""Open-scenario calls started as soon as the budget is known (``prefetch_open``).

The domain's loop takes the prefetched reply where it used to ask; the call must be made
once, answer the same request, and leave the accepted scenarios unchanged.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from generator.bench.latency_llm import LatencyChatModel
from generator.config import StoreSettings
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig
from generator.generate.verbalise.verbalise_llm import LLMVerbaliser
from generator.llm.client import LLMClient


def _profile() -> Any:
    """The profile fields the open prompt reads."""
    return SimpleNamespace(
        display_name="Power transformer",
        inventory=SimpleNamespace(sites=["NORTH"], assets=[]),
        failure_modes=[],
        standards=[],
    )


def _client() -> tuple[LLMClient, LatencyChatModel]:
    model = LatencyChatModel(call_latency_s=0.0)
    return LLMClient.from_model(model, label="latency"), model


async def test_a_prefetched_open_call_is_made_once_and_answers_the_same_request() -> None:
    profile = _profile()
    client, model = _client()
    llm = LLMVerbaliser(client, "transformer")
    llm.prefetch_open(profile, "fmsr", 2, ["tool_a"])
    llm.prefetch_open(profile, "fmsr", 2, ["tool_a"])  # the same request: still one call
    got = await llm.open_scenarios(profile, "fmsr", 2, ["tool_a"])
    assert len(model.calls) == 1

    fresh_client, _ = _client()
    expected = await LLMVerbaliser(fresh_client, "transformer").open_scenarios(
        profile, "fmsr", 2, ["tool_a"]
    )
    assert got == expected
    # Taken once: asking again (or another request) makes a new call.
    await llm.open_scenarios(profile, "fmsr", 2, ["tool_a"])
    await llm.open_scenarios(profile, "fmsr", 3, ["tool_a"])
    assert len(model.calls) == 3


async def test_prefetched_calls_no_domain_took_are_cancelled() -> None:
    profile = _profile()
    model = LatencyChatModel(call_latency_s=30.0)
    llm = LLMVerbaliser(LLMClient.from_model(model, label="slow"), "transformer")
    llm.prefetch_open(profile, "wo", 1, [])
    await asyncio.sleep(0)
    assert llm.cancel_prefetched() == 1
    assert llm.cancel_prefetched() == 0


# -- the whole pipeline on a seeded store --------------------------------------------------


@pytest.fixture()
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))


def _scenarios(run: Path) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads((run / "scenarios.json").read_text())
    for rec in records:
        rec["provenance"].pop("run_id")
    return records


@pytest.mark.couch
@pytest.mark.usefixtures("_isolated_cache")
async def test_prefetching_the_open_calls_keeps_the_scenarios_and_the_calls(
    seeded_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # open_share 0.2 of these quotas: int(5 * 0.2) = 1 open scenario asked in fmsr and in
    # wo, int(4 * 0.2) = 0 in iot: two open calls, whether prefetched or asked in the loop.
    # One domain at a time (iot, fmsr, wo): asked in its loop, wo's open call starts after
    # the verbalise calls of iot and fmsr; prefetched, before any of them.
    budget = {"iot": 4, "fmsr": 5, "wo": 5}

    async def run(run_id: str) -> tuple[Path, list[Any]]:
        cfg = GenerateConfig(
            n=sum(budget.values()), seed=11, out_dir=str(tmp_path), run_id=run_id,
            negatives=0, budget=budget, llm="fake", concurrency=1, batch_size=3,
            open_share=0.2,
        )
        client = LLMClient.from_model(LatencyChatModel(call_latency_s=0.0), label="latency")
        summary = await Pipeline(cfg, settings=seeded_settings, llm_client=client).run()
        return Path(summary.path), client.timings

    early, early_calls = await run("early")
    monkeypatch.setattr(Pipeline, "_prefetch_open", lambda *args: None)
    late, late_calls = await run("late")

    assert _scenarios(early) == _scenarios(late)
    assert [c.stage for c in early_calls].count("open") == 2
    assert [c.stage for c in late_calls].count("open") == 2
    for calls, prefetched in ((early_calls, True), (late_calls, False)):
        first_verbalise = min(c.start for c in calls if c.stage == "verbalise")
        opens_first = all(c.start < first_verbalise for c in calls if c.stage == "open")
        assert opens_first is prefetched
