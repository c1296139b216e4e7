"""Rubric grading of open scenarios and grading of clarification requests, with hand-written
answers: a good one, one missing a required fact, one making a forbidden claim."""

from __future__ import annotations

from typing import Any

import pytest

from assets.transformer.families_open import (
    _bundle_derive,
    _bundle_rubric,
    _disagreement_derive,
    _disagreement_rubric,
    _plan_derive,
    _plan_rubric,
)
from eval.dryrun import summarise
from eval.grade import grade, grade_set
from eval.model import DryRunResult
from tests.assets.transformer.test_families_open import SAMPLE, _dga_output, _wo


def _record(sid: str, domain: str, answer: dict[str, Any], rubric: Any) -> dict[str, Any]:
    return {"id": sid, "type": domain, "text": "…", "category": "Decision Support",
            "characteristic_form": "…", "deterministic": False, "difficulty": "hard",
            "reference_answer": answer, "rubric": rubric.model_dump(mode="json")}


@pytest.fixture
def disagreement() -> dict[str, Any]:
    params = {"asset_id": "SOUTH-TX01", "site": "SOUTH", "sample_day": "2026-06-28"}
    answer = _disagreement_derive(params, [{"records": [SAMPLE]}, _dga_output(SAMPLE)])
    # iec D2, rogers D1, duval D2 (worked by hand in test_families_open)
    return _record("open_1", "fmsr", answer, _disagreement_rubric(params, answer))


@pytest.fixture
def bundle() -> dict[str, Any]:
    pm = [_wo("WO-EAST-TX02-004", "2026-07-05T08:00:00", "PM-INSP", True)]
    cm = [_wo("WO-EAST-TX02-003", "2026-06-20T12:00:00", "OP-OVL", False),
          _wo("WO-EAST-TX02-005", "2026-07-10T09:00:00", "TH-T1", False)]
    params = {"asset_id": "EAST-TX02", "as_of": "2026-07-15", "lead_days": 10}
    answer = _bundle_derive(params, [{"work_orders": pm}, {"work_orders": cm}])
    # corrective WO-...-003 and -005; inspection due 2026-08-04, bundled
    return _record("open_2", "wo", answer, _bundle_rubric(params, answer))


@pytest.fixture
def plan() -> dict[str, Any]:
    hi = {"health_index": 45.0, "condition": "poor"}
    cm = {"work_orders": [_wo("WO-1", "2026-06-10T00:00:00", "OP-OVL", False),
                          _wo("WO-2", "2026-06-30T00:00:00", "EL-D2", False)]}
    params = {"asset_id": "SOUTH-TX01", "site": "SOUTH"}
    answer = _plan_derive(params, [{"records": [SAMPLE]}, _dga_output(SAMPLE), hi, cm])
    # D2, poor (45.0), two corrective orders
    return _record("open_3", "multiagent", answer, _plan_rubric(params, answer))


def _names(result: Any) -> list[str]:
    return [v.name for v in result.violations]


# -- DGA disagreement ------------------------------------------------------------------------


def test_disagreement_good_answer_passes(disagreement: dict[str, Any]) -> None:
    good = ("For SOUTH-TX01 (sample of 2026-06-28) the IEC ratios give D2, Duval triangle 1 "
            "also lands in D2, but the Rogers codes read D1 (a low-energy discharge). The ratios "
            "sit close to the D1/D2 boundary, so the methods differ. Treat it as D2: remove "
            "the unit from service for internal inspection.")
    r = grade(disagreement, good)
    assert (r.kind, r.feasible, r.score) == ("rubric", True, 1.0), r.violations


def test_disagreement_missing_rogers_class_fails(disagreement: dict[str, Any]) -> None:
    # Only D2 named: the Rogers D1 fact is missing -> 3 of 4 required.
    r = grade(disagreement, "SOUTH-TX01: IEC and Duval both say D2. Take it out of service.")
    assert not r.feasible and r.score == pytest.approx(0.75)
    assert _names(r) == ["missing_fact"] and r.violations[0].path == "methods.rogers"


def test_disagreement_claiming_agreement_is_forbidden(disagreement: dict[str, Any]) -> None:
    answer = ("SOUTH-TX01: IEC gives D2, Rogers D1 and Duval D2; all three methods agree on a "
              "discharge, nothing to worry about.")
    r = grade(disagreement, answer)
    assert not r.feasible and "forbidden_claim" in _names(r)
    assert r.score == pytest.approx(0.5)  # 4/4 required - 0.5 for one forbidden claim


