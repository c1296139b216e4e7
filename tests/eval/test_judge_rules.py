"""The rule judge against the live tool registry."""

from __future__ import annotations

from typing import Any

import pytest

from eval.judge_rules import RuleJudge


@pytest.fixture(scope="module")
def judge() -> RuleJudge:
    return RuleJudge()


def _ours(**over: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "id": "t_01", "type": "iot", "category": "Knowledge Query",
        "text": "Which transformers are installed at site EAST, and what is their rating?",
        "characteristic_form": "The response should list the assets of site EAST using "
        "`assets`, and report: EAST-TX01 25 MVA.",
        "deterministic": True, "difficulty": "medium",
        "expected_tools": ["assets"],
        "tool_sequence": [{"name": "assets", "args": {"site_name": "EAST"}}],
        "reference_answer": {"first": "EAST-TX01"},
    }
    rec.update(over)
    return rec


def test_a_complete_record_meets_every_criterion(judge: RuleJudge) -> None:
    verdict = judge.judge_one(_ours())
    assert verdict.scored
    ratings = {d: v.rating for d, v in verdict.dimensions.items()}
    # difficulty: declared and justified (medium, one call) pass; non_trivial fails (one
    # listing call, no constraint word in the text): 2/3 -> 1 + round(8/3) = 4
    assert ratings == {"answerability": 5, "tool_usability": 5, "difficulty": 4,
                       "characteristic_form": 5, "clarity": 5}


def test_tools_missing_from_the_live_registry_are_caught(judge: RuleJudge) -> None:
    rec = {"id": 1, "type": "iot", "category": "Knowledge Query",
           "text": "List all the sensors available for Transformer 1 at the MAIN site.",
           "characteristic_form": "The expected response should be a list of sensors. "
           "This task requires the use of get_sensors tool."}
    verdict = judge.judge_one(rec)
    usability = verdict.dimensions["tool_usability"]
    # tools_named passes, tools_exist fails, no calls, domain_fit n/a: 1/2 -> 1 + 2 = 3
    assert usability.rating == 3
    assert "get_sensors" in usability.reason
    # answerability: no reference, tool missing (entities n/a): 0/2 -> 1
    assert verdict.dimensions["answerability"].rating == 1


def test_tool_calls_must_validate_against_the_tool_schema(judge: RuleJudge) -> None:
    bad = _ours(tool_sequence=[{"name": "assets", "args": {"site": "EAST"}}])
    usability = judge.judge_one(bad).dimensions["tool_usability"]
    # tools_named, tools_exist, domain_fit pass; calls_validate fails: 3/4 -> 1 + 3 = 4
    assert usability.rating == 4
    assert "calls_validate" in usability.reason and "site" in usability.reason


def test_an_unnamed_entity_and_a_tool_name_in_the_text(judge: RuleJudge) -> None:
    rec = _ours(text="Call assets(site_name) and list what you find, then rate them.")
    verdict = judge.judge_one(rec)
    assert "entities_named" in verdict.dimensions["answerability"].reason
    assert "no_tool_names" in verdict.dimensions["clarity"].reason


def test_an_unjustified_hard_label(judge: RuleJudge) -> None:
    rec = _ours(difficulty="hard", text="Which transformers are installed at site EAST?")
    difficulty = judge.judge_one(rec).dimensions["difficulty"]
    # declared passes; justified fails (one call, one domain, no constraint); non_trivial
    # fails (one lookup): 1/3 -> 1 + round(4/3) = 2
    assert difficulty.rating == 2
    assert "justified" in difficulty.reason


def test_a_class_record_read_is_a_lookup_and_a_standard_tool_an_analysis(judge: RuleJudge) -> None:
    # oil_samples is an iot tool that follows no standard: one such read is a single lookup
    # (non_trivial fails, 2/3 -> 4); interpret_dga follows IEC 60599: one call of it is an
    # analysis (non_trivial passes, 3/3 -> 5)
    read = _ours(expected_tools=["oil_samples"], tool_sequence=[
        {"name": "oil_samples", "args": {"asset_id": "EAST-TX01"}}])
    assert judge.judge_one(read).dimensions["difficulty"].rating == 4
    assert "oil_samples" in judge.scan_tools and "interpret_dga" not in judge.scan_tools
    gases = {"hydrogen": 50, "methane": 200, "ethane": 50, "ethylene": 300, "acetylene": 2}
    dga = _ours(type="fmsr", expected_tools=["interpret_dga"], tool_sequence=[
        {"name": "interpret_dga", "args": gases}])
    assert judge.judge_one(dga).dimensions["difficulty"].rating == 5
