"""Open families about a unit's condition: what drives its health index (fmsr) and a review
joining sensor anomalies, oil and work orders (multiagent).

Golden cases: the raw sample and the tool outputs are written here and the facts worked by
hand in the comments (the project's health-index table after Jahromi et al. 2009, IEC 60599
Table 1, the priority order in families_open_condition's docstring). Draws run the families
over the seeded test fleet: every seed is open, its rubric is backed by its reference, it
recomputes and passes the deterministic checks.
"""

from __future__ import annotations

from typing import Any

import pytest

from assets.transformer import dga, health_index
from assets.transformer.families_open_condition import (
    _drivers_derive,
    _drivers_rubric,
    _review_derive,
    _review_rubric,
)
from generator.api import Ambiguous
from generator.config import StoreSettings
from generator.generate.checks.checks import CheckContext, CheckItem, GroundingSets, run_checks
from generator.generate.checks.rubric_check import rubric_backing
from generator.generate.draw.families import (
    FAMILIES,
    compose_seed,
    draw_many,
    load_families,
    recompute,
)
from generator.generate.model import TaskSeed
from generator.generate.run.policy import load_policies
from generator.generate.verbalise.verbalise_template import TemplateVerbaliser
from generator.profile.model import AssetProfile
from tests.generator.generate.test_families import ASSET, family_context, grounded_profile

RUN_SEED = 5

# SOUTH-TX01's sample of 2026-06-28 (gases as in test_families_open) with oil-quality values
# chosen for the case.
SAMPLE: dict[str, Any] = {
    "asset_id": "SOUTH-TX01", "site_name": "SOUTH", "timestamp": "2026-06-28T10:00:00",
    "hydrogen": 80.49, "methane": 53.77, "ethane": 18.51, "ethylene": 46.28,
    "acetylene": 35.26, "co": 120.02, "co2": 1046.77, "oxygen": 3000.0, "nitrogen": 50000.0,
    "dbds": 0.0, "dielectric_rigidity": 45.0, "interfacial_v": 31.0, "water_content": 27.0,
    "power_factor": 0.3, "acidity": 0.05,
}
HI_FIELDS = ("hydrogen", "oxygen", "nitrogen", "methane", "co", "co2", "ethylene", "ethane",
             "acetylene", "dbds", "power_factor", "interfacial_v", "dielectric_rigidity",
             "water_content", "acidity")


def _hi_output(sample: dict[str, Any]) -> dict[str, Any]:
    args = {k: sample[k] for k in HI_FIELDS}
    return health_index.predict_health_index(sample["asset_id"], **args).model_dump(mode="json")


def _dga_output(sample: dict[str, Any]) -> dict[str, Any]:
    gases = {g: sample[g] for g in ("hydrogen", "methane", "acetylene", "ethylene", "ethane",
                                    "co", "co2")}
    return dga.interpret_dga(sample["asset_id"], **gases).model_dump(mode="json")


# -- golden cases ------------------------------------------------------------------------------


def test_golden_health_drivers() -> None:
    # DGA factor, gas scores (first inclusive upper bound not exceeded, 6 above the last):
    #   H2 80.49 <= 100 -> 1 (w 2); CH4 53.77 <= 75 -> 1 (w 3); C2H6 18.51 <= 65 -> 1 (w 3);
    #   C2H4 46.28 <= 50 -> 1 (w 3); C2H2 35.26: > 3, > 7, > 35, <= 50 -> 4 (w 5);
    #   CO 120.02 <= 350 -> 1 (w 1); CO2 1046.77 <= 2500 -> 1 (w 1).
    #   DGAF = (2 + 3 + 3 + 3 + 20 + 1 + 1) / 18 = 33/18 = 1.833 -> C (1.5 <= x < 2) -> HIF 2.
    # Oil-quality factor:
    #   breakdown 45 kV: < 52, < 47, >= 35 -> 3 (w 3); IFT 31 >= 30 -> 1 (w 2);
    #   water 27 ppm: > 20, > 25, <= 30 -> 3 (w 4); power factor 0.3: > 0.1, <= 0.5 -> 2 (w 3);
    #   acidity 0.05: > 0.04, <= 0.1 -> 2 (w 1).
    #   OQF = (9 + 2 + 12 + 6 + 2) / 13 = 31/13 = 2.385 -> D (2 <= x < 3) -> HIF 1.
    # HI = 100·(10·2 + 6·1)/64 = 2600/64 = 40.625 -> 40.6, band poor (30 <= HI < 50).
    # Points lost: DGA 100·10·(4 − 2)/64 = 31.25; oil 100·6·(4 − 1)/64 = 28.125 -> 28.12.
    # Main driver: DGA (31.25 > 28.12). Worst parameters: DGA acetylene (4); oil quality
    # breakdown voltage and water content (3 each).
    params = {"asset_id": "SOUTH-TX01", "site": "SOUTH", "which": "2026-06-28"}
    answer = _drivers_derive(params, [{"records": [SAMPLE]}, _hi_output(SAMPLE)])
    assert answer["health_index"] == 40.6
    assert answer["condition"] == "poor"
    assert answer["ratings"] == {"dga": "C", "oil_quality": "D"}
    assert answer["points_lost"] == {"dga": 31.25, "oil_quality": 28.12}
    assert answer["main_driver"] == "dissolved gases"
    assert answer["worst_parameters"] == {
        "dga": ["acetylene"], "oil_quality": ["breakdown voltage", "water content"]}
    rubric = _drivers_rubric(params, answer)
    assert {f.id: f.expected for f in rubric.required} == {
        "asset": "SOUTH-TX01", "health_index": 40.6, "condition": "poor",
        "main_driver": "dissolved gases", "dga_acetylene": "acetylene",
        "oil_quality_breakdown_voltage": "breakdown voltage",
        "oil_quality_water_content": "water content"}
    water = next(f for f in rubric.required if f.id == "oil_quality_water_content")
    assert "moisture" in water.synonyms
    hi_claim = next(c for c in rubric.forbidden if c.id == "health_index_off")
    assert (hi_claim.low, hi_claim.high) == (35.6, 45.6)  # 40.6 ± 5
    # The other factor may not be called the main driver.
    assert {c.id for c in rubric.forbidden} == {
        "health_index_off", "oil_quality_main_driver", "nothing_pulls_it_down"}
    assert rubric_backing(rubric, answer) == []


