"""Golden cases of the ``families_ask`` task families: raw documents written by hand, every
answer worked out by hand below (never through the families' derive or the tools).

The store (database prefix ``golden_ask_``): site ASKA with two units.

ASKA-TX01, 35 days of hourly ``load_mva`` from Monday 2026-06-01 00:00 (d = 0) to Sunday
2026-07-05 23:00 (d = 34):

    load(d, h) = 10 + 4·[h = 9 and weekday(d) is Monday..Friday]      (MVA)

except two readings: Monday 2026-06-29 09:00 (d = 28) reads 20 (a spike) and Tuesday
2026-06-30 09:00 (d = 29) reads 12 (a dip). Every weekday-hour slot therefore repeats
exactly from week to week apart from those two. Events: top-oil alarm 2026-06-29 10:05, trip
2026-06-29 10:30, alarm 2026-06-30 09:40. Work orders: corrective 06-10 09:00 (001),
preventive 06-11 08:00 (002), corrective 06-12 11:00 (003), corrective 06-29 11:30 (004,
after the trip), corrective 07-02 10:00 (005).

ASKA-TX02, three days (2026-07-03 00:00 .. 07-05 23:00) of ati 20, oti 50, wti 60 °C,
il1 100 A, inut 5 A and the four alarm/trip contacts at 0, except two records with the
top-oil alarm contact oti_a = 1: 07-04 15:00 (oti 92 °C) and the last, 07-05 23:00 (oti 91 °C).
One event, a top-oil alarm on 2026-07-04 14:20; no work orders.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from assets.transformer.families_ask import (
    _SLOTS,
    DAILY_PEAKS,
    EARLIER_WINDOW,
    FROM_DAY_START,
    _weekday_hour,
    _weekday_hours,
    earlier_same_hours,
    literal_baseline_score,
    usual_level_tolerance,
)
from generator.api import END_DAY_INCLUDED
from generator.config import StoreSettings
from generator.generate.draw.families import FAMILIES
from tests.assets.transformer.test_golden_families import generate_family, seed_raw

SITE, TX01, TX02 = "ASKA", "ASKA-TX01", "ASKA-TX02"
T0 = datetime(2026, 6, 1)  # a Monday
SPIKE, DIP = "2026-06-29T09:00:00", "2026-06-30T09:00:00"
TRIP = "2026-06-29T10:30:00"


def load(t: datetime) -> float:
    """The hand-written load series of ASKA-TX01."""
    if t.isoformat() == SPIKE:
        return 20.0
    if t.isoformat() == DIP:
        return 12.0
    return 10.0 + (4.0 if t.hour == 9 and t.weekday() < 5 else 0.0)


def _telemetry() -> list[dict[str, Any]]:
    docs = []
    for i in range(35 * 24):
        t = T0 + timedelta(hours=i)
        docs.append({"_id": f"{TX01}:{t.isoformat()}", "asset_id": TX01, "site_name": SITE,
                     "timestamp": t.isoformat(), "load_mva": load(t)})
    start = datetime(2026, 7, 3)
    for i in range(72):
        t = start + timedelta(hours=i)
        hot = {71: 91.0, 39: 92.0}.get(i)  # 07-05 23:00 and 07-04 15:00 (3 h + 36 h)
        docs.append({"_id": f"{TX02}:{t.isoformat()}", "asset_id": TX02, "site_name": SITE,
                     "timestamp": t.isoformat(), "ati": 20.0, "oti": hot or 50.0,
                     "wti": 60.0, "il1": 100.0, "inut": 5.0, "oti_a": 1 if hot else 0,
                     "wti_a": 0, "oti_t": 0, "wti_t": 0})
    return docs


def _order(n: int, when: str, preventive: bool) -> dict[str, Any]:
    wo_id = f"WO-ASK-{n:03d}"
    code = "PM-INSP" if preventive else "OP-OVL"
    return {"_id": f"wo:{wo_id}", "dataset": "wo_events", "wo_id": wo_id, "equipment_id": TX01,
            "site_name": SITE, "preventive": preventive,
            "wo_type": "preventive" if preventive else "corrective", "primary_code": code,
            "wo_description": code, "work_priority": 2, "reported_date": when,
            "actual_finish": when, "actual_labor_hours": 4.0}


def _alert(rule: str, when: str, unit: str = TX01) -> dict[str, Any]:
    return {"_id": f"ev:{unit}:{rule}:{when}", "dataset": "events",
            "event_id": f"EV-{rule}-{when}", "equipment_id": unit, "site_name": SITE,
            "event_group": "ALERT",
            "event_category": rule, "event_type": rule, "description": rule, "event_time": when}


def _workorders() -> list[dict[str, Any]]:
    return [
        {"_id": "fc:OP-OVL", "dataset": "failure_codes", "code": "OP-OVL", "fault_type": None,
         "description": "overload"},
        {"_id": "fc:PM-INSP", "dataset": "failure_codes", "code": "PM-INSP", "fault_type": None,
         "description": "inspection"},
        _order(1, "2026-06-10T09:00:00", False),
        _order(2, "2026-06-11T08:00:00", True),
        _order(3, "2026-06-12T11:00:00", False),
        _order(4, "2026-06-29T11:30:00", False),
        _order(5, "2026-07-02T10:00:00", False),
        _alert("OTI_ALARM", "2026-06-29T10:05:00"),
        _alert("OTI_TRIP", TRIP),
        _alert("OTI_ALARM", "2026-06-30T09:40:00"),
        _alert("OTI_ALARM", "2026-07-04T14:20:00", TX02),
    ]


def _nameplate() -> list[dict[str, Any]]:
    return [{"_id": a, "asset_id": a, "site_name": SITE, "rated_mva": 10.0, "cooling": "ONAN",
             "thermal_class": "ONAN", "hv_kv": 33.0, "lv_kv": 11.0, "paper": "kraft",
             "year_installed": 2005, "oti_alarm": 90.0, "oti_trip": 100.0, "wti_alarm": 110.0,
             "wti_trip": 130.0} for a in (TX01, TX02)]


@pytest.fixture(scope="module")
def ask_settings(settings_for: Any) -> StoreSettings:
    settings: StoreSettings = settings_for("golden_ask_")
    seed_raw(settings, {"telemetry": _telemetry(), "oil_samples": [], "nameplate": _nameplate(),
                        "workorders": _workorders(), "truth": []})
    return settings


async def test_golden_tsfm_weekly_pattern(ask_settings: StoreSettings, tmp_path: Path) -> None:
    """Days with four weeks before them and a following day: 2026-06-29 .. 07-04.

    - 06-29 (Mon): peak 20 at 09:00. Window [06-29, 07-01), reference from 06-01 (4 weeks
      before): 30 days × 24 = 720 readings. Slot (Mon, 09): 14, 14, 14, 14, 20 -> median 14;
      slot (Tue, 09): 14, 14, 14, 14, 12 -> median 14; every other slot repeats exactly.
      Residuals: +6, -2 and 718 zeros -> median 0, MAD 0, so MeanAD = 8/720 is used:
      z(spike) = 6 / (1.253314 · 8/720) = 430.9 > 4 -> anomaly, expected 14.
    - 06-30 (Tue): peak 12 at 09:00 (other hours 10). Reference [06-02, 07-02): same two
      residuals, z(dip) = -2 / (1.253314 · 8/720) = -143.6 -> anomaly, expected 14.
    - 07-01 .. 07-03 (Wed-Fri): peak 14 at 09:00, its slot repeats 14 every week: residual
      0, z = 0 -> the usual pattern.
    - 07-04 (Sat): every hour reads 10, no single peak -> never drawn.
    Every cut-off (3, 3.5, 4) and the window starting a day earlier agree (scores 0 or > 140).
    """
    seeds = await generate_family(ask_settings, tmp_path, "tsfm_weekly_pattern", 30)
    assert seeds
    expected = {
        "2026-06-29": (20.0, "anomaly", 14.0),
        "2026-06-30": (12.0, "anomaly", 14.0),
        "2026-07-01": (14.0, "usual_pattern", None),
        "2026-07-02": (14.0, "usual_pattern", None),
        "2026-07-03": (14.0, "usual_pattern", None),
    }
    seen = set()
    for s in seeds:
        value, verdict, usual = expected[s.params["day"]]
        assert s.params["peak_time"] == s.params["day"] + "T09:00:00"
        assert s.answer == {"peak_time": s.params["peak_time"], "peak_value": value,
                            "verdict": verdict, "expected": usual}
        checks = {r.name: r.outcome for r in s.readings}
        assert checks["cutoff_3"] == checks["cutoff_4"] == checks[EARLIER_WINDOW] == "same"
        # The four weeks before alone read 14 at 09:00 on those weekdays too: median 14, no
        # gap to the tool's usual level, so the tolerance stays 0.01.
        assert s.tolerance["expected"] == pytest.approx(0.01)
        seen.add(verdict)
    assert seen == {"anomaly", "usual_pattern"}


def test_usual_level_tolerance_covers_the_four_weeks_before_alone() -> None:
    # Tool: Monday-09:00 slot over the day and the four weeks before {10, 12, 13, 16, 40} →
    # 13. The four weeks before alone {10, 12, 13, 16} → (12 + 13)/2 = 12.5. Gap 0.5 + 0.01.
    assert usual_level_tolerance(13.0, [10.0, 12.0, 13.0, 16.0]) == pytest.approx(0.51)
    # Equal slot readings: no gap.
    assert usual_level_tolerance(14.0, [14.0, 14.0, 14.0, 14.0]) == pytest.approx(0.01)
    # A usual pattern has no usual level in the answer; fewer than 4 weeks: nothing to add.
    assert usual_level_tolerance(None, [10.0, 12.0]) == pytest.approx(0.01)
    assert usual_level_tolerance(13.0, []) == pytest.approx(0.01)


# A second store for the weekly pattern: two units whose peak day scores the same in the
# tool's window and differently in a window starting the day before.
BAND_SITE, BAND_NEAR, BAND_FAR = "ASKB", "ASKB-TX01", "ASKB-TX02"
BAND_T0 = datetime(2026, 5, 31)  # a Sunday; the peak day 2026-06-29 is a Monday (d = 29)


def _band_telemetry() -> list[dict[str, Any]]:
    """31 days of hourly load_mva from Sunday 2026-05-31 00:00 to Tuesday 06-30 23:00: 10
    everywhere, except Monday 06-29 09:00 reads 14 (the peak) and every hour of the first
    day, Sunday 05-31, reads 35 on BAND_NEAR and 20 on BAND_FAR."""
    docs = []
    for unit, first_day in ((BAND_NEAR, 35.0), (BAND_FAR, 20.0)):
        for i in range(31 * 24):
            t = BAND_T0 + timedelta(hours=i)
            value = first_day if i < 24 else 14.0 if t.isoformat() == "2026-06-29T09:00:00" \
                else 10.0
            docs.append({"_id": f"{unit}:{t.isoformat()}", "asset_id": unit,
                         "site_name": BAND_SITE, "timestamp": t.isoformat(), "load_mva": value})
    return docs


@pytest.fixture(scope="module")
def band_settings(settings_for: Any) -> StoreSettings:
    settings: StoreSettings = settings_for("golden_askb_")
    plates = [p | {"_id": a, "asset_id": a, "site_name": BAND_SITE}
              for p, a in zip(_nameplate(), (BAND_NEAR, BAND_FAR), strict=True)]
    seed_raw(settings, {"telemetry": _band_telemetry(), "oil_samples": [], "nameplate": plates,
                        "workorders": [], "truth": []})
    return settings


async def test_weekly_pattern_every_cutoff_agrees_in_the_earlier_window_too(
        band_settings: StoreSettings, tmp_path: Path) -> None:
    """Only 2026-06-29 can be drawn (the first day with four weeks before it and a day after
    is 06-28, flat 10 with no single peak; 06-30 has no day after it). Peak 14 at 09:00.

    - The tool's window [06-29, 07-01) with the reference from 06-01: 30 × 24 = 720 readings,
      every slot repeats except (Mon, 09): 10, 10, 10, 10, 14 -> median 10, residual +4; all
      other residuals 0 -> MAD 0, MeanAD = 4/720:
      z = 4 / (1.253314 · 4/720) = 574.47 on both units: an anomaly at 3, 3.5 and 4.
    - A window starting the day before, [06-28, 06-30), reference from 05-31: 720 readings;
      slots (Sun, h): 05-31 reads 35 (NEAR) or 20 (FAR), 06-07 .. 06-28 read 10 -> median 10,
      residuals +25 (NEAR) or +10 (FAR) in 24 hours, plus the peak's +4; MAD 0.
      NEAR: MeanAD = (24·25 + 4)/720 = 604/720, z = 4 / (1.253314 · 604/720) = 3.804: an
      anomaly at 3 and 3.5 but not at 4, so the verdict hangs on the reading: not drawn.
      FAR: MeanAD = (24·10 + 4)/720 = 244/720, z = 4 / (1.253314 · 244/720) = 9.418: an
      anomaly at every cut-off, drawn.
    - The four weeks before alone (06-01 .. 06-28, 672 readings, all 10) with the peak's
      residual +4: MeanAD = 4/673, z = 4 / (1.253314 · 4/673) = 536.98: an anomaly.
    """
    seeds = await generate_family(band_settings, tmp_path, "tsfm_weekly_pattern", 30)
    units = {s.params["asset_id"] for s in seeds}
    assert units == {BAND_FAR}
    for s in seeds:
        assert s.answer == {"peak_time": "2026-06-29T09:00:00", "peak_value": 14.0,
                            "verdict": "anomaly", "expected": 10.0}


async def test_golden_iot_same_hour_weeks(ask_settings: StoreSettings, tmp_path: Path) -> None:
    """Peaks against the same hour on the previous 2-4 same weekdays.

    - 06-29 (Mon) 09:00 reads 20; 09:00 on the Mondays before (06-22, 06-15, 06-08, 06-01)
      reads 10 + 4 = 14 -> above all of them (20 > 14).
    - 06-30 (Tue) 09:00 reads 12; the Tuesdays before read 14 at 09:00 -> not above
      (highest earlier 14).
    - Every other weekday peaks at 14, equal to the earlier weeks: a tie, dropped. Weekend
      days read 10 all day: no single peak, never drawn.
    The earlier days' daily peaks are the same 14 (09:00 is each weekday's peak), so the
    stated daily-peak reading gives the same answer.
    """
    seeds = await generate_family(ask_settings, tmp_path, "iot_same_hour_weeks", 30)
    assert seeds
    for s in seeds:
        p, weeks = s.params, s.params["weeks"]
        value, above = {"2026-06-29": (20.0, True), "2026-06-30": (12.0, False)}[p["day"]]
        d0 = datetime.fromisoformat(p["day"])
        previous = {(d0 - timedelta(days=7 * k)).date().isoformat(): 14.0
                    for k in range(1, weeks + 1)}
        assert s.answer == {"peak_value": value, "previous": previous, "previous_max": 14.0,
                            "above_all_previous": above}
        assert {r.name: r.outcome for r in s.readings}[DAILY_PEAKS] == "same"
    assert {s.outcome for s in seeds} == {"above_all_previous", "within_previous"}


async def test_golden_iot_clarify_request(ask_settings: StoreSettings, tmp_path: Path) -> None:
    """"The unit at ASKA": the site holds ASKA-TX01 and ASKA-TX02 -> ask which. A vague
    quantity on ASKA-TX02: its °C readings are ati, oti, wti (3 options), its ampere readings
    il1 and inut (2); it has no kV reading and ASKA-TX01 only load (MVA), so those requests
    have fewer than two options and are not drawn."""
    seeds = await generate_family(ask_settings, tmp_path, "iot_clarify_request", 30)
    assert seeds
    kinds = set()
    for s in seeds:
        assert s.outcome == "clarify" and s.answer["clarification_needed"] is True
        if s.params["ask"] == "unit":
            assert s.answer["options"] == [TX01, TX02]
            assert TX01 not in s.params.values()  # the text names the site only
        else:
            assert s.params["asset_id"] == TX02
            assert s.answer["options"] == {"temperature": ["ati", "oti", "wti"],
                                           "current": ["il1", "inut"]}[s.params["quantity"]]
        kinds.add(s.params["ask"])
    assert kinds == {"unit", "sensor"}


async def test_golden_wo_clarify_order(ask_settings: StoreSettings, tmp_path: Path) -> None:
    """Corrective orders of ASKA-TX01 on 06-10, 06-12, 06-29, 07-02 (the preventive 06-11 does
    not count). Weeks starting on an order's day that hold two: [06-10, 06-17) -> 001, 003;
    [06-29, 07-06) -> 004, 005. Read as ending a day later, both weeks list the same."""
    seeds = await generate_family(ask_settings, tmp_path, "wo_clarify_order", 16)
    assert seeds
    for s in seeds:
        options = {"2026-06-10": ["WO-ASK-001", "WO-ASK-003"],
                   "2026-06-29": ["WO-ASK-004", "WO-ASK-005"]}[s.params["start"]]
        assert s.answer["options"] == options and s.outcome == "clarify"
        assert {r.name: r.outcome for r in s.readings}[END_DAY_INCLUDED] == "same"


async def test_golden_wo_trip_false_premise(ask_settings: StoreSettings, tmp_path: Path) -> None:
    """ASKA-TX01 tripped once, 2026-06-29 10:30. Claimed on 06-29: the premise holds;
    corrective orders reported after 10:30 from that day on: 004 (11:30) and 005 (07-02);
    counted from the start of the day they are the same two. Claimed on 06-30: no trip, the
    day's alert was a top-oil alarm; any other day of TX01: no trip, no alert. ASKA-TX02 never
    tripped: no trips on record; its one alert day, 07-04, had a top-oil alarm."""
    seeds = await generate_family(ask_settings, tmp_path, "wo_trip_false_premise", 30)
    assert seeds
    outcomes = set()
    for s in seeds:
        p = s.params
        if p["asset_id"] == TX01 and p["claim_date"] == "2026-06-29":
            assert s.answer == {"premise_holds": True, "trip_time": TRIP,
                                "corrective_raised": True,
                                "work_orders": ["WO-ASK-004", "WO-ASK-005"]}
            assert {r.name: r.outcome for r in s.readings}[FROM_DAY_START] == "same"
        elif p["asset_id"] == TX01:
            alerts = ["OTI_ALARM"] if p["claim_date"] == "2026-06-30" else []
            assert s.answer == {"premise_holds": False, "trips_on_record": [TRIP],
                                "alerts_that_day": alerts}
        else:
            alerts = ["OTI_ALARM"] if p["claim_date"] == "2026-07-04" else []
            assert s.answer == {"premise_holds": False, "trips_on_record": [],
                                "alerts_that_day": alerts}
        outcomes.add(s.outcome)
    assert outcomes == {"premise_holds", "false_premise"}


def test_trip_reading_counts_orders_before_the_trip() -> None:
    """The gated reading differs when an order precedes the trip on its day: reported 08:00,
    trip 10:30 -> after the trip none; from the start of the day one (so such a draw is
    dropped by the gate)."""
    derive = FAMILIES.get("wo_trip_false_premise").derive
    events = {"events": [{"event_group": "ALERT", "event_type": "WTI_TRIP",
                          "event_time": "2026-06-29T10:30:00"}]}
    orders = {"work_orders": [{"wo_id": "W1", "reported_date": "2026-06-29T08:00:00"}]}
    params = {"claim_date": "2026-06-29", "asset_id": TX01}
    assert derive(params, [events, orders])["work_orders"] == []
    assert derive(params | {"reading": FROM_DAY_START}, [events, orders])["work_orders"] == ["W1"]


async def test_golden_iot_sensor_inventory(ask_settings: StoreSettings, tmp_path: Path) -> None:
    """ASKA-TX02's hourly readings: ati, il1, inut, oti, oti_a, oti_t, wti, wti_a, wti_t. Its
    temperatures (°C): ati, oti, wti; latest record 07-05 23:00: 20, 91, 60 with the top-oil
    alarm contact closed -> oti in alarm. Asked about its alarm day 07-04, the only hour with
    a closed contact is 15:00: 20, 92, 60 with oti_a = 1 -> oti in alarm. Dissolved gases and
    oil-quality values are laboratory (oil-sample) quantities of the class. ASKA-TX01 reports
    load only: no temperatures (not drawn), and asked about its neutral current or a
    temperature it has none (listed nowhere: not drawn)."""
    seeds = await generate_family(ask_settings, tmp_path, "iot_sensor_inventory", 30)
    assert seeds
    lab = {"hydrogen", "acetylene", "water_content", "dielectric_rigidity", "acidity"}
    for s in seeds:
        p = s.params
        if p["ask"] == "temperatures":
            assert p["asset_id"] == TX02
            at, oti = ("2026-07-04T15:00:00", 92.0) if p["at_time"] else (
                "2026-07-05T23:00:00", 91.0)
            assert s.answer == {"temperature_sensors": ["ati", "oti", "wti"], "timestamp": at,
                                "latest": {"ati": 20.0, "oti": oti, "wti": 60.0},
                                "in_alarm": ["oti"]}
            assert s.outcome == "in_alarm"
        elif p["quantity"] in lab:
            assert s.answer == {"measured_hourly": False, "in_oil_samples": True}
        else:
            assert p["asset_id"] == TX02 and p["quantity"] in ("inut", "oti", "wti")
            assert s.answer == {"measured_hourly": True, "in_oil_samples": False}
    assert {s.params["ask"] for s in seeds} == {"temperatures", "quantity"}
    assert {s.params.get("at_time") for s in seeds} >= {True, False}


async def test_golden_wo_order_false_premise(
    ask_settings: StoreSettings, tmp_path: Path
) -> None:
    """ASKA-TX01's work orders: 001 corrective OP-OVL 06-10 09:00, 002 preventive PM-INSP
    06-11 08:00, 003 corrective 06-12 11:00, 004 corrective 06-29 11:30, 005 corrective
    07-02 10:00. The missing id is the next after the last, WO-ASK-006 (5 orders on record).
    The premise holds when the claimed kind is the order's kind."""
    seeds = await generate_family(ask_settings, tmp_path, "wo_order_false_premise", 30)
    assert seeds
    table = {
        "WO-ASK-001": ("corrective", "OP-OVL", "2026-06-10T09:00:00"),
        "WO-ASK-002": ("preventive", "PM-INSP", "2026-06-11T08:00:00"),
        "WO-ASK-003": ("corrective", "OP-OVL", "2026-06-12T11:00:00"),
        "WO-ASK-004": ("corrective", "OP-OVL", "2026-06-29T11:30:00"),
        "WO-ASK-005": ("corrective", "OP-OVL", "2026-07-02T10:00:00"),
    }
    for s in seeds:
        p = s.params
        if p["wo_id"] == "WO-ASK-006":
            assert s.answer == {"premise_holds": False, "exists": False,
                                "work_orders_on_record": 5}
            continue
        kind, code, reported = table[p["wo_id"]]
        assert s.answer == {"premise_holds": kind == p["claim_kind"], "exists": True,
                            "kind": kind, "primary_code": code, "reported_date": reported}
    assert {s.outcome for s in seeds} == {"premise_holds", "false_premise"}


