"""The domain loop holds accepted open scenarios to the policy's share (DomainJob.open_target).

A domain's stream here is hand-made: every candidate is a distinct seed, open on every other
candidate, so without the target half the accepted scenarios would be open. The checks accept
everything and the words are the seed key, so the counts follow from the rule alone.
"""

from __future__ import annotations

from pathlib import Path

from generator.generate.checks.dedup import DedupIndex
from generator.generate.model import Draft, Rubric, RubricFact, TaskSeed, ToolCall
from generator.generate.run.domain_run import DomainJob, DomainRunner
from generator.generate.run.run_folder import RunFolder


def _seed(candidate: int) -> TaskSeed:
    is_open = candidate % 2 == 0
    return TaskSeed(
        family="o" if is_open else "d", domain="wo", category="Decision Support",
        role="operator", draw=candidate, params={"c": candidate}, mentions=[],
        tool_sequence=[ToolCall(name="get_work_orders", args={})],
        answer={"n": candidate}, answer_summary="", difficulty="easy",
        deterministic=not is_open,
        rubric=Rubric(required=[RubricFact(id="n", key="n", kind="number", expected=candidate,
                                           why="the value")]) if is_open else None,
    )


class _Stream:
    def __init__(self) -> None:
        self.drawn: list[int] = []

    async def __call__(self, domain: str, candidate: int) -> TaskSeed | None:
        self.drawn.append(candidate)
        return _seed(candidate)


class _Pass:
    async def early(self, seed: TaskSeed | None, draft: Draft, domain: str) -> list[str]:
        return []

    async def deterministic(self, seed: TaskSeed | None, draft: Draft, domain: str
                            ) -> list[str]:
        return []


class _Words:
    def verbalise(self, seeds: list[TaskSeed], variant: int = 0) -> list[Draft]:
        # Texts far apart from each other (no near-duplicates): a distinct word per seed.
        return [Draft(seed_key=s.key, text=f"request {s.key} " + "x" * (s.draw % 7) * 9
                      + f" {s.draw * 7919}", characteristic_form="c", category=s.category,
                      verbaliser="template") for s in seeds]


def _job(tmp_path: Path, quota: int, open_target: int | None, max_candidates: int,
         *, kind_known: bool = False) -> DomainJob:
    folder = RunFolder(tmp_path / "run")
    folder.create()
    return DomainJob(
        asset_class="transformer", domain="wo", quota=quota, id_offset=0, id_width=3,
        folder=folder, dedup=DedupIndex(threshold=1.0), drawer=_Stream(), vetter=_Pass(),
        core_tools={}, template=_Words(), llm=None, model_label="none", prompt_version="p",
        batch_size=4, max_repairs=0, max_candidates=max_candidates, open_target=open_target,
        kind=(lambda c: _seed(c).deterministic) if kind_known else None,
    )


async def test_without_a_target_the_stream_decides(tmp_path: Path) -> None:
    out = await DomainRunner(_job(tmp_path, 20, None, 160)).run()
    # candidates 0..19 are accepted in order: 10 open (the even ones), 10 deterministic
    assert (out.accepted, out.open, out.open_skipped) == (20, 10, 0)


async def test_the_target_caps_open_and_keeps_the_rest_for_deterministic(
    tmp_path: Path
) -> None:
    # quota 20, target 3 (0.15 of 20): the first three open candidates (0, 2, 4) fill the
    # open slots; every later open one is passed over while deterministic ones fill the 17
    # others: candidates 1, 3, ..., 33 (17 odd ones). Batches (width max(4, still needed)):
    # 0-19, 20-26, 27-30, 31-34, so the last open candidate drawn is 34.
    out = await DomainRunner(_job(tmp_path, 20, 3, 160)).run()
    assert (out.accepted, out.open) == (20, 3)
    assert out.open_skipped == 15  # open candidates 6, 8, ..., 34
    records = [ln.record for ln in RunFolder(tmp_path / "run").accepted()]
    assert sum(not r.deterministic for r in records) == 3


async def test_past_half_the_bound_any_seed_fills_the_quota(tmp_path: Path) -> None:
    # Bound 30 (half: 15), target 1 open. First batch, candidates 0-19: open 0 is taken,
    # then the deterministic 1, 3, ..., 13 (7; the open 2..14 are passed over); from 15 on
    # every seed is taken: 15-19 (5, of them open 16 and 18). Second batch 20-26 (7 still
    # needed): all taken, open 20, 22, 24, 26. So 20 accepted, 1 + 2 + 4 = 7 open: past
    # half the bound the share gives way, the quota does not.
    out = await DomainRunner(_job(tmp_path, 20, 1, 30)).run()
    assert out.accepted == 20
    assert out.open == 7


async def test_a_kind_known_full_before_the_draw_is_not_drawn(tmp_path: Path) -> None:
    # The case above with the candidates' kind known before drawing (DomainJob.kind): the
    # first batch (0-19) starts with no slot full, so all of it is drawn; at the start of
    # each later batch (20-26, 27-30, 31-34) the three open slots are full, so its open
    # candidates 20, 22, 24, 26, 28, 30, 32, 34 are passed over undrawn. Same scenarios,
    # same count of passed-over candidates.
    plain = await DomainRunner(_job(tmp_path / "a", 20, 3, 160)).run()
    job = _job(tmp_path / "b", 20, 3, 160, kind_known=True)
    out = await DomainRunner(job).run()
    assert (out.accepted, out.open, out.open_skipped) == (plain.accepted, plain.open, 15)
    drawn = job.drawer.drawn  # type: ignore[attr-defined]
    assert drawn == [c for c in range(35) if c < 20 or c % 2 == 1]
    texts = [[ln.record.text for ln in RunFolder(tmp_path / d / "run").accepted()]
             for d in ("a", "b")]
    assert texts[0] == texts[1]
