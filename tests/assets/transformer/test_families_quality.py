"""Data-quality families: hand-worked golden cases, the interpretation gate, and the seeded
fleet's injected telemetry faults found by the draws.

Golden cases build raw hourly records by hand, run them through the data-quality tool's
pure core (what the tool returns for them) and check the family's derive against the answer
worked out in the comments from the records alone.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from assets.transformer.families_quality import (
    RUN_AS_DURATION,
    _followup_derive,
    _gaps_derive,
    _stuck_derive,
    _triage_derive,
    followup_outcome,
    gaps_outcome,
    stuck_outcome,
    triage_outcome,
)
from generator.api import END_DAY_INCLUDED, END_MIDNIGHT_INCLUDED
from generator.config import StoreSettings
from generator.generate.draw.families import FAMILIES, Plan, draw_many, gate_readings, load_families
from generator.generate.model import TaskSeed, ToolCall
from generator.profile.model import AssetProfile
from generator.store.couch import CouchClient
from generator.tools.data_quality import DataQualityArgs, assess
from tests.generator.generate.test_families import ASSET, family_context, grounded_profile

T0 = datetime(2026, 6, 1)


def _ts(hour: int) -> str:
    return (T0 + timedelta(hours=hour)).isoformat()


def _tool_output(records: list[dict[str, Any]], sensors: list[str], hours: int = 24,
                 min_run: int = 6) -> dict[str, Any]:
    args = DataQualityArgs(site_name="S", asset_id="U", start=_ts(0), final=_ts(hours),
                           sensors=sensors, min_run=min_run)
    return assess(ASSET, records, args, sensors).model_dump(mode="json")


# -- golden: stuck ---------------------------------------------------------------------

# WTI of one day: 60 + h for h = 0..9 (all different), 75.5 for h = 10..17 (eight equal
# readings), 80 + h for h = 18..23.
STUCK_DAY = [{"timestamp": _ts(h), "wti": 75.5 if 10 <= h <= 17 else 60.0 + h + (20 if h > 17
              else 0)} for h in range(24)]


def test_stuck_golden_eight_equal_readings() -> None:
    # By hand: one run of 75.5 from 10:00 to 17:00, 8 readings. "At least six" finds it,
    # "at least eight" too (8 >= 8), "at least twelve" does not (8 < 12).
    out6 = _tool_output(STUCK_DAY, ["wti"], min_run=6)
    answer = _stuck_derive({"sensor": "wti"}, [out6])
    assert answer == {"stuck": True, "runs": [
        {"first": "2026-06-01T10:00:00", "last": "2026-06-01T17:00:00", "count": 8,
         "value": 75.5}]}
    assert stuck_outcome(answer) == "stuck"
    assert _stuck_derive({"sensor": "wti"}, [_tool_output(STUCK_DAY, ["wti"], min_run=8)])[
        "stuck"]
    none = _stuck_derive({"sensor": "wti"}, [_tool_output(STUCK_DAY, ["wti"], min_run=12)])
    assert none == {"stuck": False, "runs": []} and stuck_outcome(none) == "not_stuck"


# -- golden: gaps ----------------------------------------------------------------------

# One day of OTI and WTI; no record at 03, 04, 05 and 20 h; the 12 h record lacks OTI.
GAP_DAY = [
    {"timestamp": _ts(h), "oti": None if h == 12 else 50.0 + h, "wti": 60.0 + h}
    for h in range(24) if h not in (3, 4, 5, 20)
]


def test_gaps_golden_records_and_one_missing_reading() -> None:
    # By hand: 24 hours expected. For OTI: 03-05 (3 h), 12 h (record without OTI, 1 h),
    # 20 h (1 h): 5 missing, in time order. For WTI only the missing records: 4.
    oti = _gaps_derive({"sensor": "oti"}, [_tool_output(GAP_DAY, ["oti"])])
    assert oti == {"missing_hours": 5, "expected_hours": 24, "gaps": [
        {"first": _ts(3), "last": _ts(5), "missing": 3},
        {"first": _ts(12), "last": _ts(12), "missing": 1},
        {"first": _ts(20), "last": _ts(20), "missing": 1}]}
    wti = _gaps_derive({"sensor": "wti"}, [_tool_output(GAP_DAY, ["wti"])])
    assert wti["missing_hours"] == 4 and gaps_outcome(wti) == "gaps"
    full = [{"timestamp": _ts(h), "wti": 1.0 + h} for h in range(24)]
    assert gaps_outcome(_gaps_derive({"sensor": "wti"}, [_tool_output(full, ["wti"])])) == (
        "complete")


# -- golden: alarm triage --------------------------------------------------------------

# Settings: OTI alarm 90 °C, WTI alarm 110 °C (asset.yaml contacts).
#   02 h  oti_a 1, OTI 70  -> pick-up below the setting: faulty contact
#   03 h  oti_a 0
#   05 h  oti_a 1, OTI 92  -> pick-up at or above 90: genuine
#   06 h  oti_a 1, OTI 93  -> still on, no new alarm
#   10 h  wti_a 1, WTI 111 -> genuine
#   11 h  wti_a 0
TRIAGE_DAY = []
for _h in range(24):
    _o = {5: 92.0, 6: 93.0}.get(_h, 70.0)
    _w = 111.0 if _h == 10 else 100.0
    TRIAGE_DAY.append({"timestamp": _ts(_h), "oti": _o, "wti": _w,
                       "oti_a": int(_h in (2, 5, 6)), "wti_a": int(_h == 10),
                       "oti_t": 0, "wti_t": 0})
FLAGS = {"flags": ["oti_a", "wti_a"]}


def test_triage_golden_two_genuine_one_from_a_faulty_contact() -> None:
    out = _tool_output(TRIAGE_DAY, ["oti_a", "wti_a"])
    answer = _triage_derive(FLAGS, [out])
    assert answer == {
        "alarms": 3,
        "genuine": [
            {"timestamp": _ts(5), "contact": "oti_a", "reading": 92.0, "setting": 90.0},
            {"timestamp": _ts(10), "contact": "wti_a", "reading": 111.0, "setting": 110.0}],
        "spurious": [
            {"timestamp": _ts(2), "contact": "oti_a", "reading": 70.0, "setting": 90.0}],
    }
    assert triage_outcome(answer) == "spurious"
    quiet = [r | {"oti_a": 0, "wti_a": 0} for r in TRIAGE_DAY]
    assert triage_outcome(_triage_derive(FLAGS, [_tool_output(quiet, ["oti_a"])])) == "none"


# -- golden: instrument follow-up ------------------------------------------------------

CODES = {"failure_codes": [
    {"code": "IC-SENS", "fault_type": None, "description": "sensor fault"},
    {"code": "OP-OVL", "fault_type": None, "description": "overloading"}]}


def _orders(*rows: tuple[str, str, str]) -> dict[str, Any]:
    return {"work_orders": [{"wo_id": w, "primary_code": c, "reported_date": d}
                            for w, c, d in rows]}


def test_followup_golden_order_since_the_first_spurious_alarm() -> None:
    # The faulty pick-up of the triage day is at 2026-06-01 02:00. WO-0 (IC-SENS) was
    # reported 2026-05-30, before it: it does not count; WO-2 is OP-OVL: wrong code;
    # WO-1 (IC-SENS, 2026-06-03) answers it -> already raised, ["WO-1"].
    params = FLAGS | {"kind": "contact", "code": "IC-SENS"}
    quality = _tool_output(TRIAGE_DAY, ["oti_a", "wti_a"])
    orders = _orders(("WO-0", "IC-SENS", "2026-05-30T08:00:00"),
                     ("WO-1", "IC-SENS", "2026-06-03T02:00:00"),
                     ("WO-2", "OP-OVL", "2026-06-01T14:00:00"))
    answer = _followup_derive(params, [quality, CODES, orders])
    assert answer == {"fault_found": True, "fault_start": _ts(2),
                      "instrument_orders": ["WO-1"], "action": "already_raised",
                      "code": "IC-SENS"}
    # Without WO-1 nothing answers the finding: raise an order with the code.
    answer = _followup_derive(params, [quality, CODES, _orders(
        ("WO-0", "IC-SENS", "2026-05-30T08:00:00"))])
    assert answer["action"] == "raise_order" and followup_outcome(answer) == "raise_order"
    # The stuck variant: the run of the stuck day starts at 10:00; no orders -> raise.
    stuck = _followup_derive({"kind": "stuck", "sensor": "wti", "code": "IC-SENS"},
                             [_tool_output(STUCK_DAY, ["wti"]), CODES, _orders()])
    assert (stuck["fault_start"], stuck["action"]) == (_ts(10), "raise_order")
    clean = _followup_derive({"kind": "stuck", "sensor": "wti", "code": "IC-SENS"},
                             [_tool_output(GAP_DAY, ["wti"]), CODES, _orders()])
    assert followup_outcome(clean) == "none"


# -- over the seeded test fleet (seed 7, 6 units, 30 days) ------------------------------

RUN_SEED = 5
FAMILY_NAMES = ("iot_sensor_stuck", "iot_telemetry_gaps", "iot_alarm_triage",
                "ma_stuck_sensor_workorder", "ma_alarm_contact_workorder")


@pytest.fixture(scope="module")
async def profile(seeded_settings: StoreSettings) -> AssetProfile:
    load_families(ASSET)
    return await grounded_profile(seeded_settings)


def _truth(settings: StoreSettings) -> dict[str, list[dict[str, Any]]]:
    from generator.store.seed import database_names

    with CouchClient(settings) as client:
        docs = client.find(database_names(ASSET, settings.db_prefix)["truth"], {})
    return {str(d["asset_id"]): list(d.get("sensor_faults", [])) for d in docs}


async def _seeds(profile: AssetProfile, settings: StoreSettings, name: str,
                 count: int = 12) -> list[TaskSeed]:
    ctx = family_context(profile, settings, RUN_SEED)
    return await draw_many(FAMILIES.get(name), ctx, 0, count, count * 8)


@pytest.mark.parametrize("name", FAMILY_NAMES)
async def test_every_family_draws_and_records_its_stated_readings(
    profile: AssetProfile, seeded_settings: StoreSettings, name: str
) -> None:
    seeds = await _seeds(profile, seeded_settings, name)
    assert seeds, name
    for s in seeds:
        checks = {r.name: r.outcome for r in s.readings}
        assert {END_DAY_INCLUDED, END_MIDNIGHT_INCLUDED} <= set(checks), s.key
        assert set(checks.values()) <= {"same", "stated"}
        assert s.grounding["asset_id"] in s.mentions and s.grounding["site"] in s.mentions


async def test_draws_find_the_injected_faults_and_nothing_else(
    profile: AssetProfile, seeded_settings: StoreSettings
) -> None:
    truth = _truth(seeded_settings)
    stuck = {(a, f["sensor"]): f for a, fs in truth.items() for f in fs if f["kind"] == "stuck"}
    gaps = {a: f for a, fs in truth.items() for f in fs if f["kind"] == "gap"}
    contacts = {a: f for a, fs in truth.items() for f in fs if f["kind"] == "contact"}
    assert stuck and gaps and contacts  # one of each on the 6-unit test fleet
    found = 0
    for s in await _seeds(profile, seeded_settings, "iot_sensor_stuck", 16):
        p = s.params
        for run in s.answer["runs"]:  # every run lies inside an injected stuck fault
            fault = stuck[(p["asset_id"], p["sensor"])]
            assert fault["start"] <= run["first"] <= run["last"] <= fault["end"]
            assert run["value"] == fault["value"]
            found += 1
    assert found
    for s in await _seeds(profile, seeded_settings, "iot_telemetry_gaps", 16):
        for g in s.answer["gaps"]:
            fault = gaps[s.params["asset_id"]]
            assert fault["start"] <= g["first"] <= g["last"] <= fault["end"]
    for s in await _seeds(profile, seeded_settings, "iot_alarm_triage", 16):
        for row in s.answer["spurious"]:
            assert row["timestamp"] in contacts[s.params["asset_id"]]["timestamps"]


async def test_gate_drops_an_unstated_reading_that_changes_the_answer(
    profile: AssetProfile, seeded_settings: StoreSettings
) -> None:
    """A window that holds exactly six readings of a stuck run: read as "six hours between the
    first and the last" (seven readings) the run is gone, so unless the text pins readings
    the draw is dropped; stated, the other answer is recorded."""
    truth = _truth(seeded_settings)
    asset_id, fault = next((a, f) for a, fs in truth.items() for f in fs
                           if f["kind"] == "stuck")
    site = next(a.site_name for a in profile.inventory.assets if a.asset_id == asset_id)
    first = datetime.fromisoformat(fault["start"])
    args = {"site_name": site, "asset_id": asset_id, "start": fault["start"],
            "final": (first + timedelta(hours=6)).isoformat(), "sensors": [fault["sensor"]],
            "min_run": 6}
    calls = [ToolCall(name="data_quality", args=args)]
    longer = [ToolCall(name="data_quality", args=args | {"min_run": 7})]
    spec = FAMILIES.get("iot_sensor_stuck")
    ctx = family_context(profile, seeded_settings, RUN_SEED)
    params = {"sensor": fault["sensor"]}
    answer = spec.derive(params, await ctx.run(calls))
    assert answer["runs"][0]["count"] == 6
    from generator.api import Reading

    reading = Reading(name=RUN_AS_DURATION, description="duration", tool_sequence=longer)
    plan = Plan(params=params, tool_sequence=calls, mentions=[], readings=[reading])
    assert await gate_readings(spec, ctx, plan, answer, 0) is None
    assert ctx.gate_drops["iot_sensor_stuck"][RUN_AS_DURATION] == 1
    stated = Plan(params=params, tool_sequence=calls, mentions=[], readings=[reading],
                  stated=[RUN_AS_DURATION])
    checks = await gate_readings(spec, ctx, stated, answer, 0)
    assert checks and checks[0].outcome == "stated"


def test_phrasings_name_every_mention_and_no_tool_parameter() -> None:
    import re

    import yaml

    from generator.assetdef import ASSETS_DIR

    text = (ASSETS_DIR / "transformer" / "templates.yaml").read_text()
    fams = yaml.safe_load(text)["families"]
    need = {"{asset_id}", "{site}", "{window}"}
    for name in FAMILY_NAMES:
        wanted = need | ({"{sensor}"} if "stuck" in name or "gaps" in name else set())
        wanted |= {"{run_words}"} if "stuck" in name else set()
        variants = fams[name]["variants"]
        for v in variants:
            for role in ("operator", "manager"):
                assert len(v[role]) >= 4, (name, role)
                for p in v[role]:
                    assert wanted <= set(re.findall(r"\{\w+\}", p)), (name, p)
                    bare = re.sub(r"\{\w+\}", "", p)
                    assert not re.search(r"\b[a-z]+_[a-z_]+\b", bare), (name, p)  # snake_case
                    assert "min_run" not in p and "inclusive" not in p, (name, p)


# -- as of the window's end ------------------------------------------------------------------


def _orders_for(call: ToolCall, rows: list[tuple[str, str, str]]) -> dict[str, Any]:
    """What the corrective-orders call returns: the rows reported in [start_date, end_date)
    (dates compared as ISO text, as the store's query does)."""
    lo, hi = call.args.get("start_date"), call.args.get("end_date")
    return _orders(*[r for r in rows if (lo is None or r[2] >= lo) and (hi is None or r[2] < hi)])


def test_followup_counts_no_order_reported_after_the_day_it_calls_today() -> None:
    # Issue 29: a frozen-sensor follow-up whose text sets today at 2026-06-11 (its window
    # [2026-06-04, 2026-06-11) written "over the past seven days, not counting today (today is
    # 2026-06-11)") counted as already raised an instrument order reported on 2026-06-12.
    # The run began 2026-06-05 10:00; WO-9 (IC-SENS) was reported 2026-06-12 08:00, after
    # today: it did not exist yet -> no order since the fault began: raise one.
    from assets.transformer.families_quality import ORDERS_AFTER_WINDOW, _followup_plan
    from generator.generate.draw.asof import declared_as_of, documents_after

    window = {"asset_id": "U", "site": "S", "sensor": "wti", "sensor_label": "winding",
              "start": "2026-06-04", "end": "2026-06-11", "min_run": 6, "run_words": "six"}
    stuck = [{"timestamp": (datetime(2026, 6, 4) + timedelta(hours=h)).isoformat(),
              "wti": 75.5 if 34 <= h < 42 else 60.0 + h * 0.1} for h in range(7 * 24)]
    quality_call = ToolCall(name="data_quality", args={
        "site_name": "S", "asset_id": "U", "start": "2026-06-04", "final": "2026-06-11",
        "sensors": ["wti"], "min_run": 6})
    args = DataQualityArgs(site_name="S", asset_id="U", start="2026-06-04",
                           final="2026-06-11", sensors=["wti"], min_run=6)
    quality = assess(ASSET, stuck, args, ["wti"]).model_dump(mode="json")
    parent = TaskSeed(family="iot_sensor_stuck", domain="iot", category="Data Query",
                      role="operator", draw=0, params=window, tool_sequence=[quality_call],
                      answer={}, answer_summary="", difficulty="medium",
                      mentions=["U", "S", "2026-06-04", "2026-06-11"])
    plan = _followup_plan(parent, "stuck")
    assert plan is not None
    rows = [("WO-9", "IC-SENS", "2026-06-12T08:00:00")]
    outputs = [quality, CODES, _orders_for(plan.tool_sequence[-1], rows)]
    answer = _followup_derive(plan.params, outputs)
    assert answer["fault_start"] == "2026-06-05T10:00:00"
    assert (answer["instrument_orders"], answer["action"]) == ([], "raise_order")
    # The family's as-of moment is the window's end, and its outputs hold nothing later.
    spec = FAMILIES.get("ma_stuck_sensor_workorder")
    moment = declared_as_of(spec.as_of, plan.params)
    assert moment == "2026-06-11" and documents_after(outputs, moment) == []
    # Read without the bound ("since" up to now), WO-9 would count: a reading the gate tries.
    later = next(r for r in plan.readings if r.name == ORDERS_AFTER_WINDOW)
    assert later.tool_sequence is not None
    unbounded = _orders_for(later.tool_sequence[-1], rows)
    assert _followup_derive(plan.params, [quality, CODES, unbounded])["instrument_orders"] \
        == ["WO-9"]
# Families that report a figure from an indicator or its contact over a window (the reading
# their seed names, or the winding indicator of the ageing window).
FIGURE_FAMILIES = ("iot_sensor_stat", "iot_site_threshold", "tsfm_anomalies", "tsfm_forecast")


def _overlaps(start: str, end: str, fault: dict[str, Any]) -> bool:
    # whole end day included: the widest reading of the window
    last = (datetime.fromisoformat(end[:10]) + timedelta(days=1)).isoformat()
    return fault["start"] < last and start[:10] <= fault["end"][:10]


async def test_no_figure_is_read_from_a_faulty_indicator_or_contact(
    profile: AssetProfile, seeded_settings: StoreSettings
) -> None:
    # Truth (which the families never read) lists each unit's injected telemetry faults;
    # no window of a figure family holds a stuck run or a chattering contact of the reading
    # it reports on that unit (or on any unit of a site-wide threshold question).
    truth = _truth(seeded_settings)
    faulty = {(a, f["sensor"]): f for a, fs in truth.items() for f in fs
              if f["kind"] in ("stuck", "contact")}
    units_at = {a.site_name: [x.asset_id for x in profile.inventory.assets
                              if x.site_name == a.site_name] for a in profile.inventory.assets}
    drawn = 0
    for name in FIGURE_FAMILIES:
        for s in await _seeds(profile, seeded_settings, name, 60):
            p = s.params
            sensor = s.grounding.get("sensor") or p.get("sensor")
            units = units_at[p["site"]] if name == "iot_site_threshold" else [p["asset_id"]]
            for unit in units:
                fault = faulty.get((unit, sensor))
                if fault is not None:
                    drawn += 1
                    assert not _overlaps(p["start"], p["end"], fault), (name, p, fault)
    assert drawn  # the faulty units are still drawn, outside their faults