def test_weekday_hour_slot_by_hand() -> None:
    # 2026-08-22 is a Saturday (weekday 5): 20:00 -> 5 * 24 + 20 = 140, asked twice (the
    # second answer comes from the kept slots); 2026-08-17 is a Monday 00:00 -> 0;
    # 2026-08-23 a Sunday 23:00 -> 6 * 24 + 23 = 167.
    assert _weekday_hour("2026-08-22T20:00:00") == 140
    assert _weekday_hour("2026-08-22T20:00:00") == 140
    assert _weekday_hour("2026-08-17T00:00:00") == 0
    assert _weekday_hour("2026-08-23T23:00:00") == 167
    # the batch form: kept stamps looked up, the others computed (and kept), in order
    _SLOTS.clear()
    _weekday_hour("2026-08-17T00:00:00")
    stamps = ["2026-08-22T20:00:00", "2026-08-17T00:00:00", "2026-08-23T23:00:00"]
    assert _weekday_hours(stamps) == [140, 0, 167]
    assert _weekday_hours(stamps) == [140, 0, 167]
    assert _weekday_hours([]) == []


def test_earlier_same_hours_by_hand_sorted_or_not() -> None:
    # Peak 2026-08-22T20:00:00: the windows are [20:00, 21:00) on 08-15, 08-08, 08-01 and
    # 07-25 (k = 1..4, in that order). Hourly readings over those weeks plus a half-hour one
    # (08-08T20:30 falls in its window) and a repeated stamp (07-25T20:00 twice).
    start = datetime(2026, 7, 25)
    pairs = [((start + timedelta(hours=h)).isoformat(), float(h)) for h in range(28 * 24)]
    pairs += [("2026-08-08T20:30:00", 1000.0), ("2026-07-25T20:00:00", 2000.0)]
    pairs.sort()
    # hours after 07-25T00:00 of the 20:00 readings: 08-15 -> 21 * 24 + 20 = 524,
    # 08-08 -> 356, 08-01 -> 188, 07-25 -> 20
    expected = [524.0, 356.0, 1000.0, 188.0, 20.0, 2000.0]
    assert earlier_same_hours(pairs, "2026-08-22T20:00:00") == expected
    # unsorted: the plain filter, each window in the list's order
    shuffled = pairs[::-1]
    assert earlier_same_hours(shuffled, "2026-08-22T20:00:00") == [
        524.0, 1000.0, 356.0, 188.0, 2000.0, 20.0]
    assert earlier_same_hours([], "2026-08-22T20:00:00") == []