def test_golden_health_drivers_nothing_pulls_it_down() -> None:
    # Every gas score 1 (all at or under the first bound) -> DGAF 1.0 -> A, HIF 4; breakdown
    # 60 >= 52 -> 1, IFT 35 -> 1, water 10 -> 1, power factor 0.05 -> 1, acidity 0.02 -> 1
    # -> OQF 1.0 -> A, HIF 4. HI = 100·(40 + 24)/64 = 100, very good; no factor costs points.
    clean = dict(SAMPLE, hydrogen=20.0, methane=10.0, ethane=5.0, ethylene=3.0, acetylene=0.5,
                 co=100.0, co2=900.0, dielectric_rigidity=60.0, interfacial_v=35.0,
                 water_content=10.0, power_factor=0.05, acidity=0.02)
    params = {"asset_id": "SOUTH-TX01", "site": "SOUTH", "which": "latest"}
    answer = _drivers_derive(params, [{"records": [clean]}, _hi_output(clean)])
    assert (answer["health_index"], answer["condition"]) == (100.0, "very good")
    assert answer["main_driver"] == "none" and answer["worst_parameters"] == {}
    rubric = _drivers_rubric(params, answer)
    assert [f.id for f in rubric.required] == ["asset", "health_index", "condition"]
    assert [c.id for c in rubric.forbidden] == ["health_index_off"]


def _wo(wo_id: str, reported: str) -> dict[str, Any]:
    return {"wo_id": wo_id, "equipment_id": "SOUTH-TX01", "preventive": False,
            "primary_code": "TH-T1", "reported_date": reported}


REVIEW_PARAMS = {"asset_id": "SOUTH-TX01", "site": "SOUTH", "sensor": "wti",
                 "start": "2026-06-30", "end": "2026-07-05", "sample_day": "2026-06-28"}


def test_golden_condition_review() -> None:
    # Scan: two flagged hours, first 2026-07-02 15:00. Oil: samples of 06-21, 06-28 and
    # 07-05 10:00; the window ends 07-05 00:00, so the latest before it is 06-28 (DGA D2, the
    # ratios worked in test_families_open.test_golden_dga_disagreement; IEC and Duval agree).
    # Corrective work of the window: one order reported 07-01, before the first anomaly, so
    # no order answers the anomalies.
    # Order: DGA fault first; then the unanswered anomalies; then the window's corrective
    # follow-up; then routine monitoring.
    tsad = {"anomalies": [{"timestamp": "2026-07-03T02:00:00", "score": 4.8},
                          {"timestamp": "2026-07-02T15:00:00", "score": 5.1}]}
    earlier = dict(SAMPLE, timestamp="2026-06-21T10:00:00")
    later = dict(SAMPLE, timestamp="2026-07-05T10:00:00")
    oil = {"records": [earlier, SAMPLE, later]}
    cm = {"work_orders": [_wo("WO-SOUTH-TX01-009", "2026-07-01T09:00:00")]}
    answer = _review_derive(REVIEW_PARAMS, [tsad, oil, _dga_output(SAMPLE), cm])
    assert answer["anomalies"] == 2
    assert answer["first_anomaly"] == "2026-07-02T15:00:00"
    assert answer["sample_timestamp"] == "2026-06-28T10:00:00"
    assert answer["dga_class"] == "D2"
    assert answer["corrective_work_orders"] == ["WO-SOUTH-TX01-009"]
    assert answer["steps"] == ["dga_action", "investigate_anomalies", "corrective_followup",
                               "routine_monitoring"]
    rubric = _review_rubric(REVIEW_PARAMS, answer)
    assert {f.id: f.expected for f in rubric.required} == {
        "asset": "SOUTH-TX01", "anomalies": 2, "dga_class": "D2",
        "corrective_1": "WO-SOUTH-TX01-009"}
    assert [c.id for c in rubric.forbidden] == ["wrong_fault_class", "no_anomalies",
                                                "no_action"]
    assert "D2" not in rubric.forbidden[0].codes
    assert rubric_backing(rubric, answer) == []


