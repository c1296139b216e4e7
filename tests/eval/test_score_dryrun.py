"""The dry-run 50 from hand-built DryRunReport fixtures (the grader is another branch's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval.model import DryRunReport, DryRunResult, GradeResult
from eval.score import score_path, score_records
from eval.score_dryrun import load_dry_run, score_dry_run
from generator.errors import UserError

RECORDS: list[dict[str, Any]] = [
    {"id": f"s{i}", "type": "iot", "category": "Knowledge Query",
     "text": f"Which assets are installed at site EAST number {i}?",
     "characteristic_form": "The response should list the assets, using the assets tool.",
     "reference_answer": {"assets": ["EAST-TX01"]}}
    for i in range(1, 5)
]


def _result(rid: str, score: float, called: list[str], errors: int = 0,
            failure: str | None = None, gradable: bool = True) -> DryRunResult:
    grade = GradeResult(id=rid, domain="iot", difficulty="easy", negative=False,
                        feasible=score == 1.0, score=score, gradable=gradable)
    return DryRunResult(
        id=rid, agent="reference", domain="iot", difficulty="easy", grade=grade,
        failure_class=failure, final_answer="...", expected_tools=["sites", "assets"],
        tools_called=called, tool_errors=errors, steps=[], tokens=100, latency_s=1.0,
    )


def _report(results: list[DryRunResult]) -> DryRunReport:
    return DryRunReport(agent="reference", scenarios=len(results), mean_score=0.0,
                        pass_rate=0.0, failure_classes={"wrong_answer": 1, "tool_error": 1},
                        tokens=400, seconds=4.0, results=results)


REPORT = _report([
    _result("s1", 1.0, ["sites", "assets"]),                       # all good
    _result("s2", 0.5, ["assets", "sites"], failure="wrong_answer"),  # order reversed
    _result("s3", 1.0, ["sites"]),                                  # missed `assets`
    _result("s4", 0.0, ["sites", "assets"], errors=2, failure="tool_error"),
])


def test_dry_run_points_by_hand() -> None:
    part, per, problems = score_dry_run(RECORDS, REPORT)
    comp = {c.name: c for c in part.components}
    # plausible: mean grade (1 + 0.5 + 1 + 0) / 4 = 0.625 -> 20 * 0.625 = 12.5
    assert comp["plausible"].points == pytest.approx(12.5)
    # correct tools (order-free subset): s1, s2, s4 -> 3/4 -> 15 * 0.75 = 11.25
    assert comp["correct_tools"].points == pytest.approx(11.25)
    assert "order-aware: 2" in comp["correct_tools"].reason  # s2 called them reversed
    # no errors: s1, s2 (wrong answer is not an error), s3 -> 3/4 -> 11.25
    assert comp["no_errors"].points == pytest.approx(11.25)
    assert part.points == pytest.approx(35.0)
    # per scenario: s1 20+15+15 = 50; s2 10+15+15 = 40; s3 20+0+15 = 35; s4 0+15+0 = 15
    assert per == pytest.approx([50.0, 40.0, 35.0, 15.0])
    assert any("did not call assets" in p for p in problems[2])


def test_dry_run_file_through_score_path(tmp_path: Path) -> None:
    (tmp_path / "set.json").write_text(json.dumps(RECORDS))
    (tmp_path / "dryrun.json").write_text(REPORT.model_dump_json())
    score = score_path(tmp_path / "set.json", dry_run_file=tmp_path / "dryrun.json")
    assert score.part("dry_run").ran and score.dry_run_agent == "reference"
    assert score.max_points == 100.0
    assert score.failure_classes == {"wrong_answer": 1, "tool_error": 1}
    assert any(s.stage == "dry_run:reference" and s.tokens == 400 for s in score.stages)


def test_dry_run_off_is_not_run_and_rescaled() -> None:
    from eval.judge_rules import RuleJudge

    score = score_records(RECORDS, judges=[RuleJudge()])
    dry = score.part("dry_run")
    assert not dry.ran and dry.points is None
    assert score.max_points == 50.0
    assert score.score_100 == pytest.approx(score.points / 50.0 * 100.0, abs=0.01)
    assert any("dry_run not run" in n for n in score.notes)


def test_without_gradable_results_the_dry_run_says_so() -> None:
    report = _report([_result(f"s{i}", 0.0, ["sites"], gradable=False) for i in range(1, 5)])
    part, per, _ = score_dry_run(RECORDS, report)
    assert not part.ran and "no gradable result" in part.note
    assert per == [None] * 4


def test_upstream_set_without_references_skips_the_reference_dry_run(
    project_root: Path,
) -> None:
    path = project_root / "tests/fixtures/upstream/paper_generated_transformer_scenarios.json"
    score = score_path(path, dry_run="reference")
    assert not score.part("dry_run").ran
    assert "no reference answers" in score.part("dry_run").note
    assert score.max_points == 50.0


def test_a_report_of_another_set_is_a_user_error(tmp_path: Path) -> None:
    other = _report([_result("zz", 1.0, ["sites", "assets"])])
    with pytest.raises(UserError, match="shares no scenario id"):
        score_dry_run(RECORDS, other)
    bad = tmp_path / "bad.json"
    bad.write_text('{"agent": "x"}')
    with pytest.raises(UserError, match="not a dry-run report"):
        load_dry_run(bad)