def test_disagreement_negated_class_is_not_a_claim(disagreement: dict[str, Any]) -> None:
    answer = ("SOUTH-TX01: IEC D2, Rogers D1, Duval D2. This is not T3 and the methods do not "
              "agree; act on D2.")
    assert grade(disagreement, answer).feasible


def test_disagreement_asserting_a_class_no_method_gives(disagreement: dict[str, Any]) -> None:
    answer = "SOUTH-TX01: IEC D2, Rogers D1, Duval D2, so it is really a T3 thermal fault."
    r = grade(disagreement, answer)
    assert not r.feasible
    assert [v.path for v in r.violations] == ["class_no_method_gives"]


def test_reference_facts_pass_their_own_rubric(disagreement: dict[str, Any],
                                               bundle: dict[str, Any],
                                               plan: dict[str, Any]) -> None:
    # The reference agent of a dry run answers with the computed facts (a dict).
    for record in (disagreement, bundle, plan):
        r = grade(record, record["reference_answer"])
        assert r.feasible, (record["id"], r.violations)


# -- outage bundle -----------------------------------------------------------------------------


def test_bundle_good_answer_passes(bundle: dict[str, Any]) -> None:
    good = ("During the EAST-TX02 outage (2026-07-25 to 2026-07-27) close out WO-EAST-TX02-003 "
            "(overload investigation) and WO-EAST-TX02-005 (thermal T1 follow-up), and bring "
            "forward the monthly inspection due 2026-08-04.")
    r = grade(bundle, good)
    assert r.feasible, r.violations


def test_bundle_missing_an_order_fails(bundle: dict[str, Any]) -> None:
    r = grade(bundle, "EAST-TX02: do WO-EAST-TX02-005 and the inspection due 2026-08-04.")
    assert not r.feasible and r.score == pytest.approx(0.75)
    assert [v.expected for v in r.violations] == ["WO-EAST-TX02-003"]


def test_bundle_nothing_to_bundle_is_forbidden(bundle: dict[str, Any]) -> None:
    answer = ("EAST-TX02 has WO-EAST-TX02-003 and WO-EAST-TX02-005 on record, inspection due "
              "2026-08-04, but there is nothing to bundle into the outage.")
    r = grade(bundle, answer)
    assert [v.path for v in r.violations] == ["nothing_to_bundle"]


def test_bundle_an_event_dated_after_the_day_the_question_is_written_is_forbidden(
        bundle: dict[str, Any]) -> None:
    record = {**bundle, "text": "EAST-TX02 is out for two days from 25 July 2026 and it's "
                                "Wednesday 15 July 2026. What do we bundle?"}
    good = ("EAST-TX02 outage 25-26 July: close out WO-EAST-TX02-003 and WO-EAST-TX02-005, and "
            "bring forward the monthly inspection due 4 August 2026.")
    assert grade(record, good).feasible
    for late in ("; also check the cooling after the 19 July pump alarm.",
                 "; the unit tripped on 21 July, so test the relays too."):
        r = grade(record, good + late)
        assert not r.feasible and [v.path for v in r.violations] == ["as_of"], late
    assert grade({**bundle, "text": "EAST-TX02 is out for two days from 25 July 2026. What "
                                    "do we bundle?"}, good + late).feasible


# -- maintenance plan --------------------------------------------------------------------------


def test_plan_good_answer_passes(plan: dict[str, Any]) -> None:
    good = ("SOUTH-TX01 first: the latest DGA shows D2 (high-energy discharge), so take it out "
            "for internal inspection. Its health index is 45, in the poor band, so plan a "
            "condition assessment next. Then close out the 2 corrective work orders on record.")
    r = grade(plan, good)
    assert r.feasible, r.violations


def test_plan_numbered_with_another_action_before_the_first_step_fails(
        plan: dict[str, Any]) -> None:
    from generator.contract import parse_contracts

    steps = {"kind": "labels", "ordered": True, "labels": {
        "dga_action": ["act on the gases", "resample", "internal inspection"],
        "condition_assessment": ["condition assessment"],
        "corrective_followup": ["close out the corrective"],
        "routine_monitoring": ["routine sampling"]}}
    contract = parse_contracts({"plan": {"steps": steps}}, "test")["plan"]
    record = {**plan, "answer_contract": contract.model_dump(mode="json")}
    facts = ("D2 (high-energy discharge), health index 45 (poor band), 2 corrective orders "
             "on record")
    good = (f"SOUTH-TX01, {facts}. Plan: 1. internal inspection for the discharge; 2. condition "
            "assessment; 3. close out the corrective orders; 4. routine sampling.")
    assert grade(record, good).feasible
    bad = (f"SOUTH-TX01, {facts}. Plan: 1) replace the silica gel breather; 2) resample and "
           "plan the internal inspection; 3) condition assessment.")
    r = grade(record, bad)
    assert not r.feasible and [v.path for v in r.violations] == ["steps"]


