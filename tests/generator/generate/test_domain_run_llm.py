"""The LLM path's schedule in one domain (``DomainJob.overlap_llm``), with hand-made fakes.

Five candidates, quota 4, batch size 5: ``ceil((4 + ceil(4 × 0.25)) / 5) × 5 = 5`` are
verbalised in one call. A rejected first draft is repaired only when the passing drafts
fall short of the quota; the open call is in flight while the first batch is verbalised.
The baseline-style job (``overlap_llm`` off) repairs every rejection, as before.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

from generator.generate.model import Draft, TaskSeed, ToolCall
from generator.generate.run.domain_run import DomainJob, DomainRunner
from generator.generate.run.run_folder import RunFolder


def _seed(c: int) -> TaskSeed:
    return TaskSeed(
        family="iot_fake", domain="iot", category="Inference Query", role="operator",
        draw=c, params={"c": c}, grounding={"asset_id": "NORTH-TX01"},
        mentions=["NORTH-TX01"], tool_sequence=[ToolCall(name="history", args={})],
        answer={"c": c}, answer_summary=f"c {c}", difficulty="hard",
    )


class Words:
    """The LLM verbaliser's interface: records its calls; 'open' waits for a verbalise call."""

    prompt_version = "test"

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.verbalised = asyncio.Event()

    async def verbalise(self, seeds: list[TaskSeed], core_tools: Any) -> list[Draft]:
        self.calls.append(f"verbalise {len(seeds)}")
        self.verbalised.set()
        return [_draft(s.key, "first") for s in seeds]

    async def repair(self, seed: TaskSeed, draft: Any, reasons: Any, tools: Any) -> Draft:
        self.calls.append(f"repair {seed.draw}")
        return _draft(seed.key, "second")

    async def open_scenarios(self, profile: Any, domain: str, k: int, tools: Any) -> list[Draft]:
        self.calls.append("open")
        # Only an open call still in flight when the batch is verbalised ever returns.
        await asyncio.wait_for(self.verbalised.wait(), timeout=5)
        return [_draft(f"open:{domain}#0", "open")]


def _draft(key: str, attempt: str) -> Draft:
    return Draft(seed_key=key, text=f"{attempt} words of {key}", characteristic_form="cf",
                 category="Inference Query", verbaliser="llm")


class Vetter:
    """First drafts of the candidates in ``bad`` fail an early check; the rest pass."""

    def __init__(self, bad: set[int]) -> None:
        self.bad = bad

    async def early(self, seed: TaskSeed | None, draft: Draft, domain: str) -> list[str]:
        if seed is not None and seed.draw in self.bad and draft.text.startswith("first"):
            return ["fake_check: first wording fails"]
        return []

    async def deterministic(self, seed: TaskSeed | None, draft: Draft, domain: str) -> list[str]:
        return []


class Dedup:
    def check_and_add(self, text: str, key: str, *, domain: str | None = None
                      ) -> tuple[bool, str | None, float]:
        return True, None, 0.0


async def _run(
    tmp_path: Path, bad: set[int], *, overlap: bool, open_quota: int = 0
) -> tuple[list[str], list[int | None], Words]:
    async def drawer(domain: str, candidate: int) -> TaskSeed | None:
        return _seed(candidate)

    folder = RunFolder(tmp_path / ("overlap" if overlap else "plain"))
    folder.create()
    words = Words()
    job = DomainJob(
        asset_class="transformer", domain="iot", quota=4, id_offset=0, id_width=2,
        folder=folder, dedup=cast(Any, Dedup()), drawer=drawer, vetter=Vetter(bad),
        core_tools={"iot": ["history"]}, template=cast(Any, None), llm=cast(Any, words),
        model_label="fake", prompt_version="test", batch_size=5, max_repairs=2,
        max_candidates=32, open_quota=open_quota, profile=object(), overlap_llm=overlap,
    )
    out = await DomainRunner(job).run()
    assert out.accepted == 4
    draws = [ln.seed.draw if ln.seed else None for ln in folder.accepted()]
    return words.calls, draws, words


async def test_spare_drafts_fill_the_quota_without_a_repair_round(tmp_path: Path) -> None:
    calls, draws, _ = await _run(tmp_path, {1}, overlap=True)
    # candidate 1 fails; 0, 2, 3 and 4 pass and fill the quota of 4: no repair call
    assert calls == ["verbalise 5"]
    assert draws == [0, 2, 3, 4]


async def test_without_overlap_every_rejection_is_repaired_in_stream_order(
    tmp_path: Path,
) -> None:
    calls, draws, _ = await _run(tmp_path, {1}, overlap=False)
    # width max(5, 4) = 5; candidate 1 is repaired and accepted in its place in the stream
    assert calls == ["verbalise 5", "repair 1"]
    assert draws == [0, 1, 2, 3]


async def test_a_shortfall_repairs_the_held_drafts(tmp_path: Path) -> None:
    calls, draws, _ = await _run(tmp_path, {1, 3}, overlap=True)
    # 0, 2, 4 pass (3 < 4): both rejected drafts are repaired in the same round
    assert calls[0] == "verbalise 5" and sorted(calls[1:]) == ["repair 1", "repair 3"]
    assert draws == [0, 1, 2, 3]


async def test_the_open_call_overlaps_the_first_batch(tmp_path: Path) -> None:
    # Sequential open then batch would wait forever (5 s timeout) for a verbalise call.
    calls, draws, _ = await _run(tmp_path, set(), overlap=True, open_quota=1)
    assert calls == ["open", "verbalise 5"]
    # the open scenario comes first; the seeded batch was sized for quota - open quota:
    # need 3, ceil((3 + 1) / 5) x 5 = 5 candidates, of which 0, 1, 2 fill the rest
    assert draws == [None, 0, 1, 2]