def test_literal_four_weeks_score_by_hand() -> None:
    """'The same weekday and hour over the four weeks before', read literally: the usual level
    is the slot's median over those four weeks and the spread comes from their residuals,
    the peak's own residual included (modified z, Iglewicz & Hoaglin 1993).

    One slot (Saturdays 20:00): 50, 52, 54, 56 -> median 53, residuals -3, -1, 1, 3; peak 70
    -> residual 17. Residuals -3, -1, 1, 3, 17: median 1, |r - 1| = 4, 2, 0, 2, 16 -> MAD 2;
    z = 0.6745 * (17 - 1) / 2 = 5.396.
    A second slot (Saturdays 21:00) at 10 four times adds residuals 0, 0, 0, 0: all residuals
    -3, -1, 0, 0, 0, 0, 1, 3, 17 -> median 0; |r| sorted 0, 0, 0, 0, 1, 1, 3, 3, 17 -> MAD 1;
    z = 0.6745 * 17 = 11.4665.
    """
    saturdays = ["2026-07-25", "2026-08-01", "2026-08-08", "2026-08-15"]
    one = [{"timestamp": f"{d}T20:00:00", "oti": v} for d, v in zip(saturdays, [50, 52, 54, 56],
                                                                     strict=True)]
    assert literal_baseline_score(one, "oti", "2026-08-22T20:00:00", 70.0) == pytest.approx(
        5.396, abs=1e-3)
    two = one + [{"timestamp": f"{d}T21:00:00", "oti": 10.0} for d in saturdays]
    assert literal_baseline_score(two, "oti", "2026-08-22T20:00:00", 70.0) == pytest.approx(
        11.4665, abs=1e-4)
    # MAD 0 (the slot reads 14 every week, the peak 20): residuals 0, 0, 0, 0, 6 -> median 0,
    # MeanAD 6/5 = 1.2, z = 6 / (1.253314 * 1.2) = 3.9894; a peak of 14 sits at the median: 0.
    flat = [{"timestamp": f"{d}T20:00:00", "oti": 14.0} for d in saturdays]
    assert literal_baseline_score(flat, "oti", "2026-08-22T20:00:00", 20.0) == pytest.approx(
        3.9894, abs=1e-4)
    assert literal_baseline_score(flat, "oti", "2026-08-22T20:00:00", 14.0) == 0.0
    # No reading of the peak's slot in those weeks: no literal score.
    assert literal_baseline_score(one, "oti", "2026-08-22T19:00:00", 70.0) is None