def test_plan_missing_health_band_fails(plan: dict[str, Any]) -> None:
    r = grade(plan, "SOUTH-TX01: D2 in the oil, inspect it; two corrective orders to close.")
    assert not r.feasible
    assert [v.path for v in r.violations] == ["health_condition"]


def test_plan_wrong_health_index_and_no_action_are_forbidden(plan: dict[str, Any]) -> None:
    answer = ("SOUTH-TX01 shows D2 but the health index is 82, poor only on paper; two "
              "corrective orders. No action is needed.")
    r = grade(plan, answer)
    assert sorted(v.path for v in r.violations) == ["health_index_off", "no_action"]
    assert r.score == 0.0  # 4/4 - 2 × 0.5


# -- clarification -----------------------------------------------------------------------------


@pytest.fixture
def ask() -> dict[str, Any]:
    return {"id": "ask_1", "type": "iot", "text": "How hot did the transformer at EAST get?",
            "deterministic": True, "difficulty": "easy",
            "reference_answer": {"clarification_needed": True,
                                 "ambiguity": "EAST has three units",
                                 "options": ["EAST-TX01", "EAST-TX02", "EAST-TX03"]}}


def test_clarification_naming_the_options_passes(ask: dict[str, Any]) -> None:
    r = grade(ask, "EAST has several units. Which one do you mean: EAST-TX01, EAST-TX02 or "
                   "EAST-TX03?")
    assert (r.kind, r.feasible, r.score) == ("clarification", True, 1.0)


def test_clarification_saying_how_many_passes(ask: dict[str, Any]) -> None:
    assert grade(ask, "There are three units at EAST. Could you clarify which one?").feasible


def test_clarification_without_options_is_half(ask: dict[str, Any]) -> None:
    r = grade(ask, "Could you clarify which unit you are asking about?")
    assert (r.feasible, r.score) == (False, 0.5)
    assert _names(r) == ["options_not_named"]


def test_clarification_that_just_answers_fails(ask: dict[str, Any]) -> None:
    r = grade(ask, "EAST-TX01 peaked at 78.2 °C.")
    assert (r.feasible, r.score) == (False, 0.0)
    assert _names(r) == ["no_clarification"]


def test_structured_clarification_passes(ask: dict[str, Any]) -> None:
    assert grade(ask, dict(ask["reference_answer"])).feasible


def test_clarification_stated_as_needed_with_sensors_named_in_words() -> None:
    ask = {"id": "ask_2", "type": "iot", "asset_class": "transformer",
           "text": "What is the latest voltage of WEST-TX03?", "difficulty": "easy",
           "reference_answer": {"clarification_needed": True, "ambiguity": "which voltage",
                                "options": ["vl1", "vl2", "vl3"]}}
    said = ("I require clarification first - voltage may be: phase 1 voltage to neutral, "
            "phase 2 voltage to neutral, phase 3 voltage to neutral.")
    assert grade(ask, said).score == 1.0
    assert grade(ask, {"response": said[:40], "choices": ["phase 1 voltage to neutral",
                                                          "phase 2 voltage to neutral",
                                                          "phase 3 voltage to neutral"]}
                 ).score == 1.0
    assert grade(ask, "I require clarification first: phase 1 voltage to neutral or phase 2 "
                      "voltage to neutral.").score < 1.0
    assert grade(ask, "Phase 1 voltage to neutral is 0.23 kV.").score == 0.0


# -- sets and dry runs -------------------------------------------------------------------------


def test_set_and_dry_run_reports_count_the_kinds(plan: dict[str, Any],
                                                 ask: dict[str, Any]) -> None:
    good_plan = ("SOUTH-TX01: D2 first (inspection), health poor (45) so assess condition, then "
                 "the 2 corrective orders.")
    report = grade_set([plan, ask], {"open_3": good_plan, "ask_1": "EAST-TX02 reached 70 °C."})
    assert report.by_kind["rubric"].n == 1 and report.by_kind["rubric"].feasible_rate == 1.0
    assert report.by_kind["clarification"].feasible_rate == 0.0
    results = [
        DryRunResult(id=g.id, agent="x", domain=g.domain, difficulty=g.difficulty, grade=g,
                     failure_class=None if g.feasible else "wrong_answer", final_answer="…",
                     expected_tools=[], tools_called=[], tool_errors=0, steps=[], tokens=0,
                     latency_s=0.0)
        for g in report.results
    ]
    dry = summarise("x", results, 1.0)
    assert dry.by_kind["rubric"].feasible_rate == 1.0
    assert dry.by_kind["clarification"].n == 1
    assert dry.pass_rate == 0.5


