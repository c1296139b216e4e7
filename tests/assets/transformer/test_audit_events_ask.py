"""Re-derivations of the event, fleet and ask families on hand-made raw documents.

Every expected value is worked out by hand below from the documents (and asset.yaml's
failure-mode and sensor tables), never read off a family's or the audit's output.

Site S, 10 MVA units:

- U1 (installed 2010): hourly load 5 MVA, except on 2026-06-02: 09:00 10.2, 15:00 10.4,
  16:00 11.0, 17:00 11.6 and 0 from 18:00 (tripped). Alerts on 06-02: WTI_ALARM 16:48,
  OTI_ALARM 17:15, WTI_TRIP 17:42. Work orders: preventive WO-1 (PM-INSP) 06-02 08:00;
  corrective WO-2 (OP-OVL) 06-02 18:42 finished 06-03 12:00, WO-3 (OP-OVL) 06-03 04:48
  finished 06-04 09:00, WO-4 (EL-D1) 06-03 20:00 finished 06-04 08:00.
- U2 (2001) and U3 (1995): load 6 MVA, no alerts, no work orders.

Oil (one sample each, 2026-06-02 10:00): U1 healthy gases, U2 and U3 raised gases (the
health-index arithmetic is next to the constants).

Site W, unit W1: 35 days of hourly load from Monday 2026-06-01 00:00,
``load = 10 + 4·[hour = 9 on Monday..Friday]`` except Monday 06-29 09:00 = 20 (a spike) and
Tuesday 06-30 09:00 = 12 (a dip). Alerts: OTI_ALARM 06-29 10:05, OTI_TRIP 06-29 10:30,
OTI_ALARM 06-30 09:40. Work orders: corrective A-001 06-10 09:00, preventive A-002 06-11
08:00, corrective A-003 06-12 11:00, A-004 06-29 11:30, A-005 07-02 10:00.
Unit W2: 2026-07-03 00:00 .. 07-05 23:00 of ati 20, oti 50, wti 60 °C, il1 100 A, inut 5 A,
contacts 0, except oti_a = 1 at 07-04 15:00 (oti 92) and at the last record 07-05 23:00
(oti 91).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

import assets.transformer.audit  # noqa: F401  (registers the re-derivations)
from eval.audit.core import UNSUPPORTED, AuditContext, Case
from eval.audit.raw import Doc, RawStore
from eval.audit.run import ScenarioAudit, audit_case
from generator.assetdef import load_asset_class


class MemoryRaw(RawStore):
    """Raw documents held in memory instead of read over HTTP."""

    def __init__(self, plates: list[Doc], telemetry: list[Doc], oil: list[Doc],
                 work: list[Doc]) -> None:
        self._plates, self._tel, self._oil, self._work = plates, telemetry, oil, work

    def nameplates(self) -> list[Doc]:
        return sorted(self._plates, key=lambda d: str(d["asset_id"]))

    def telemetry(self, asset_id: str) -> list[Doc]:
        return sorted((d for d in self._tel if d["asset_id"] == asset_id),
                      key=lambda d: str(d["timestamp"]))

    def oil(self, asset_id: str) -> list[Doc]:
        return [d for d in self._oil if d["asset_id"] == asset_id]

    def work_db(self, dataset: str) -> list[Doc]:
        return [d for d in self._work if d.get("dataset") == dataset]

    def truth(self, asset_id: str) -> Doc | None:
        return None


def plate(asset: str, site: str, year: int) -> Doc:
    return {"asset_id": asset, "site_name": site, "rated_mva": 10.0, "year_installed": year}


def u_load(unit: str, t: datetime) -> float:
    if unit != "U1":
        return 6.0
    if t.date().isoformat() == "2026-06-02":
        if t.hour >= 18:
            return 0.0
        return {9: 10.2, 15: 10.4, 16: 11.0, 17: 11.6}.get(t.hour, 5.0)
    return 5.0


SPIKE, DIP = "2026-06-29T09:00:00", "2026-06-30T09:00:00"


def w_load(t: datetime) -> float:
    if t.isoformat() == SPIKE:
        return 20.0
    if t.isoformat() == DIP:
        return 12.0
    return 10.0 + (4.0 if t.hour == 9 and t.weekday() < 5 else 0.0)


# W3: load 10 MVA except on three Thursdays: 06-11 19:00 11; 06-18 19:00 12 and 03:00 25 (that
# day's peak is not at 19:00); 06-25 19:00 30 (the day's peak).
W3_LOAD = {"2026-06-11T19:00:00": 11.0, "2026-06-18T19:00:00": 12.0,
           "2026-06-18T03:00:00": 25.0, "2026-06-25T19:00:00": 30.0}


# W4: load 5 MVA except at 09:00 on the five Mondays: 10, 12, 13, 16 and 40 on 06-29.
W4_LOAD = {"2026-06-01T09:00:00": 10.0, "2026-06-08T09:00:00": 12.0,
           "2026-06-15T09:00:00": 13.0, "2026-06-22T09:00:00": 16.0,
           "2026-06-29T09:00:00": 40.0}


def telemetry() -> list[Doc]:
    docs: list[Doc] = []
    t0 = datetime(2026, 6, 1)
    for unit in ("U1", "U2", "U3"):
        for h in range(24 * 5):
            t = t0 + timedelta(hours=h)
            docs.append({"asset_id": unit, "site_name": "S", "timestamp": t.isoformat(),
                         "load_mva": u_load(unit, t)})
    for h in range(35 * 24):
        t = t0 + timedelta(hours=h)
        docs.append({"asset_id": "W1", "site_name": "W", "timestamp": t.isoformat(),
                     "load_mva": w_load(t)})
    for h in range(15 * 24):  # W3: Thursday 2026-06-11 00:00 .. Thursday 06-25 23:00
        t = datetime(2026, 6, 11) + timedelta(hours=h)
        docs.append({"asset_id": "W3", "site_name": "W", "timestamp": t.isoformat(),
                     "load_mva": W3_LOAD.get(t.isoformat(), 10.0)})
    for h in range(30 * 24):  # W4: 2026-06-01 00:00 .. 06-30 23:00
        t = datetime(2026, 6, 1) + timedelta(hours=h)
        docs.append({"asset_id": "W4", "site_name": "W", "timestamp": t.isoformat(),
                     "load_mva": W4_LOAD.get(t.isoformat(), 5.0)})
    for h in range(72):
        t = datetime(2026, 7, 3) + timedelta(hours=h)
        hot = {39: 92.0, 71: 91.0}.get(h)  # 07-04 15:00 and 07-05 23:00
        docs.append({"asset_id": "W2", "site_name": "W", "timestamp": t.isoformat(),
                     "ati": 20.0, "oti": hot or 50.0, "wti": 60.0, "il1": 100.0, "inut": 5.0,
                     "oti_a": 1 if hot else 0, "oti_t": 0, "wti_a": 0, "wti_t": 0})
    return docs


# Oil quality: water 10 ≤ 20 ppm (score 1, weight 4), breakdown 60 ≥ 52 kV (1, w 3), IFT 38 ≥
# 30 mN/m (1, w 2), dissipation 0.05 ≤ 0.1 % (1, w 3), acidity 0.03 ≤ 0.04 (1, w 1): mean 1.0
# < 1.2 → A → factor 4, with or without acidity.
QUALITY = {"water_content": 10.0, "dielectric_rigidity": 60.0, "interfacial_v": 38.0,
           "power_factor": 0.05, "acidity": 0.03}
# Every gas at or below its score-1 bound: mean 1.0 → A → factor 4; HI = 100·(40 + 24)/64 = 100.
HEALTHY = {"hydrogen": 20.0, "methane": 10.0, "ethane": 8.0, "ethylene": 5.0,
           "acetylene": 0.2, "co": 200.0, "co2": 1500.0}
# H2 250 (score 3, w 2), CH4 150 (3, w 3), C2H6 90 (3, w 3), C2H4 90 (3, w 3), C2H2 0.5 (1, w 5),
# CO 200 (1, w 1), CO2 1500 (1, w 1): (6 + 9 + 9 + 9 + 5 + 1 + 1)/18 = 2.22 → D → factor 1;
# HI = 100·(10 + 24)/64 = 53.125.
RAISED = {"hydrogen": 250.0, "methane": 150.0, "ethane": 90.0, "ethylene": 90.0,
          "acetylene": 0.5, "co": 200.0, "co2": 1500.0}


def oil(acidity_u1: float = 0.03) -> list[Doc]:
    ts = "2026-06-02T10:00:00"
    gases = {"U1": HEALTHY, "U2": RAISED, "U3": RAISED}
    return [{"asset_id": u, "timestamp": ts, **g, **QUALITY}
            | ({"acidity": acidity_u1} if u == "U1" else {}) for u, g in gases.items()]


def order(wo_id: str, unit: str, when: str, code: str, finish: str | None = None) -> Doc:
    prev = code == "PM-INSP"
    return {"dataset": "wo_events", "wo_id": wo_id, "equipment_id": unit, "preventive": prev,
            "wo_type": "preventive" if prev else "corrective", "primary_code": code,
            "reported_date": when, "actual_finish": finish or when}


def alert(unit: str, rule: str, when: str) -> Doc:
    return {"dataset": "events", "equipment_id": unit, "event_group": "ALERT",
            "event_type": rule, "event_time": when}


def work() -> list[Doc]:
    return [
        order("WO-1", "U1", "2026-06-02T08:00:00", "PM-INSP"),
        order("WO-2", "U1", "2026-06-02T18:42:00", "OP-OVL", "2026-06-03T12:00:00"),
        order("WO-3", "U1", "2026-06-03T04:48:00", "OP-OVL", "2026-06-04T09:00:00"),
        order("WO-4", "U1", "2026-06-03T20:00:00", "EL-D1", "2026-06-04T08:00:00"),
        alert("U1", "WTI_ALARM", "2026-06-02T16:48:00"),
        alert("U1", "OTI_ALARM", "2026-06-02T17:15:00"),
        alert("U1", "WTI_TRIP", "2026-06-02T17:42:00"),
        {"dataset": "events", "equipment_id": "U1", "event_group": "WORK_ORDER",
         "event_type": "OP-OVL", "event_time": "2026-06-02T18:42:00"},
        order("A-001", "W1", "2026-06-10T09:00:00", "OP-OVL"),
        order("A-002", "W1", "2026-06-11T08:00:00", "PM-INSP"),
        order("A-003", "W1", "2026-06-12T11:00:00", "OP-OVL"),
        order("A-004", "W1", "2026-06-29T11:30:00", "OP-OVL"),
        order("A-005", "W1", "2026-07-02T10:00:00", "OP-OVL"),
        alert("W1", "OTI_ALARM", "2026-06-29T10:05:00"),
        alert("W1", "OTI_TRIP", "2026-06-29T10:30:00"),
        alert("W1", "OTI_ALARM", "2026-06-30T09:40:00"),
    ]


ASSET = load_asset_class("transformer")


def context(years: dict[str, int] | None = None, acidity_u1: float = 0.03) -> AuditContext:
    y = {"U1": 2010, "U2": 2001, "U3": 1995} | (years or {})
    plates = [plate(u, "S", y[u]) for u in ("U1", "U2", "U3")]
    plates += [plate("W1", "W", 2005), plate("W2", "W", 2005)]
    raw = MemoryRaw(plates, telemetry(), oil(acidity_u1), work())
    return AuditContext(raw=raw, failure_modes=[fm.model_dump() for fm in ASSET.failure_modes],
                        sensors=[s.model_dump() for s in ASSET.sensors])


def audit(family: str, text: str, params: dict[str, Any], answer: dict[str, Any],
          ctx: AuditContext | None = None, tolerance: dict[str, float] | None = None
          ) -> ScenarioAudit:
    case = Case(id="x", family=family, text=text, params=params, grounding={}, answer=answer,
                tolerance=tolerance or {}, rel_tolerance={})
    return audit_case(ctx or context(), case)


def test_every_family_of_events_and_ask_is_re_derived() -> None:
    for name in ("wo_alarm_chain", "ma_trip_reconstruction", "fmsr_fleet_health_ranking",
                 "ma_outage_priority", "fmsr_symptom_failure_modes",
                 "wo_workorder_failure_modes", "tsfm_weekly_pattern", "iot_same_hour_weeks",
                 "iot_clarify_request", "wo_clarify_order", "wo_trip_false_premise",
                 "wo_order_false_premise", "iot_sensor_inventory"):
        assert name not in UNSUPPORTED, name


# -- event chains ------------------------------------------------------------------------------

# First alert 06-02 16:48; 24 hours later is 06-03 16:48: corrective WO-2 (18:42) and WO-3
# (06-03 04:48) are in, WO-4 (06-03 20:00) is not; preventive WO-1 never counts.
CHAIN = {
    "chain": [
        {"time": "2026-06-02T16:48:00", "step": "WTI_ALARM"},
        {"time": "2026-06-02T17:15:00", "step": "OTI_ALARM"},
        {"time": "2026-06-02T17:42:00", "step": "WTI_TRIP"},
        {"time": "2026-06-02T18:42:00", "step": "WO-2"},
        {"time": "2026-06-03T04:48:00", "step": "WO-3"},
    ],
    "tripped": True,
    "work_orders": ["WO-2", "WO-3"],
}


def test_alarm_chain_counts_work_within_24_hours_of_the_first_alert() -> None:
    text = "What happened on U1 on 2026-06-02, and what corrective work followed within 24 hours?"
    got = audit("wo_alarm_chain", text, {"asset_id": "U1", "day": "2026-06-02"}, CHAIN)
    assert got.verdict == "match", got.disagreeing
    wrong = CHAIN | {"work_orders": ["WO-2", "WO-3", "WO-4"]}
    assert audit("wo_alarm_chain", text, {"asset_id": "U1", "day": "2026-06-02"},
                 wrong).verdict == "mismatch"


def test_alarm_chain_within_a_day_also_reads_to_the_end_of_the_next_day() -> None:
    # To 06-04 00:00, WO-4 (06-03 20:00) answers the alarm too: the reference depends on it.
    text = "What happened on U1 on 2026-06-02, and what corrective work followed within a day?"
    got = audit("wo_alarm_chain", text, {"asset_id": "U1", "day": "2026-06-02"}, CHAIN)
    assert got.verdict == "reading_dependent"
    (other,) = got.disagreeing
    assert other.answer is not None and other.answer["work_orders"] == ["WO-2", "WO-3", "WO-4"]


# Load factor K = S/10 MVA on 06-02 up to the first alert (16:48): 50 % each hour except 09:00
# 102 %, 15:00 104 %, 16:00 110 %. The first record above the rating is 09:00 (102 %, 2 points
# from 100 %, outside the 0.5 % precision); the peak is 110 %. The response orders WO-2
# (finished 06-03 12:00) and WO-3 (finished 06-04 09:00): WO-3 finished last.
TRIP = CHAIN | {"overload_start": "2026-06-02T09:00:00", "peak_load_pct": 110.0,
                "closed_by": "WO-3", "closed_at": "2026-06-04T09:00:00"}


def test_trip_reconstruction_dates_the_first_overload_of_the_day() -> None:
    text = ("Why did U1 at site S trip on 2026-06-02? When did its load first go above the "
            "rating that day, its peak before the first alarm, the work within 24 hours?")
    got = audit("ma_trip_reconstruction", text, {"asset_id": "U1", "day": "2026-06-02"}, TRIP,
                tolerance={"peak_load_pct": 0.5})
    assert got.verdict == "match", got.disagreeing


def test_trip_reconstruction_unpinned_text_tries_the_run_and_the_hour_end_record() -> None:
    # Unbroken run up to 16:00: 15:00 and 16:00 above → dated 15:00. The record closing the
    # alert's hour (17:00, 116 %) raises the peak to 116 %.
    text = "Explain U1's trip on 2026-06-02 at site S: overload, peak, work within 24 hours."
    got = audit("ma_trip_reconstruction", text, {"asset_id": "U1", "day": "2026-06-02"}, TRIP,
                tolerance={"peak_load_pct": 0.5})
    assert got.verdict == "reading_dependent"
    answers = {d.name: d.answer for d in got.disagreeing}
    assert answers["dating=unbroken_run"]["overload_start"] == "2026-06-02T15:00:00"  # type: ignore[index]
    assert answers["records=hour_end"]["peak_load_pct"] == pytest.approx(116.0)  # type: ignore[index]


# -- health ranking and outage priority ------------------------------------------------------


def test_health_ranking_ties_equal_scores_worst_first() -> None:
    # U2 = U3 = 53.125 < U1 = 100.
    ranking = {"ranking": [{"units": ["U2", "U3"], "health_index": 53.125},
                           {"units": ["U1"], "health_index": 100.0}]}
    params = {"site": "S", "scope": "site", "ask": "ranking", "units": ["U1", "U2", "U3"]}
    got = audit("fmsr_fleet_health_ranking", "Rank site S by health index.", params, ranking)
    assert got.verdict == "match", got.disagreeing
    assert got.readings_tried == 2  # acidity scored and left out agree (both score 1)
    flipped = {"ranking": [{"units": ["U1"], "health_index": 100.0},
                           {"units": ["U2", "U3"], "health_index": 53.125}]}
    assert audit("fmsr_fleet_health_ranking", "Rank site S.", params,
                 flipped).verdict == "mismatch"
    worst = {"worst": ["U2", "U3"], "health_index": 53.125}
    got = audit("fmsr_fleet_health_ranking", "Which unit of site S is worst?",
                params | {"ask": "worst"}, worst)
    assert got.verdict == "match"


def test_health_ranking_with_acidity_that_changes_the_oil_factor_depends_on_the_reading() -> None:
    # U1 acidity 0.2 > 0.15: score 4 (weight 1). Oil mean (4 + 3 + 2 + 3 + 4)/13 = 16/13 = 1.23
    # → B → factor 3: HI = 100·(40 + 18)/64 = 90.625; left out, 12/12 = 1.0 → 100.
    ranking = {"ranking": [{"units": ["U2", "U3"], "health_index": 53.125},
                           {"units": ["U1"], "health_index": 90.625}]}
    params = {"site": "S", "scope": "site", "ask": "ranking"}
    got = audit("fmsr_fleet_health_ranking", "Rank site S.", params, ranking,
                context(acidity_u1=0.2), tolerance={"ranking": 0.5})
    assert got.verdict == "reading_dependent"
    assert got.disagreeing[0].name == "acidity=left_out"


def test_outage_priority_breaks_equal_scores_by_installation_year() -> None:
    # Order by (score, year): U3 (53.125, 1995), U2 (53.125, 2001), U1 (100, 2010).
    params = {"site": "S", "scope": "site", "budget": 1}
    one = {"chosen": ["U3"], "health_index": {"U3": 53.125}, "tie_broken_by_age": True}
    got = audit("ma_outage_priority", "Take one unit of site S out first.", params, one)
    assert got.verdict == "match", got.disagreeing
    # Budget 2: U3 then U2 (their equal scores ordered by age inside the chosen set).
    two = {"chosen": ["U3", "U2"], "health_index": {"U3": 53.125, "U2": 53.125},
           "tie_broken_by_age": True}
    assert audit("ma_outage_priority", "Two units.", params | {"budget": 2},
                 two).verdict == "match"
    by_id = {"chosen": ["U2"], "health_index": {"U2": 53.125}, "tie_broken_by_age": True}
    assert audit("ma_outage_priority", "One unit.", params, by_id).verdict == "mismatch"


def test_outage_priority_with_equal_score_and_year_across_the_cut_has_no_answer() -> None:
    ctx = context(years={"U2": 1995})
    got = audit("ma_outage_priority", "One unit of site S.",
                {"site": "S", "scope": "site", "budget": 1},
                {"chosen": ["U2"], "health_index": {"U2": 53.125}, "tie_broken_by_age": True},
                ctx)
    assert got.verdict != "match"
    assert all(d.answer is None for d in got.disagreeing)


# -- failure modes ---------------------------------------------------------------------------


def test_symptom_failure_modes_are_the_modes_both_sensors_reveal() -> None:
    # asset.yaml: acetylene and ethylene are both listed by thermal_fault_t3 (TH-T3),
    # discharge_low_energy (EL-D1) and discharge_high_energy (EL-D2); t2 lacks acetylene.
    answer = {"failure_modes": ["discharge_high_energy", "discharge_low_energy",
                                "thermal_fault_t3"],
              "failure_codes": {"discharge_high_energy": "EL-D2",
                                "discharge_low_energy": "EL-D1", "thermal_fault_t3": "TH-T3"}}
    params = {"asset_id": "U1", "sensors": ["acetylene", "ethylene"]}
    assert audit("fmsr_symptom_failure_modes", "acetylene and ethylene rising", params,
                 answer).verdict == "match"
    less = {"failure_modes": ["discharge_low_energy"],
            "failure_codes": {"discharge_low_energy": "EL-D1"}}
    assert audit("fmsr_symptom_failure_modes", "...", params, less).verdict == "mismatch"


def test_workorder_failure_modes_follow_the_codes_of_the_window() -> None:
    # [06-02, 06-03): corrective WO-2 (OP-OVL) only → overloading and its sensors.
    answer = {"work_orders": 1, "codes": ["OP-OVL"], "failure_modes": ["overloading"],
              "sensors": ["il1", "il2", "il3", "load_mva", "oti", "oti_a", "oti_t", "wti",
                          "wti_a", "wti_t"]}
    params = {"asset_id": "U1", "start": "2026-06-02", "end": "2026-06-03"}
    pinned = "U1's corrective work from 2026-06-02 up to 2026-06-03 (not including it)"
    assert audit("wo_workorder_failure_modes", pinned, params, answer).verdict == "match"
    # A bare range lets a reader include the whole of 06-03: WO-3 (OP-OVL) and WO-4 (EL-D1)
    # add discharge_low_energy.
    got = audit("wo_workorder_failure_modes", "U1's corrective work 2026-06-02 to 2026-06-03",
                params, answer)
    assert got.verdict == "reading_dependent"
    other = got.disagreeing[0].answer
    assert other is not None and other["failure_modes"] == ["discharge_low_energy",
                                                            "overloading"]


# -- weekly pattern and same hour ------------------------------------------------------------


def test_weekly_pattern_flags_the_monday_spike_against_its_weekday_hour() -> None:
    # Day 06-29 (Monday): peak 20 at 09:00. Monday-09:00 slot over 06-01..06-30:
    # 14, 14, 14, 14, 20 → median 14, residual 6. Tuesday-09:00: 14 × 4 and the dip 12 →
    # median 14, residual −2. Every other residual is 0, so the MAD is 0 and the mean
    # absolute deviation stands in: (6 + 2)/720 = 0.0111; z = 6/(1.2533·0.0111) = 431 > 4.
    # (Scored from 06-28 the reference ends 06-30 00:00: the residual is still 6.)
    answer = {"peak_time": SPIKE, "peak_value": 20.0, "verdict": "anomaly", "expected": 14.0}
    params = {"asset_id": "W1", "sensor": "load_mva", "day": "2026-06-29"}
    got = audit("tsfm_weekly_pattern", "Was W1's load peak on 2026-06-29 usual?", params,
                answer)
    assert got.verdict == "match", got.disagreeing
    # three cut-offs × (two scored windows + the four weeks before alone; the slot's median
    # is 14 either way)
    assert got.readings_tried == 9
    usual = answer | {"verdict": "usual_pattern", "expected": None}
    assert audit("tsfm_weekly_pattern", "...", params, usual).verdict == "mismatch"


def test_weekly_pattern_a_weekday_peak_like_the_weeks_before_is_usual() -> None:
    # Day 07-01 (Wednesday): peak 14 at 09:00 (other hours 10); Wednesday-09:00 slot: 14 in
    # every week → residual 0 → z 0 under every cut-off.
    answer = {"peak_time": "2026-07-01T09:00:00", "peak_value": 14.0,
              "verdict": "usual_pattern", "expected": None}
    params = {"asset_id": "W1", "sensor": "load_mva", "day": "2026-07-01"}
    assert audit("tsfm_weekly_pattern", "...", params, answer).verdict == "match"


def test_weekly_pattern_usual_level_of_the_four_weeks_before_alone_is_a_reading() -> None:
    # W4, day 06-29 (Monday), peak 40 at 09:00. Tool convention (the window and the four weeks
    # before): Monday-09:00 slot {10, 12, 13, 16, 40} → expected 13. Residuals −3, −1, 0, 3, 27,
    # every other 0 → MAD 0, mean |dev| = 34/720 = 0.0472, z = 27/(1.2533·0.0472) = 456.
    # "The same weekday and hour over the four weeks before" read literally: {10, 12, 13, 16}
    # → expected 12.5; residuals of those weeks −2.5, −0.5, 0.5, 3.5 and the peak's 27.5 →
    # mean |dev| = 34.5/673 = 0.0513, z = 27.5/(1.2533·0.0513) = 428: an anomaly either way,
    # but its usual level differs by 0.5 (> 0.01 + 1 % of 13).
    answer = {"peak_time": "2026-06-29T09:00:00", "peak_value": 40.0, "verdict": "anomaly",
              "expected": 13.0}
    params = {"asset_id": "W4", "sensor": "load_mva", "day": "2026-06-29"}
    got = audit("tsfm_weekly_pattern", "...", params, answer, tolerance={"expected": 0.01})
    assert got.verdict == "reading_dependent"
    assert got.readings_tried == 9  # 3 cut-offs × (2 scored windows + the four weeks alone)
    assert {d.name for d in got.disagreeing} == {
        "baseline=four_weeks_only", "cutoff=3.0,baseline=four_weeks_only",
        "cutoff=4.0,baseline=four_weeks_only"}
    assert all(d.answer and d.answer["expected"] == 12.5 and d.answer["verdict"] == "anomaly"
               for d in got.disagreeing)


def test_same_hour_weeks_compares_with_the_same_weekday_hour() -> None:
    # Tuesday 06-30: peak 12 at 09:00 (the dip; other hours 10). The previous three Tuesdays
    # at 09:00 read 14: not above them.
    answer = {"peak_value": 12.0, "previous": {"2026-06-23": 14.0, "2026-06-16": 14.0,
                                               "2026-06-09": 14.0},
              "previous_max": 14.0, "above_all_previous": False}
    params = {"asset_id": "W1", "sensor": "load_mva", "day": "2026-06-30", "weeks": 3}
    text = "Compare W1's peak load on 2026-06-30 with the same hour on the three Tuesdays before."
    got = audit("iot_same_hour_weeks", text, params, answer)
    assert got.verdict == "match", got.disagreeing
    assert got.readings_tried == 1
    above = answer | {"above_all_previous": True}
    assert audit("iot_same_hour_weeks", text, params, above).verdict == "mismatch"


def test_same_hour_weeks_a_text_naming_the_hour_pins_the_readings_at_that_hour() -> None:
    # 06-25 peak 30 at 19:00. At 19:00 on the two Thursdays before: 06-18 12, 06-11 11 → max
    # 12, above. (Those days' peaks would be 06-18 25 at 03:00 and 06-11 11.)
    answer = {"peak_value": 30.0, "previous": {"2026-06-18": 12.0, "2026-06-11": 11.0},
              "previous_max": 12.0, "above_all_previous": True}
    params = {"asset_id": "W3", "sensor": "load_mva", "day": "2026-06-25", "weeks": 2,
              "hour": "19:00"}
    text = ("I need the 19:00 load readings of W3 for Thursday 2026-06-25 and the previous 2 "
            "Thursdays, and whether 2026-06-25 beats all of them.")
    got = audit("iot_same_hour_weeks", text, params, answer)
    assert got.verdict == "match" and got.readings_tried == 1
    # A text that names no hour may be read as those days' peaks: 06-18 then reads 25.
    loose = "Was W3's load peak on 2026-06-25 higher than on the previous 2 Thursdays?"
    got = audit("iot_same_hour_weeks", loose, params, answer)
    assert got.verdict == "reading_dependent"
    other = got.disagreeing[0].answer
    assert other is not None and other["previous"] == {"2026-06-18": 25.0, "2026-06-11": 11.0}


# -- clarifying questions --------------------------------------------------------------------


def test_clarify_lists_the_sites_units_or_the_sensors_of_the_quantity() -> None:
    got = audit("iot_clarify_request", "Latest load of the unit at site S?",
                {"ask": "unit", "site": "S"},
                {"clarification_needed": True, "ambiguity": "...", "options": ["U1", "U2", "U3"]})
    assert got.verdict == "match" and got.unverified_keys == ["ambiguity"]
    # W2 reports ati, oti, wti in degC and il1, inut in A (asset.yaml units).
    temps = {"clarification_needed": True, "options": ["ati", "oti", "wti"]}
    assert audit("iot_clarify_request", "W2's temperature?",
                 {"ask": "sensor", "asset_id": "W2", "quantity": "temperature"},
                 temps).verdict == "match"
    amps = {"clarification_needed": True, "options": ["il1", "inut"]}
    assert audit("iot_clarify_request", "W2's current?",
                 {"ask": "sensor", "asset_id": "W2", "quantity": "current"},
                 amps).verdict == "match"
    assert audit("iot_clarify_request", "W2's current?",
                 {"ask": "sensor", "asset_id": "W2", "quantity": "current"},
                 temps).verdict == "mismatch"


def test_clarify_order_lists_the_corrective_work_of_the_week() -> None:
    # [06-10, 06-17): corrective A-001 (06-10) and A-003 (06-12); A-002 is preventive.
    answer = {"clarification_needed": True, "options": ["A-001", "A-003"]}
    got = audit("wo_clarify_order", "The corrective job on W1 in the week from 2026-06-10?",
                {"asset_id": "W1", "start": "2026-06-10", "end": "2026-06-17"}, answer)
    assert got.verdict == "match", got.disagreeing


# -- false premises --------------------------------------------------------------------------


def test_trip_premise_holds_and_lists_the_work_after_the_trip() -> None:
    # Trip 06-29 10:30; corrective after it: A-004 (06-29 11:30) and A-005 (07-02).
    answer = {"premise_holds": True, "trip_time": "2026-06-29T10:30:00",
              "corrective_raised": True, "work_orders": ["A-004", "A-005"]}
    got = audit("wo_trip_false_premise", "Since the trip of W1 on 2026-06-29 ...",
                {"asset_id": "W1", "claim_date": "2026-06-29"}, answer)
    assert got.verdict == "match" and not got.premise_false


def test_trip_premise_on_an_alarm_day_is_false() -> None:
    # 06-30 holds an alarm (OTI_ALARM 09:40), no trip; the one trip is 06-29 10:30.
    answer = {"premise_holds": False, "trips_on_record": ["2026-06-29T10:30:00"],
              "alerts_that_day": ["OTI_ALARM"]}
    got = audit("wo_trip_false_premise", "Since the trip of W1 on 2026-06-30 ...",
                {"asset_id": "W1", "claim_date": "2026-06-30"}, answer)
    assert got.verdict == "match" and got.premise_false


def test_order_premise_checks_kind_and_existence() -> None:
    params = {"asset_id": "W1", "wo_id": "A-002", "claim_kind": "corrective"}
    preventive = {"premise_holds": False, "exists": True, "kind": "preventive",
                  "primary_code": "PM-INSP", "reported_date": "2026-06-11T08:00:00"}
    got = audit("wo_order_false_premise", "What was corrective order A-002 for?", params,
                preventive)
    assert got.verdict == "match" and got.premise_false
    missing = {"premise_holds": False, "exists": False, "work_orders_on_record": 5}
    got = audit("wo_order_false_premise", "...", params | {"wo_id": "A-006"}, missing)
    assert got.verdict == "match"
    holds = {"premise_holds": True, "exists": True, "kind": "corrective",
             "primary_code": "OP-OVL", "reported_date": "2026-06-10T09:00:00"}
    got = audit("wo_order_false_premise", "...", params | {"wo_id": "A-001"}, holds)
    assert got.verdict == "match" and not got.premise_false


# -- what a unit measures --------------------------------------------------------------------


def test_inventory_tells_hourly_from_laboratory_quantities() -> None:
    lab = {"measured_hourly": False, "in_oil_samples": True}  # acidity: oil_sample source
    assert audit("iot_sensor_inventory", "...", {"ask": "quantity", "asset_id": "W2",
                                                 "quantity": "acidity"}, lab).verdict == "match"
    hourly = {"measured_hourly": True, "in_oil_samples": False}  # inut: W2's telemetry
    assert audit("iot_sensor_inventory", "...", {"ask": "quantity", "asset_id": "W2",
                                                 "quantity": "inut"}, hourly).verdict == "match"
    assert audit("iot_sensor_inventory", "...", {"ask": "quantity", "asset_id": "W2",
                                                 "quantity": "acidity"},
                 hourly).verdict == "mismatch"


def test_inventory_reads_the_temperatures_of_the_latest_record_or_the_hour_asked() -> None:
    latest = {"temperature_sensors": ["ati", "oti", "wti"], "timestamp": "2026-07-05T23:00:00",
              "latest": {"ati": 20.0, "oti": 91.0, "wti": 60.0}, "in_alarm": ["oti"]}
    params = {"ask": "temperatures", "asset_id": "W2", "at_time": False}
    assert audit("iot_sensor_inventory", "...", params, latest).verdict == "match"
    at = {"temperature_sensors": ["ati", "oti", "wti"], "timestamp": "2026-07-04T15:00:00",
          "latest": {"ati": 20.0, "oti": 92.0, "wti": 60.0}, "in_alarm": ["oti"]}
    params = {"ask": "temperatures", "asset_id": "W2", "at_time": True, "day": "2026-07-04",
              "hour": "15:00"}
    assert audit("iot_sensor_inventory", "...", params, at).verdict == "match"
