"""Open (rubric-graded) families of the transformer class: golden cases and seeded draws.

The golden cases build the raw documents (an oil sample, work orders) by hand and derive the
facts by hand in the comments (IEC 60599 Table 1, the Rogers codes, Duval triangle 1, the
monthly inspection cycle); the family's derive must give them. The draws run the families
over the seeded test fleet: every seed is open (``deterministic: false``), carries a rubric
the reference backs, and recomputes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from assets.transformer import dga
from assets.transformer.families_open import (
    _bundle_derive,
    _bundle_rubric,
    _disagreement_derive,
    _disagreement_rubric,
    _plan_derive,
    _plan_rubric,
)
from generator.api import AS_OF_INCLUDED, Ambiguous
from generator.config import StoreSettings
from generator.generate.checks.checks import CheckContext, CheckItem, GroundingSets, run_checks
from generator.generate.checks.rubric_check import rubric_backing
from generator.generate.draw.families import FAMILIES, draw_many, load_families, recompute
from generator.generate.model import TaskSeed, ToolCall
from generator.generate.run.policy import load_policies
from generator.generate.verbalise.verbalise_template import TemplateVerbaliser
from generator.profile.model import AssetProfile
from tests.generator.generate.test_families import ASSET, family_context, grounded_profile

RUN_SEED = 11
OPEN = ("open_dga_disagreement", "open_outage_bundle", "ma_open_maintenance_plan")

# SOUTH-TX01's sample of 2026-06-28 in the default simulated fleet (seed 42), ppm.
SAMPLE = {
    "asset_id": "SOUTH-TX01", "site_name": "SOUTH", "timestamp": "2026-06-28T10:00:00",
    "hydrogen": 80.49, "methane": 53.77, "ethane": 18.51, "ethylene": 46.28,
    "acetylene": 35.26, "co": 120.02, "co2": 1046.77,
}


def _dga_output(sample: dict[str, Any]) -> dict[str, Any]:
    gases = {g: sample[g] for g in ("hydrogen", "methane", "acetylene", "ethylene", "ethane",
                                    "co", "co2")}
    return dga.interpret_dga(sample["asset_id"], **gases).model_dump(mode="json")


# -- golden cases ------------------------------------------------------------------------------


def test_golden_dga_disagreement() -> None:
    # IEC 60599 Table 1 ratios:
    #   C2H2/C2H4 = 35.26 / 46.28 = 0.762; CH4/H2 = 53.77 / 80.49 = 0.668;
    #   C2H4/C2H6 = 46.28 / 18.51 = 2.500.
    #   D2 row: C2H2/C2H4 0.6-2.5, CH4/H2 0.1-1, C2H4/C2H6 > 2  -> IEC class D2.
    # Rogers codes (ranges <0.1 | 0.1-1 | 1-3 | >3):
    #   C2H2/C2H4 0.762 in 0.1-1 -> 1; CH4/H2 0.668 in 0.1-1 -> 0; C2H4/C2H6 2.5 in 1-3 -> 1.
    #   (1, 0, 1) is not in the table; (1-2, 0, 1-2) is LED -> D1.
    # Duval triangle 1: sum = 53.77 + 46.28 + 35.26 = 135.31;
    #   %CH4 = 39.7, %C2H4 = 34.2, %C2H2 = 26.1 -> 23 <= %C2H4 < 40 and %C2H2 > 13 -> D2.
    # Methods: iec D2, rogers D1, duval D2 -> they disagree; worst (D2 > ... > D1) is D2.
    oil = {"records": [SAMPLE]}
    params = {"asset_id": "SOUTH-TX01", "site": "SOUTH", "sample_day": "2026-06-28"}
    answer = _disagreement_derive(params, [oil, _dga_output(SAMPLE)])
    assert answer["methods"] == {"iec": "D2", "rogers": "D1", "duval": "D2"}
    assert answer["worst_class"] == "D2"
    assert answer["sample_timestamp"] == "2026-06-28T10:00:00"
    rubric = _disagreement_rubric(params, answer)
    required = {f.id: f.expected for f in rubric.required}
    assert required == {"asset": "SOUTH-TX01", "iec_class": "D2", "rogers_class": "D1",
                        "duval_class": "D2"}
    no_method = next(c for c in rubric.forbidden if c.id == "class_no_method_gives")
    # Every IEC class but the two the methods give.
    assert set(no_method.codes) == {"PD", "DT", "T1", "T2", "T3"}
    assert rubric_backing(rubric, answer) == []


def test_golden_dga_disagreement_needs_a_disagreement() -> None:
    # Scaled to make every method agree would not be this family's task: a sample whose
    # gases are all below the IEC typical values is "normal" (ratios not applied).
    quiet = dict(SAMPLE, hydrogen=10.0, methane=5.0, ethane=5.0, ethylene=1.0, acetylene=0.0)
    with pytest.raises(Ambiguous):
        _disagreement_derive({"asset_id": "SOUTH-TX01", "sample_day": "2026-06-28"},
                             [{"records": [quiet]}, _dga_output(quiet)])


def _wo(wo_id: str, reported: str, code: str, preventive: bool) -> dict[str, Any]:
    return {"wo_id": wo_id, "equipment_id": "EAST-TX02", "preventive": preventive,
            "primary_code": code, "reported_date": reported}


def test_golden_outage_bundle() -> None:
    pm = [_wo("WO-EAST-TX02-001", "2026-06-05T08:00:00", "PM-INSP", True),
          _wo("WO-EAST-TX02-004", "2026-07-05T08:00:00", "PM-INSP", True),
          _wo("WO-EAST-TX02-007", "2026-08-04T08:00:00", "PM-INSP", True)]
    cm = [_wo("WO-EAST-TX02-000", "2026-05-01T12:00:00", "OP-OVL", False),
          _wo("WO-EAST-TX02-003", "2026-06-20T12:00:00", "OP-OVL", False),
          _wo("WO-EAST-TX02-005", "2026-07-10T09:00:00", "TH-T1", False),
          _wo("WO-EAST-TX02-006", "2026-07-16T09:00:00", "EL-D1", False)]
    # As of 2026-07-15, outage 10 days later: 2026-07-25 to 2026-07-27 (2 days).
    # Preventive before the as-of date: 06-05 and 07-05 (08-04 is in the future) ->
    #   last inspection 07-05, next due 07-05 + 30 d = 08-04.
    #   Bundled when due <= outage end + 15 d = 07-27 + 15 = 08-11 -> yes.
    # Corrective within 30 days before 07-15 (from 06-15): 06-20 (25 d) and 07-10 (5 d);
    #   05-01 is 75 days back, 07-16 is after the as-of date.
    params = {"asset_id": "EAST-TX02", "site": "EAST", "as_of": "2026-07-15", "lead_days": 10,
              "outage_start": "2026-07-25"}
    answer = _bundle_derive(params, [{"work_orders": pm}, {"work_orders": cm}])
    assert answer["outage_start"] == "2026-07-25"
    assert answer["outage_end"] == "2026-07-27"
    assert answer["last_inspection"] == "2026-07-05"
    assert answer["inspection_due"] == "2026-08-04"
    assert answer["bundle_inspection"] is True
    assert answer["corrective_ids"] == ["WO-EAST-TX02-003", "WO-EAST-TX02-005"]
    assert answer["corrective_codes"] == ["OP-OVL", "TH-T1"]
    rubric = _bundle_rubric(params, answer)
    assert [f.expected for f in rubric.required] == [
        "EAST-TX02", "WO-EAST-TX02-003", "WO-EAST-TX02-005", "2026-08-04"]
    assert [c.id for c in rubric.forbidden] == ["nothing_to_bundle"]
    assert rubric_backing(rubric, answer) == []


def test_an_inspection_on_the_stated_today_is_another_reading() -> None:
    """"Taking 2026-08-11 as today": an inspection reported that morning is on file for a
    reader who counts today's orders and not for one who counts orders before today. As of
    08-11, outage 8 days later: 08-19 to 08-21, bundled when due <= 08-21 + 15 d = 09-05.
    - before today: last inspection 07-12 -> due 07-12 + 30 d = 08-11 -> bundled;
    - today included: last inspection 08-11 -> due 09-10 -> not bundled.
    The plan gates that reading, so such a draw is dropped."""
    pm = [_wo("WO-EAST-TX01-002", "2026-07-12T08:00:00", "PM-INSP", True),
          _wo("WO-EAST-TX01-003", "2026-08-11T08:00:00", "PM-INSP", True)]
    params = {"asset_id": "EAST-TX01", "as_of": "2026-08-11", "lead_days": 8}
    before = _bundle_derive(params, [{"work_orders": pm}, {"work_orders": []}])
    today = _bundle_derive(params | {"reading": AS_OF_INCLUDED},
                           [{"work_orders": pm}, {"work_orders": []}])
    assert (before["last_inspection"], before["inspection_due"]) == ("2026-07-12", "2026-08-11")
    assert before["bundle_inspection"] is True
    assert (today["last_inspection"], today["inspection_due"]) == ("2026-08-11", "2026-09-10")
    assert today["bundle_inspection"] is False


def test_golden_outage_bundle_inspection_too_late() -> None:
    # As of 2026-06-10, outage 7 days later: 06-17 to 06-19. Last inspection 06-05 ->
    #   due 07-05 > 06-19 + 15 = 07-04 -> not bundled; no corrective work -> trivial.
    pm = [_wo("WO-EAST-TX02-001", "2026-06-05T08:00:00", "PM-INSP", True)]
    params = {"asset_id": "EAST-TX02", "as_of": "2026-06-10", "lead_days": 7}
    answer = _bundle_derive(params, [{"work_orders": pm}, {"work_orders": []}])
    assert answer["inspection_due"] == "2026-07-05"
    assert answer["bundle_inspection"] is False
    assert answer["corrective_ids"] == []
    rubric = _bundle_rubric(params, answer)
    assert [f.id for f in rubric.required] == ["asset", "inspection_not_due"]
    assert rubric.forbidden == []
    assert rubric_backing(rubric, answer) == []


def test_golden_maintenance_plan() -> None:
    # DGA of the sample above: IEC D2 (ratios worked in test_golden_dga_disagreement), and
    # Duval D2 with it, so the tool's verdict is D2.
    # Health index output (rule score 45.0): bands 85/70/50/30 -> 30 <= 45 < 50 is "poor".
    # Corrective work on record: two orders (OP-OVL, EL-D2).
    # Order: a DGA fault first; then the poor band (condition assessment); then corrective
    # follow-up; then routine monitoring.
    hi = {"health_index": 45.0, "condition": "poor"}
    cm = {"work_orders": [_wo("WO-1", "2026-06-10T00:00:00", "OP-OVL", False),
                          _wo("WO-2", "2026-06-30T00:00:00", "EL-D2", False)]}
    params = {"asset_id": "SOUTH-TX01", "site": "SOUTH"}
    answer = _plan_derive(params, [{"records": [SAMPLE]}, _dga_output(SAMPLE), hi, cm])
    assert answer["dga_class"] == "D2"
    assert answer["health_condition"] == "poor"
    assert answer["health_index"] == 45.0
    assert answer["corrective_count"] == 2
    assert answer["corrective_codes"] == ["EL-D2", "OP-OVL"]
    assert answer["steps"] == ["dga_action", "condition_assessment", "corrective_followup",
                               "routine_monitoring"]
    rubric = _plan_rubric(params, answer)
    assert {f.id: f.expected for f in rubric.required} == {
        "asset": "SOUTH-TX01", "dga_class": "D2", "health_condition": "poor",
        "corrective_count": 2}
    hi_claim = next(c for c in rubric.forbidden if c.id == "health_index_off")
    assert (hi_claim.low, hi_claim.high) == (40.0, 50.0)  # 45.0 ± 5
    assert "no_action" in {c.id for c in rubric.forbidden}
    assert rubric_backing(rubric, answer) == []


def test_rubric_backing_catches_an_unbacked_fact() -> None:
    params = {"asset_id": "SOUTH-TX01", "site": "SOUTH", "sample_day": "2026-06-28"}
    answer = _disagreement_derive(params, [{"records": [SAMPLE]}, _dga_output(SAMPLE)])
    rubric = _disagreement_rubric(params, answer)
    bad = rubric.model_copy(deep=True)
    bad.required[1].expected = "T3"  # the IEC class is D2
    bad.forbidden[1].codes.append("D2")  # forbids the reference's own class
    problems = rubric_backing(bad, answer)
    assert any("'iec_class' expects 'T3'" in p for p in problems)
    assert any("forbids the reference's own class D2" in p for p in problems)


# -- draws over the seeded fleet -----------------------------------------------------------------


@pytest.fixture(scope="module")
async def profile(seeded_settings: StoreSettings) -> AssetProfile:
    return await grounded_profile(seeded_settings)


@pytest.fixture(scope="module")
async def drawn(seeded_settings: StoreSettings, profile: AssetProfile) -> dict[str, Any]:
    load_families(ASSET)
    ctx = family_context(profile, seeded_settings, RUN_SEED)
    seeds = {name: await draw_many(FAMILIES.get(name), ctx, 0, 4, 40) for name in OPEN}
    problems = {s.key: await recompute(s, ctx) for drawn in seeds.values() for s in drawn}
    return {"seeds": seeds, "recompute": problems}


def test_open_families_draw_open_seeds(drawn: dict[str, Any]) -> None:
    seeds: dict[str, list[TaskSeed]] = drawn["seeds"]
    # The 30-day test fleet has no significant sample the methods disagree on (see
    # test_families.FEW_DISTINCT); the two others draw several tasks.
    assert len(seeds["open_outage_bundle"]) >= 3
    assert len(seeds["ma_open_maintenance_plan"]) >= 3
    for drawn_seeds in seeds.values():
        for s in drawn_seeds:
            assert s.deterministic is False
            assert s.rubric is not None
            assert rubric_backing(s.rubric, s.answer) == []
    assert all(not p for p in drawn["recompute"].values()), drawn["recompute"]


async def test_open_seeds_pass_the_deterministic_checks(drawn: dict[str, Any],
                                                       profile: AssetProfile) -> None:
    policies = load_policies("transformer")
    ctx = CheckContext.with_registered_tools(policies,
                                             grounding=GroundingSets.from_profile(profile))
    words = TemplateVerbaliser(RUN_SEED, "transformer")
    checked = 0
    for drawn_seeds in drawn["seeds"].values():
        for s in drawn_seeds:
            draft = words.verbalise_one(s)
            item = CheckItem.from_draft(draft, s, s.domain, ASSET.asset_class)  # as stages.py
            assert item.deterministic is False and item.rubric is not None
            problems = await run_checks("all", item, ctx)
            assert problems == [], (s.key, draft.text, draft.surfaces, problems)
            checked += 1
    assert checked >= 6


def test_policy_sets_an_open_share() -> None:
    policies = load_policies("transformer")
    for domain in ("fmsr", "wo", "multiagent"):
        assert policies[domain].open_family_share == pytest.approx(0.15)


def test_disagreement_phrasings_keep_the_mentions() -> None:
    # The test fleet holds no such sample: check every phrasing on a seed of the golden one.
    params = {"asset_id": "SOUTH-TX01", "site": "SOUTH", "sample_day": "2026-06-28"}
    answer = _disagreement_derive(params, [{"records": [SAMPLE]}, _dga_output(SAMPLE)])
    seed = TaskSeed(
        family="open_dga_disagreement", domain="fmsr", category="Diagnostic Assessment",
        role="operator", draw=0, params=params, mentions=["SOUTH-TX01", "2026-06-28"],
        grounding={"site": "SOUTH", "asset_id": "SOUTH-TX01", "start": "2026-06-28"},
        tool_sequence=[ToolCall(name="oil_samples", args={"site_name": "SOUTH",
                                                          "asset_id": "SOUTH-TX01"})],
        answer=answer, answer_summary="x", difficulty="hard", deterministic=False,
        rubric=_disagreement_rubric(params, answer),
    )
    words = TemplateVerbaliser(RUN_SEED, "transformer")
    for role in ("operator", "manager"):
        one = seed.model_copy(update={"role": role})
        phrasings = words.phrasings(one)
        assert len(phrasings) >= 4
        for template in phrasings:
            text = words.render(one, template, np.random.default_rng(0))
            assert "SOUTH-TX01" in text and "2026-06-28" in text, text


def test_the_plan_gate_ran_on_every_plan_seed(drawn: dict[str, Any]) -> None:
    # Duval and Rogers are gated: a kept seed records each as giving the same plan (a
    # differing one drops the draw). The learned index is stated (the text pins the rule
    # score), so it is recorded as same or stated, with its answer when stated.
    seeds = drawn["seeds"]["ma_open_maintenance_plan"]
    for s in seeds:
        got = {r.name: r.outcome for r in s.readings}
        assert got["duval_triangle"] == got["rogers_ratios"] == "same"
        assert got["model_index"] in ("same", "stated")
        assert "rule-based (scored) health index" in s.mentions[-1]
