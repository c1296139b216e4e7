"""The open-scenario contract: the family keyword, the open share of the candidate stream,
the record and check fields, and the manifest's report."""

from __future__ import annotations

from typing import Any

import pytest

from generator.generate.checks.checks import CheckContext, CheckItem, run_checks
from generator.generate.draw.families import FamilySpec, family
from generator.generate.model import (
    Draft,
    ForbiddenClaim,
    Rubric,
    RubricFact,
    ScenarioRecord,
    TaskSeed,
    ToolCall,
)
from generator.generate.run.policy import load_policies
from generator.generate.run.stages import family_slot, open_report


def _rubric(params: dict[str, Any], answer: dict[str, Any]) -> Rubric:
    return Rubric(required=[RubricFact(id="n", key="n", kind="number", expected=answer["n"],
                                       why="the count")])


def _derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"n": 1}


def test_an_open_family_needs_a_rubric_and_a_deterministic_one_takes_none() -> None:
    with pytest.raises(ValueError, match="needs a rubric function"):
        family("x_open_bad", domain="wo", category="Decision Support", derive=_derive,
               summarise=lambda p, a: "", deterministic=False)
    with pytest.raises(ValueError, match="needs a rubric function"):
        family("x_closed_bad", domain="wo", category="Decision Support", derive=_derive,
               summarise=lambda p, a: "", rubric=_rubric)


def _spec(name: str, deterministic: bool) -> FamilySpec:
    async def draw(*a: Any) -> None:
        return None

    return FamilySpec(name=name, domain="wo", category="Decision Support", draw=draw,
                      derive=_derive, summarise=lambda p, a: "", deterministic=deterministic,
                      rubric=None if deterministic else _rubric)


def test_the_open_share_spreads_open_families_over_the_stream() -> None:
    specs = [_spec("a", True), _spec("o", False), _spec("b", True)]
    # Share 0.25: candidates 0, 4, 8, ... are open (ceil((c+1)/4) > ceil(c/4) for c = 0, 4,
    # 8); the others alternate a, b with slots counting each family's own turns.
    got = [(s.name, slot) for s, slot in (family_slot(specs, c, 0.25) for c in range(9))]
    assert got == [("o", 0), ("a", 0), ("b", 0), ("a", 1), ("o", 1), ("b", 1), ("a", 2),
                   ("b", 2), ("o", 2)]
    # Without a share (or without open families) the families take turns as before.
    assert [family_slot(specs, c, None)[0].name for c in range(4)] == ["a", "o", "b", "a"]
    closed = [specs[0], specs[2]]
    assert [family_slot(closed, c, 0.25)[0].name for c in range(3)] == ["a", "b", "a"]


def _seed(deterministic: bool, rubric: Rubric | None) -> TaskSeed:
    return TaskSeed(
        family="open_outage_bundle", domain="wo", category="Decision Support", role="manager",
        draw=0, params={"asset_id": "EAST-TX01"}, grounding={"asset_id": "EAST-TX01"},
        mentions=["EAST-TX01"],
        tool_sequence=[ToolCall(name="get_corrective_work_orders",
                                args={"equipment_id": "EAST-TX01"})],
        answer={"asset_id": "EAST-TX01", "n": 2}, answer_summary="two orders",
        difficulty="hard", deterministic=deterministic, rubric=rubric,
    )


def _draft() -> Draft:
    return Draft(seed_key="open_outage_bundle#0", text="What should we bundle on EAST-TX01?",
                 characteristic_form="The response should use `get_corrective_work_orders`.",
                 category="Decision Support", verbaliser="template")


async def test_rubric_backed_by_reference_checks_every_required_fact() -> None:
    ctx = CheckContext.with_registered_tools(load_policies("transformer"))
    good = Rubric(
        required=[RubricFact(id="asset", key="asset_id", kind="asset_id", expected="EAST-TX01",
                             why="the unit"),
                  RubricFact(id="n", key="n", kind="number", expected=2, why="the count")],
        forbidden=[ForbiddenClaim(id="none", kind="phrase", patterns=["nothing to do"],
                                  why="there is work")],
    )
    item = CheckItem.from_draft(_draft(), _seed(False, good), "wo")
    assert item.deterministic is False
    problems = await run_checks("deterministic", item, ctx)
    assert not [p for p in problems if p.startswith("rubric_backed_by_reference")]
    bad = good.model_copy(update={"required": [
        *good.required,
        RubricFact(id="ghost", key="missing_key", kind="label", expected="x", why="?"),
        RubricFact(id="off", key="n", kind="number", expected=3, why="?"),
    ]})
    problems = await run_checks("deterministic", CheckItem.from_draft(
        _draft(), _seed(False, bad), "wo"), ctx)
    backed = [p for p in problems if p.startswith("rubric_backed_by_reference")]
    assert backed == [
        "rubric_backed_by_reference: required fact 'ghost': the reference has no 'missing_key'",
        "rubric_backed_by_reference: required fact 'off' expects 3 but the reference's n is 2",
    ]
    problems = await run_checks("deterministic", CheckItem.from_draft(
        _draft(), _seed(False, None), "wo"), ctx)
    assert "rubric_backed_by_reference: open seed carries no rubric" in problems


async def test_open_seeds_are_recomputed_and_seedless_open_ones_are_not() -> None:
    calls: list[str] = []

    async def recompute(seed: TaskSeed) -> list[str]:
        calls.append(seed.key)
        return []

    ctx = CheckContext.with_registered_tools(load_policies("transformer"), recompute=recompute)
    seed = _seed(False, _rubric({}, {"n": 2}).model_copy(update={"required": [RubricFact(
        id="n", key="n", kind="number", expected=2, why="the count")]}))
    skipped: list[str] = []
    await run_checks("deterministic", CheckItem.from_draft(_draft(), seed, "wo"), ctx,
                     skipped=skipped)
    assert calls == ["open_outage_bundle#0"]
    assert "reference_answer_recomputes" not in skipped
    skipped = []
    await run_checks("deterministic", CheckItem.from_draft(_draft(), None, "wo"), ctx,
                     skipped=skipped)
    assert "reference_answer_recomputes" in skipped and calls == ["open_outage_bundle#0"]


def _record(rid: str, domain: str, deterministic: bool) -> ScenarioRecord:
    seed = _seed(deterministic, None if deterministic else _rubric({}, {"n": 1}))
    return ScenarioRecord.model_validate({
        "id": rid, "type": domain, "text": "t", "category": "Decision Support",
        "characteristic_form": "c", "deterministic": deterministic, "uuid": rid,
        "asset_class": "transformer", "difficulty": "hard", "expected_tools": [],
        "tool_sequence": [], "reference_answer": seed.answer, "tolerance": {},
        "family": seed.family, "grounding": {}, "rubric": seed.rubric,
        "provenance": {"generator_version": "x", "run_id": "r", "verbaliser": "template",
                       "model": "none", "prompt_version": "p", "batch": 0, "attempts": 1},
    })


def test_open_report_counts_open_records_per_domain() -> None:
    policies = load_policies("transformer")
    records = [_record("1", "wo", False), _record("2", "wo", True), _record("3", "wo", True),
               _record("4", "iot", True), _record("5", "iot", True)]
    report = open_report(records, policies)
    # wo: 1 open of 3 accepted -> 0.333; iot has no open record and no target.
    assert report == {"wo": {"target": 0.15, "accepted": 1, "share": 0.333}}
    # A record with a rubric round-trips through JSON with deterministic false.
    back = ScenarioRecord.model_validate_json(records[0].model_dump_json())
    assert back.deterministic is False and back.rubric == records[0].rubric