async def test_weekly_pattern_stops_at_a_usual_pattern_its_slot_passes_over(
    ask_settings: StoreSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Half of the family's slots are designated non-trivial (the policy's share 0.5). Once
    such a slot holds a fallback it passes over a usual pattern, so the draw stops as soon
    as the tool's score says usual (above the band of cut-offs: 0 on 07-01..07-03 here)
    instead of reading the four weeks before. The slots are the ones whole draws give, and
    so are the gate's drops."""
    from generator.generate.draw import families
    from generator.generate.run.run_config import GenerateConfig
    from generator.generate.run.stages import prepare
    from tests.assets.transformer.test_golden_families import ASSET, grounded_profile

    stopped: list[int] = []
    probe = families._probe

    async def counted(*args: Any, **kwargs: Any) -> Any:
        try:
            return await probe(*args, **kwargs)
        except families.PassedOver:
            stopped.append(args[2])
            raise

    monkeypatch.setattr(families, "_probe", counted)

    async def slots(run: str) -> tuple[list[Any], dict[str, Any]]:
        profile = await grounded_profile(ask_settings)
        config = GenerateConfig(n=10, seed=5, out_dir=str(tmp_path / run), draw_workers=0)
        env = await prepare(ASSET, profile, config, ask_settings, None)
        spec = FAMILIES.get("tsfm_weekly_pattern")
        env.families[spec.domain] = [spec]
        try:
            got = [await env.draw(spec.domain, c) for c in range(30)]
        finally:
            env.close()
        return [None if s is None else (s.draw, s.params, s.answer) for s in got], (
            env.family_ctx.gate_drops
        )

    cut = await slots("cut")
    assert stopped  # usual patterns were passed over without their four weeks
    monkeypatch.setattr(
        families.FamilyContext, "passes_over_trivial", property(lambda self: False)
    )
    stopped.clear()
    whole = await slots("whole")
    assert not stopped
    assert cut == whole
    assert any(s is not None and s[2]["verdict"] == "anomaly" for s in cut[0])