def test_golden_condition_review_answered_and_quiet() -> None:
    # A corrective order reported after the first anomaly answers it; a quiet oil sample
    # (every gas within the IEC typical values) is "normal": only the follow-up and routine
    # monitoring remain, and saying no action is needed is no longer forbidden.
    quiet = dict(SAMPLE, hydrogen=10.0, methane=5.0, ethane=5.0, ethylene=1.0, acetylene=0.0)
    tsad = {"anomalies": [{"timestamp": "2026-07-02T15:00:00", "score": 5.1}]}
    cm = {"work_orders": [_wo("WO-SOUTH-TX01-010", "2026-07-03T09:00:00")]}
    answer = _review_derive(REVIEW_PARAMS, [tsad, {"records": [quiet]}, _dga_output(quiet), cm])
    assert answer["dga_class"] == "normal"
    assert answer["steps"] == ["corrective_followup", "routine_monitoring"]
    rubric = _review_rubric(REVIEW_PARAMS, answer)
    assert [c.id for c in rubric.forbidden] == ["wrong_fault_class", "no_anomalies"]
    # The interpreted sample must be the latest before the window ends.
    with pytest.raises(Ambiguous):
        _review_derive(dict(REVIEW_PARAMS, sample_day="2026-06-21"),
                       [tsad, {"records": [quiet]}, _dga_output(quiet), cm])


# -- draws over the seeded fleet -----------------------------------------------------------------


@pytest.fixture(scope="module")
async def profile(seeded_settings: StoreSettings) -> AssetProfile:
    return await grounded_profile(seeded_settings)


@pytest.fixture(scope="module")
async def drawn(seeded_settings: StoreSettings, profile: AssetProfile) -> dict[str, Any]:
    load_families(ASSET)
    ctx = family_context(profile, seeded_settings, RUN_SEED)
    drivers = await draw_many(FAMILIES.get("open_health_drivers"), ctx, 0, 6, 40)
    parents = await draw_many(FAMILIES.get("tsfm_anomalies"), ctx, 0, 12, 60)
    spec = FAMILIES.get("ma_open_condition_review")
    reviews = [s for i, p in enumerate(parents)
               if (s := await compose_seed(spec, [p], ctx, i)) is not None]
    seeds = {"open_health_drivers": drivers, "ma_open_condition_review": reviews}
    problems = {s.key: await recompute(s, ctx) for group in seeds.values() for s in group}
    return {"seeds": seeds, "recompute": problems}


def test_the_families_draw_open_seeds(drawn: dict[str, Any]) -> None:
    seeds: dict[str, list[TaskSeed]] = drawn["seeds"]
    assert len(seeds["open_health_drivers"]) >= 5
    assert len(seeds["ma_open_condition_review"]) >= 5
    for group in seeds.values():
        for s in group:
            assert s.deterministic is False and s.rubric is not None
            assert rubric_backing(s.rubric, s.answer) == []
    assert all(not p for p in drawn["recompute"].values()), drawn["recompute"]
    # Distinct tasks: a dated sample per draw (drivers), the parent's window (review).
    for group in seeds.values():
        assert len({str(sorted(s.params.items())) for s in group}) == len(group)


def test_the_gates_ran(drawn: dict[str, Any]) -> None:
    for s in drawn["seeds"]["open_health_drivers"]:
        got = {r.name: r.outcome for r in s.readings}
        assert got["model_index"] in ("same", "stated")
        assert got.get("oil_quality_without_acidity", "same") == "same"
    for s in drawn["seeds"]["ma_open_condition_review"]:
        got = {r.name: r.outcome for r in s.readings}
        assert got["duval_triangle"] == got["rogers_ratios"] == "same"


async def test_open_seeds_pass_the_deterministic_checks(drawn: dict[str, Any],
                                                       profile: AssetProfile) -> None:
    ctx = CheckContext.with_registered_tools(load_policies("transformer"),
                                             grounding=GroundingSets.from_profile(profile))
    words = TemplateVerbaliser(RUN_SEED, "transformer")
    checked = 0
    for group in drawn["seeds"].values():
        for s in group:
            draft = words.verbalise_one(s)
            item = CheckItem.from_draft(draft, s, s.domain, ASSET.asset_class)
            problems = await run_checks("all", item, ctx)
            assert problems == [], (s.key, draft.text, problems)
            checked += 1
    assert checked >= 10