def test_a_very_poor_band_is_not_the_poor_band(plan: dict[str, Any]) -> None:
    answer = ("SOUTH-TX01: D2 in the oil, inspect it first; health index 45, very poor; "
              "2 corrective orders to close.")
    r = grade(plan, answer)
    assert [v.path for v in r.violations] == ["health_condition"]


def test_a_negation_in_an_earlier_clause_does_not_excuse_a_claim(
        disagreement: dict[str, Any]) -> None:
    answer = ("SOUTH-TX01: IEC D2, Rogers D1, Duval D2; there is no real problem, so no action "
              "is needed.")
    r = grade(disagreement, answer)
    assert [v.path for v in r.violations] == ["no_action"]


def test_the_inspection_date_allows_a_calendar_month(bundle: dict[str, Any]) -> None:
    # Due 2026-08-04 (07-05 + 30 d); a calendar month gives 08-05 (tolerance 1 day).
    base = "EAST-TX02: close WO-EAST-TX02-003 and WO-EAST-TX02-005, inspection due {}."
    assert grade(bundle, base.format("2026-08-05")).feasible
    r = grade(bundle, base.format("2026-08-07"))
    assert [v.path for v in r.violations] == ["inspection_due"]


# -- what an open answer states, beyond finding the required facts anywhere -------------------


def test_a_class_tied_to_the_wrong_method_is_stated_wrong(disagreement: dict[str, Any]) -> None:
    # The family's contract says how each method is spoken: a class next to another
    # method's name is that method's class, whatever the rubric finds elsewhere.
    record = {**disagreement, "family": "open_dga_disagreement"}
    swapped = ("SOUTH-TX01: Rogers gives D2 while the IEC ratios and Duval both read D1. "
               "Remove it from service for internal inspection.")
    r = grade(record, swapped)
    assert not r.feasible and "stated_wrong" in _names(r)
    right = ("SOUTH-TX01: the IEC ratios give D2, Rogers reads D1 and Duval lands in D2. "
             "Remove it from service for internal inspection.")
    assert grade(record, right).feasible


def test_a_class_named_as_a_zone_a_test_or_a_possibility_is_no_claim(
        disagreement: dict[str, Any]) -> None:
    answer = ("SOUTH-TX01: IEC D2, Rogers D1, Duval D2. The point sits just outside the T3 "
              "zone, and a T2 overheating is a remote possibility too, so add an infrared "
              "survey. Remove it from service for internal inspection.")
    assert grade(disagreement, answer).feasible
    assert not grade(disagreement, "SOUTH-TX01: IEC D2, Rogers D1, Duval D2, but I read it "
                                   "as T2. Remove it from service.").feasible


@pytest.mark.parametrize(("tail", "claims"), [
    ("Should gassing continue, book site tests (PD, tan delta, winding resistance).", False),
    ("Should gassing continue, arrange measurements such as PD and DP.", False),
    ("Should gassing continue, treat it as PD (tan delta is fine).", True),
])
def test_a_class_listed_among_tests_is_no_claim(disagreement: dict[str, Any], tail: str,
                                                claims: bool) -> None:
    answer = ("SOUTH-TX01: IEC D2, Rogers D1, Duval D2, so work on D2 and remove it from "
              "service for internal inspection. " + tail)
    assert grade(disagreement, answer).feasible is not claims


def test_an_answer_to_what_to_do_must_recommend_something(disagreement: dict[str, Any]) -> None:
    record = {**disagreement, "text": "Why do the methods differ on SOUTH-TX01's sample, and "
                                      "what should I do about it?"}
    explained = ("SOUTH-TX01: IEC D2, Rogers D1, Duval D2; they differ because the ratios "
                 "straddle the D1/D2 boundary.")
    r = grade(record, explained)
    assert not r.feasible and [v.path for v in r.violations] == ["recommendation"]
    assert grade(record, explained + " Take it out of service for an internal inspection."
                 ).feasible


def test_a_contracted_negation_states_a_negative_label() -> None:
    from eval.grade_rubric import fact_found
    from generator.generate.model import RubricFact

    fact = RubricFact(id="later", key="bundle_inspection", kind="label", expected="False",
                      synonyms=["not due", "not needed"], why="not due during the outage")
    assert fact_found(fact, "Leave the PM: it isn't due again before October.")
    assert fact_found(fact, "The inspection wasn't needed this time.")
