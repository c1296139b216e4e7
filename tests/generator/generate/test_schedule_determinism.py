"""Same seed and options → same scenarios, whatever the timing and the concurrency.

Multi-agent starts while its parent domains still run (it waits for each parent seed it
needs), so the LLM's reply times and the number of domains in flight change when things
happen; they must not change what is accepted. The stand-in LLM here answers after a
random delay (a different random stream per run).
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import PrivateAttr

from generator.bench.latency_llm import LatencyChatModel
from generator.config import StoreSettings
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig
from generator.llm.client import LLMClient

pytestmark = pytest.mark.couch
BUDGET = {"iot": 3, "fmsr": 3, "tsfm": 2, "multiagent": 4}


class JitteryChatModel(LatencyChatModel):
    """The latency stand-in with a random delay (0 to 30 ms) per call."""

    jitter_seed: int = 0
    _rng: random.Random = PrivateAttr(default_factory=random.Random)

    def model_post_init(self, context: Any) -> None:
        self._rng = random.Random(self.jitter_seed)

    async def _agenerate(
        self, messages: list[BaseMessage], stop: list[str] | None = None,
        run_manager: Any = None, **kwargs: Any,
    ) -> ChatResult:
        await asyncio.sleep(self._rng.uniform(0.0, 0.03))
        return await super()._agenerate(messages, stop, run_manager, **kwargs)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCENARIOGEN_CACHE_DIR", str(tmp_path / "cache"))


def _scenarios(run: Path) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads((run / "scenarios.json").read_text())
    for rec in records:
        rec["provenance"].pop("batch")  # counts the batches of the accepting process
        rec["provenance"].pop("run_id")
    return records


async def _run(
    settings: StoreSettings, tmp_path: Path, run_id: str, concurrency: int, jitter: int
) -> Path:
    cfg = GenerateConfig(
        n=sum(BUDGET.values()), seed=777, out_dir=str(tmp_path), run_id=run_id, negatives=0,
        budget=BUDGET, llm="fake", concurrency=concurrency, batch_size=2, open_share=0,
    )
    model = JitteryChatModel(call_latency_s=0.0, jitter_seed=jitter)
    summary = await Pipeline(
        cfg, settings=settings, llm_client=LLMClient.from_model(model, label="j")
    ).run()
    assert summary.accepted.get("multiagent") == BUDGET["multiagent"]
    return Path(summary.path)


async def test_concurrency_and_llm_timing_do_not_change_the_scenarios(
    seeded_settings: StoreSettings, tmp_path: Path
) -> None:
    runs = [(1, 1), (3, 2), (5, 3)]  # (domains in flight, jitter stream)
    got = [_scenarios(await _run(seeded_settings, tmp_path, f"r{c}", c, j)) for c, j in runs]
    assert [r["type"] for r in got[0]].count("multiagent") == BUDGET["multiagent"]
    assert got[1] == got[0]
    assert got[2] == got[0]
