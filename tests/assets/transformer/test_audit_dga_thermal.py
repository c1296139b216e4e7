"""Re-derivations of the gas-trend, oil-quality and thermal families on hand-made raw
documents; every expected value is worked by hand from the standard (arithmetic in comments).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import assets.transformer.audit  # noqa: F401  (registers the re-derivations)
from assets.transformer.audit import standards_oil_thermal as sot
from eval.audit.core import UNSUPPORTED, AuditContext, Case
from eval.audit.raw import Doc, RawStore
from eval.audit.run import ScenarioAudit, audit_case


class MemoryRaw(RawStore):
    """Raw documents held in memory instead of read over HTTP."""

    def __init__(self, plates: list[Doc], oil: dict[str, list[Doc]] | None = None,
                 telemetry: dict[str, list[Doc]] | None = None,
                 work: list[Doc] | None = None) -> None:
        self._plates, self._oil = plates, oil or {}
        self._tele, self._work = telemetry or {}, work or []

    def nameplates(self) -> list[Doc]:
        return self._plates

    def oil(self, asset_id: str) -> list[Doc]:
        return self._oil.get(asset_id, [])

    def telemetry(self, asset_id: str) -> list[Doc]:
        return self._tele.get(asset_id, [])

    def work_db(self, dataset: str) -> list[Doc]:
        return [d for d in self._work if d.get("dataset") == dataset]

    def truth(self, asset_id: str) -> Doc | None:
        return None


def audit(raw: MemoryRaw, family: str, text: str, params: dict[str, Any],
          answer: dict[str, Any], tolerance: dict[str, float] | None = None) -> ScenarioAudit:
    ctx = AuditContext(raw=raw, failure_modes=[])
    return audit_case(ctx, Case(id="x", family=family, text=text, params=params, grounding={},
                                answer=answer, tolerance=tolerance or {}, rel_tolerance={}))


def test_the_eleven_families_are_no_longer_pending() -> None:
    names = {"fmsr_gas_rate", "iot_gas_trend_window", "fmsr_dga_resample_interval",
             "fmsr_fault_onset", "fmsr_oil_quality", "wo_oil_treatment", "fmsr_overload_ageing",
             "ma_overload_ageing_workorder", "ma_ageing_window", "fmsr_emergency_loading",
             "fmsr_sustained_overload"}
    assert not names & set(UNSUPPORTED.names())


# -- DGA trend ------------------------------------------------------------------------------------


def _oil(ts: str, h2: float, ch4: float, c2h6: float, c2h4: float, c2h2: float, co: float
         ) -> Doc:
    return {"asset_id": "U1", "timestamp": ts, "hydrogen": h2, "methane": ch4, "ethane": c2h6,
            "ethylene": c2h4, "acetylene": c2h2, "co": co, "co2": 2000}


# TDCG = H2 + CH4 + C2H6 + C2H4 + C2H2 + CO:
#   S1 (03-01 10:00): 100 + 50 + 30 + 20 + 0 + 300 = 500 (200 without CO)
#   S2 (03-11 10:00): 120 + 60 + 35 + 25 + 0 + 520 = 760 (240 without CO)
S1 = _oil("2026-03-01T10:00:00", 100, 50, 30, 20, 0, 300)
S2 = _oil("2026-03-11T10:00:00", 120, 60, 35, 25, 0, 520)
PLATE = {"asset_id": "U1", "site_name": "S", "rated_mva": 25.0, "hv_kv": 132.0,
         "paper": "upgraded", "thermal_class": "ONAF"}
CO_NOTE = "Include carbon monoxide in the total combustible gas."


def test_gas_rate_tdcg_with_co_and_the_without_co_reading() -> None:
    # R = (760 − 500) / 10 days = 26 ppm/day: Table 3 band "10 to 30". Without CO:
    # (240 − 200) / 10 = 4 ppm/day, "below 10": a reading the CO note rules out.
    raw = MemoryRaw([PLATE], oil={"U1": [S1, S2]})
    ref = {"first_sample": S1["timestamp"], "last_sample": S2["timestamp"],
           "rate_ppm_per_day": 26.0, "rate_band": "10 to 30", "above_10_ppm_per_day": True}
    text = "TDCG rate of U1 between its last two samples? "
    params = {"asset_id": "U1", "which": "latest"}
    assert audit(raw, "fmsr_gas_rate", text + CO_NOTE, params, ref).verdict == "match"
    open_ = audit(raw, "fmsr_gas_rate", text, params, ref)
    assert open_.verdict == "reading_dependent"
    other = open_.disagreeing[0].answer
    assert other is not None and other["rate_ppm_per_day"] == pytest.approx(4.0)
    assert other["rate_band"] == "below 10"
    # a rate over 9 days (the calendar count off by one) is wrong: 260/9 = 28.9
    wrong = ref | {"rate_ppm_per_day": 260 / 9}
    assert audit(raw, "fmsr_gas_rate", text + CO_NOTE, params, wrong,
                 {"rate_ppm_per_day": 0.05}).verdict == "mismatch"


def test_gas_rate_dated_samples_need_one_sample_each_day() -> None:
    s0 = _oil("2026-02-20T10:00:00", 90, 40, 30, 20, 0, 250)
    raw = MemoryRaw([PLATE], oil={"U1": [s0, S1, S2]})
    ref = {"first_sample": s0["timestamp"], "last_sample": S2["timestamp"],
           # TDCG s0 = 90 + 40 + 30 + 20 + 0 + 250 = 430; (760 − 430) / 19 days = 17.37
           "rate_ppm_per_day": 330 / 19, "rate_band": "10 to 30", "above_10_ppm_per_day": True}
    params = {"asset_id": "U1", "which": "dated", "from_day": "2026-02-20",
              "to_day": "2026-03-11"}
    assert audit(raw, "fmsr_gas_rate", CO_NOTE, params, ref).verdict == "match"
    got = audit(raw, "fmsr_gas_rate", CO_NOTE, params | {"from_day": "2026-02-21"}, ref)
    assert got.verdict == "mismatch" and "0 oil samples on 2026-02-21" in got.note


def test_gas_trend_window_end_and_least_squares_readings() -> None:
    # Hydrogen: 03-01 100, 03-06 130, 03-21 150 (days 0, 5, 20), 03-26 170.
    samples = [_oil("2026-03-01T10:00:00", 100, 1, 1, 1, 0, 1),
               _oil("2026-03-06T10:00:00", 130, 1, 1, 1, 0, 1),
               _oil("2026-03-21T10:00:00", 150, 1, 1, 1, 0, 1),
               _oil("2026-03-26T10:00:00", 170, 1, 1, 1, 0, 1)]
    raw = MemoryRaw([PLATE], oil={"U1": samples})
    params = {"asset_id": "U1", "gas": "hydrogen", "start": "2026-03-01", "end": "2026-03-22"}
    # [03-01, 03-22): three samples, first to last 150 − 100 = 50 ppm over 20 days = 2.5/day.
    ref = {"samples": 3, "first_sample": "2026-03-01T10:00:00",
           "last_sample": "2026-03-21T10:00:00", "rate_ppm_per_day": 2.5, "change_ppm": 50.0}
    pinned = ("From the first to the last sample of U1 between 2026-03-01 and 2026-03-22 "
              "(end date excluded), how did hydrogen change?")
    assert audit(raw, "iot_gas_trend_window", pinned, params, ref).verdict == "match"
    # Without "first ... last", a least-squares line is a reading: x̄ = 25/3, ȳ = 380/3,
    # Sxx = 69.44 + 11.11 + 136.11 = 216.67, Sxy = 222.22 − 11.11 + 272.22 = 483.33,
    # slope = 483.33 / 216.67 = 2.2308 ppm/day.
    loose = "How did hydrogen of U1 trend between 2026-03-01 and 2026-03-22 (end date excluded)?"
    got = audit(raw, "iot_gas_trend_window", loose, params, ref, {"rate_ppm_per_day": 0.05})
    assert got.verdict == "reading_dependent"
    ls = got.disagreeing[0]
    assert "estimator=least_squares" in ls.name and ls.answer is not None
    assert ls.answer["rate_ppm_per_day"] == pytest.approx(483.33 / 216.67, rel=1e-3)
    # "From the earliest to the most recent sample" pins first-to-last too (an audit bug
    # found on an n = 1000 run: only "latest" was read as the last sample).
    recent = ("From the earliest to the most recent sample of U1 between 2026-03-01 and "
              "2026-03-22 (end date excluded), how did hydrogen change?")
    assert audit(raw, "iot_gas_trend_window", recent, params, ref).verdict == "match"
    # A bare range lets a reader count the whole end day: [03-01, 03-21) holds 100 → 130 over
    # 5 days (6 ppm/day); the whole 21 March adds the 03-21 sample.
    bare = "From the first to the last sample of U1 from 2026-03-01 to 2026-03-21"
    got = audit(raw, "iot_gas_trend_window", bare, params | {"end": "2026-03-21"},
                ref | {"samples": 2, "last_sample": "2026-03-06T10:00:00",
                       "rate_ppm_per_day": 6.0, "change_ppm": 30.0})
    # [03-01, 03-21): 100 → 130 over 5 days = 6/day; the whole end day adds the 03-21 sample.
    assert got.verdict == "reading_dependent"
    assert "window=end_day_inclusive" in got.disagreeing[0].name


def test_resample_interval_from_table_3() -> None:
    # Latest S2: TDCG 760 → condition 2 (720 < 760 ≤ 1920); rate since S1 26 ppm/day → band
    # 10–30 → Table 3: "monthly", "exercise caution". Without CO: TDCG 240 → condition 1,
    # rate 4 → "annually", "continue normal operation".
    raw = MemoryRaw([PLATE], oil={"U1": [S1, S2]})
    ref = {"latest_sample": S2["timestamp"], "tdcg_ppm": 760.0, "tdcg_condition": 2,
           "rate_ppm_per_day": 26.0, "sampling_interval": "monthly",
           "operating_procedure": "exercise caution"}
    text = "How often should U1 be resampled, by its total combustible gas? " + CO_NOTE
    assert audit(raw, "fmsr_dga_resample_interval", text, {"asset_id": "U1"},
                 ref).verdict == "match"
    got = audit(raw, "fmsr_dga_resample_interval", "How often should U1 be resampled, by "
                "its total combustible gas?", {"asset_id": "U1"}, ref)
    assert got.verdict == "reading_dependent"
    answer = got.disagreeing[0].answer
    assert answer is not None and (answer["tdcg_condition"], answer["sampling_interval"],
                                   answer["operating_procedure"]) == (
        1, "annually", "continue normal operation")


def test_table_3_and_rate_bands() -> None:
    assert [sot.rate_band(r) for r in (9.99, 10.0, 30.0, 30.01)] == [0, 1, 1, 2]
    assert [sot.tdcg_condition(t) for t in (720, 721, 1920, 4630, 4631)] == [1, 2, 2, 3, 4]
    assert sot.TABLE3_INTERVAL[4][1] == "daily"
    assert sot.TABLE3_PROCEDURE[4][0] == "exercise extreme caution and plan an outage"


ONSET_NOTE = ("Use the IEC 60599 ratios for the class. A sample is abnormal once any gas is "
              "above its IEC 60599 typical value or IEEE C57.104 condition 1; pass over abnormal "
              "samples whose class the ratios leave undetermined.")


def test_fault_onset_passes_over_an_undetermined_sample() -> None:
    # s0: every gas within IEC typical and IEEE condition 1 → normal.
    # s1: C2H6 100 > 90 (IEC typical) → abnormal; CH4/H2 = 0.5, C2H2/C2H4 = 0,
    #     C2H4/C2H6 = 0.2: PD needs CH4/H2 < 0.1, T1 needs CH4/H2 > 1 → ND (passed over).
    # s2: CH4 200 > 130 → abnormal; C2H2/C2H4 = 0.0067, CH4/H2 = 4, C2H4/C2H6 = 6 → T3.
    s0 = _oil("2026-05-01T09:00:00", 10, 5, 5, 2, 0, 100)
    s1 = _oil("2026-05-08T09:00:00", 100, 50, 100, 20, 0, 100)
    s2 = _oil("2026-05-15T09:00:00", 50, 200, 50, 300, 2, 100)
    raw = MemoryRaw([PLATE], oil={"U1": [s0, s1, s2]})
    params = {"asset_id": "U1", "start": "2026-05-01", "end": "2026-05-20"}
    ref = {"onset_sample": s2["timestamp"], "fault_type": "T3", "samples_before_onset": 2}
    text = "First faulty sample of U1 between 2026-05-01 and 2026-05-20 (end excluded)? "
    assert audit(raw, "fmsr_fault_onset", text + ONSET_NOTE, params, ref).verdict == "match"
    # Without the note, the ND sample may be taken as the onset (and other methods tried).
    got = audit(raw, "fmsr_fault_onset", text, params, ref)
    assert got.verdict == "reading_dependent"
    assert any(d.answer == {"onset_sample": s1["timestamp"], "fault_type": "ND",
                            "samples_before_onset": 1} for d in got.disagreeing)
    # A window ending before s2: no onset, 2 samples checked.
    none = {"onset_sample": None, "fault_type": None, "samples_before_onset": 2}
    assert audit(raw, "fmsr_fault_onset", text + ONSET_NOTE, params | {"end": "2026-05-12"},
                 none).verdict == "match"


def _onset_note_wordings() -> list[str]:
    """The fault-onset note as the family writes it, and each wording templates.yaml gives it."""
    from pathlib import Path

    import yaml

    from assets.transformer.families_dga import ONSET_NOTE as FAMILY_NOTE
    path = Path(__file__).parents[3] / "assets" / "transformer" / "templates.yaml"
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    found = [v for k, v in _walk(table) if k == FAMILY_NOTE]
    if not found:
        raise LookupError("templates.yaml has no wordings of the fault-onset note")
    return [FAMILY_NOTE, *found[0]]


def _walk(node: Any) -> list[tuple[Any, Any]]:
    if not isinstance(node, dict):
        return []
    pairs = list(node.items())
    return pairs + [p for v in node.values() for p in _walk(v)]


@pytest.mark.parametrize("note", _onset_note_wordings())
def test_fault_onset_every_wording_of_the_note_passes_over_undetermined(note: str) -> None:
    # The same three samples as above: s1 is abnormal (C2H6 100 > 90) with ratios that give
    # no class (ND); every wording of the note says such a sample is passed over, so the
    # onset is s2 (T3) after 2 samples under every reading the audit tries.
    s0 = _oil("2026-05-01T09:00:00", 10, 5, 5, 2, 0, 100)
    s1 = _oil("2026-05-08T09:00:00", 100, 50, 100, 20, 0, 100)
    s2 = _oil("2026-05-15T09:00:00", 50, 200, 50, 300, 2, 100)
    raw = MemoryRaw([PLATE], oil={"U1": [s0, s1, s2]})
    params = {"asset_id": "U1", "start": "2026-05-01", "end": "2026-05-20"}
    ref = {"onset_sample": s2["timestamp"], "fault_type": "T3", "samples_before_onset": 2}
    text = "First faulty sample of U1 between 2026-05-01 and 2026-05-20 (end excluded)? "
    assert audit(raw, "fmsr_fault_onset", text + note, params, ref).verdict == "match"


# -- oil quality ---------------------------------------------------------------------------------

LAB = {"water": "25", "bdv": "35", "ift": "30", "acid": "0.05"}


def test_oil_quality_grades_and_decision_in_the_stated_category() -> None:
    # Category B: water 25 in 20–30 fair; breakdown 35 < 40 poor; IFT 30 > 28 good;
    # acidity 0.05 < 0.10 good → poor breakdown → recondition.
    ref = {"categories": {"water_content": "fair", "dielectric_rigidity": "poor",
                          "interfacial_v": "good", "acidity": "good"},
           "decision": "recondition"}
    raw = MemoryRaw([PLATE])
    text = "Rate U1's oil. Treat it as category B (above 72.5 kV up to 170 kV) equipment."
    params = {"asset_id": "U1"} | LAB
    assert audit(raw, "fmsr_oil_quality", text, params, ref).verdict == "match"
    # Unstated category: the nameplate's 132 kV (B) and the critical-unit A; under A water 25
    # > 20 is poor → reading-dependent categories.
    got = audit(raw, "fmsr_oil_quality", "Rate U1's oil.", params, ref)
    assert got.verdict == "reading_dependent"
    assert got.disagreeing[0].answer is not None
    assert got.disagreeing[0].answer["categories"]["water_content"] == "poor"
    # acidity 0.25 > 0.20 (B) is poor: reclaim, whatever the breakdown voltage
    reclaim = audit(raw, "fmsr_oil_quality", text, params | {"acid": "0.25"}, ref)
    assert reclaim.verdict == "mismatch"


def test_oil_grades_on_the_limits_are_fair() -> None:
    assert sot.oil_grade("dielectric_rigidity", 40, "B") == "fair"
    assert sot.oil_grade("water_content", 30, "B") == "fair"
    assert sot.oil_grade("acidity", 0.31, "C") == "poor"
    assert sot.oil_treatment({"water_content": "poor", "acidity": "poor"}) == (
        "reclaim", ["acidity"])
    assert sot.oil_treatment({"water_content": "fair", "acidity": "good"}) == (
        "monitor", ["water_content"])
    assert [sot.oil_category(u) for u in (400, 220, 132, 72.5, 11)] == ["O", "A", "B", "C", "C"]


def test_oil_treatment_finds_the_first_preventive_visit() -> None:
    pm = [{"dataset": "wo_events", "wo_id": f"PM{i}", "equipment_id": "U1",
           "wo_type": "preventive", "primary_code": "PM-INSP", "reported_date": d}
          for i, d in ((1, "2026-04-02T08:00:00"), (2, "2026-04-20T08:00:00"))]
    cm = [{"dataset": "wo_events", "wo_id": "CM1", "equipment_id": "U1",
           "wo_type": "corrective", "primary_code": "X", "reported_date": "2026-04-10T08:00:00"}]
    raw = MemoryRaw([PLATE], work=pm + cm)
    # 132 kV → category B → recondition on the breakdown voltage (as above).
    ref = {"equipment_category": "B", "decision": "recondition", "raise_work_order": True,
           "basis": ["dielectric_rigidity"], "next_preventive_wo": "PM2",
           "next_preventive_date": "2026-04-20"}
    text = "Oil work for U1? Use the limits for its voltage class. First visit after {}?"
    got = audit(raw, "wo_oil_treatment", text.format("2026-04-05"),
                {"asset_id": "U1", "as_of": "2026-04-05"} | LAB, ref)
    assert got.verdict == "match"
    # On a visit day, "after" the date may or may not take that day's visit (PM1).
    got = audit(raw, "wo_oil_treatment", text.format("2026-04-02"),
                {"asset_id": "U1", "as_of": "2026-04-02"} | LAB, ref)
    assert got.verdict == "reading_dependent"


# -- thermal ------------------------------------------------------------------------------------

DIST = {"asset_id": "D1", "site_name": "S", "rated_mva": 1.6, "hv_kv": 11.0, "paper": "kraft",
        "cooling": "ONAN", "thermal_class": "ONAN_distribution"}
ONAF = {"asset_id": "F1", "site_name": "S", "rated_mva": 25.0, "hv_kv": 66.0,
        "paper": "upgraded", "cooling": "ONAF", "thermal_class": "ONAF"}
# D1 (ONAN distribution: Δθor 55, R 5, x 0.8, H·gr = 1.1·21 = 23.1, y 1.6) at K = 1.2, 30 °C:
#   Δθo = 55·(8.2/6)^0.8 = 55·1.28390 = 70.61 K; Δθh = 23.1·1.2^1.6 = 23.1·1.33871 = 30.92 K;
#   θo = 100.61 °C, θh = 131.54 °C; Kraft V = 2^((131.54 − 98)/6) = 2^5.590 = 48.16.
D1_OIL, D1_HOT, D1_V = 100.61, 131.54, 48.16


def _hour(unit: str, h: int, load: float, wti: float, day: str = "2026-07-01") -> Doc:
    return {"asset_id": unit, "timestamp": f"{day}T{h:02d}:00:00", "load_mva": load,
            "ati": 30.0, "wti": wti, "oti": wti - 20.0}


def _d1_day() -> list[Doc]:
    # above 1.6 MVA: 08–11 at 1.7, 14–16 at 1.92 (the day's peak), 20 at 1.76
    peak = {14: 1.92, 15: 1.92, 16: 1.92, 20: 1.76} | {h: 1.7 for h in range(8, 12)}
    return [_hour("D1", h, peak.get(h, 1.0), 100.0 if h in peak else 70.0) for h in range(24)]


METHOD = ("Model the hot spot from the hourly load and ambient, settled at the first hour's "
          "load and each reading held for its hour; integrate the ageing rate minute by minute "
          "with the IEC 60076-7 difference equations.")


def test_overload_ageing_on_the_stretch_holding_the_peak() -> None:
    # 14:00–16:00 at K = 1.92/1.6 = 1.2, settled at that load: θh = 131.54 each hour,
    # L = 3·48.16 = 144.5 h, ageing factor 48.16.
    raw = MemoryRaw([DIST], telemetry={"D1": _d1_day()})
    ref = {"start": "2026-07-01T14:00:00", "end": "2026-07-01T16:00:00", "hours": 3,
           "peak_hot_spot_c": D1_HOT, "loss_of_life_hours": 3 * D1_V, "ageing_factor": D1_V,
           "faster_than_normal": True}
    tol = {"peak_hot_spot_c": 0.01, "loss_of_life_hours": 0.1, "ageing_factor": 0.01}
    params = {"asset_id": "D1", "day": "2026-07-01"}
    text = "Ageing of D1 around the peak load of 2026-07-01? " + METHOD
    assert audit(raw, "fmsr_overload_ageing", text, params, ref, tol).verdict == "match"
    # Without the method note the winding indicator (100 °C: V = 2^(2/6) = 1.26) is a reading.
    got = audit(raw, "fmsr_overload_ageing", "Ageing of D1 on 2026-07-01?", params, ref, tol)
    assert got.verdict == "reading_dependent"
    wti = got.disagreeing[0].answer
    assert wti is not None and wti["ageing_factor"] == pytest.approx(2 ** (2 / 6))
    # One corrective order at 18:00, after the stretch began at 14:00: already raised.
    work = [{"dataset": "wo_events", "wo_id": "WO1", "equipment_id": "D1",
             "wo_type": "corrective", "primary_code": "OP-OVL",
             "reported_date": "2026-07-01T18:00:00"},
            {"dataset": "wo_events", "wo_id": "WO0", "equipment_id": "D1",
             "wo_type": "corrective", "primary_code": "OP-OVL",
             "reported_date": "2026-07-01T09:00:00"}]
    raw = MemoryRaw([DIST], telemetry={"D1": _d1_day()}, work=work)
    got = audit(raw, "ma_overload_ageing_workorder", text, params,
                ref | {"work_orders": ["WO1"], "decision": "already raised"}, tol)
    assert got.verdict == "match"


def test_hourly_model_after_a_step_in_load() -> None:
    # D1 settled at K = 1.0, 30 °C (θo = 85), then one hour at K = 1.2:
    #   θo = 100.61 + (85 − 100.61)·exp(−60/180) = 100.61 − 15.61·0.71653 = 89.43;
    #   Δθh1 (τ = k22·τw = 8 min) = 30.92 − (30.92 − 23.1)·exp(−7.5) = 30.916; k21 = 1 so
    #   Δθh2 = 0: θh = 89.43 + 30.92 = 120.35.
    c = sot.THERMAL["ONAN_distribution"]
    hot = sot.hourly_hot_spots([1.0, 1.2], [30.0, 30.0], c)
    assert hot[0] == pytest.approx(30 + 55 + 23.1, abs=1e-9)
    assert hot[1] == pytest.approx(120.35, abs=0.01)


def test_minute_ageing_steps_the_difference_equations() -> None:
    # D1 (ONAN distribution: k11·τo = 180 min, k22·τw = 8 min, k21 = 1 so Δθh2 = 0), Kraft,
    # θa = 19.9. Hour 1 settled at K = 1.0: θo = 74.9, Δθh1 = 23.1, θh = 98.0, V = 1 → 1 h.
    # Hour 2 at K = 1.2: targets θo 19.9 + 55·(8.2/6)^0.8 = 90.51432 °C, Δθh1
    # 23.1·1.2^1.6 = 30.92445 K. With the inputs held, minute j of the hour is
    #   θo_j = 90.51432 − 15.61432·(179/180)^j,  Δθh1_j = 30.92445 − 7.82445·(7/8)^j.
    # Minutes 1-3: θh 99.06480, 100.00687, 100.84148 (the tool's golden case). At j = 60:
    # (179/180)^60 = 0.715866 → θo = 79.33660; (7/8)^60 = 0.000331 → Δθh1 = 30.92186;
    # θh = 110.25842 (V there = 2^(12.25842/6) = 4.1212).
    # Hour 2 uses Σ_j 2^((θh_j − 98)/6)/60 over j = 1..60 = 3.05170 h, not 4.1212 h.
    c = sot.THERMAL["ONAN_distribution"]
    hot, used = sot.minute_ageing([1.0, 1.2], [19.9, 19.9], c, "kraft")
    assert hot == pytest.approx([98.0, 110.25842], abs=1e-4)
    assert used[0] == pytest.approx(1.0)
    closed = [90.51432 - 15.61432 * (179 / 180) ** j + 30.92445 - 7.82445 * (7 / 8) ** j
              for j in range(1, 61)]
    assert closed[:3] == pytest.approx([99.06480, 100.00687, 100.84148], abs=1e-4)
    assert used[1] == pytest.approx(sum(2 ** ((t - 98) / 6) for t in closed) / 60, rel=1e-6)
    assert used[1] == pytest.approx(3.05170, abs=1e-4)


def test_overload_ageing_integrates_the_rate_within_the_hour() -> None:
    # D1 at 30 °C: 14:00 at 1.92 MVA (K 1.2, settled: θo 100.614, Δθh 30.924, θh = 131.539,
    # V = 2^(33.539/6) = 48.161 → 48.161 h), 15:00 at 2.0 MVA (K 1.25, the day's peak):
    # targets θo∞ = 30 + 55·(8.8125/6)^0.8 = 30 + 55·1.360061 = 104.803 °C,
    # Δθh∞ = 23.1·1.25^1.6 = 33.012 K; minute by minute, as above,
    #   θh_j = θo∞ + (θo0 − θo∞)·(179/180)^j + Δθh∞ + (Δθh0 − Δθh∞)·(7/8)^j
    # → θh(60) = 134.816, L = 48.161 + Σ V(θh_j)/60 = 48.161 + 64.368 = 112.529 h.
    # The hour-end rule gives 48.161 + V(134.816) = 48.161 + 70.323 = 118.484 h (5.3 % more):
    # a mismatch.
    def target(k: float) -> tuple[float, float]:
        return 30 + 55 * ((1 + 5 * k * k) / 6) ** 0.8, 23.1 * k**1.6

    (o0, h0), (o1, h1) = target(1.2), target(1.25)
    hot = [o1 + (o0 - o1) * (179 / 180) ** j + h1 + (h0 - h1) * (7 / 8) ** j
           for j in range(1, 61)]
    first = 2 ** ((o0 + h0 - 98) / 6)
    loss = first + sum(2 ** ((t - 98) / 6) for t in hot) / 60
    assert (o0 + h0, hot[-1], loss) == pytest.approx((131.539, 134.816, 112.529), abs=1e-3)
    day = [_hour("D1", h, {14: 1.92, 15: 2.0}.get(h, 1.0), 90.0) for h in range(24)]
    raw = MemoryRaw([DIST], telemetry={"D1": day})
    ref = {"start": "2026-07-01T14:00:00", "end": "2026-07-01T15:00:00", "hours": 2,
           "peak_hot_spot_c": hot[-1], "loss_of_life_hours": loss, "ageing_factor": loss / 2,
           "faster_than_normal": True}
    tol = {"peak_hot_spot_c": 0.01, "loss_of_life_hours": 0.01, "ageing_factor": 0.01}
    params = {"asset_id": "D1", "day": "2026-07-01"}
    text = "Ageing of D1 around the peak load of 2026-07-01? " + METHOD
    assert audit(raw, "fmsr_overload_ageing", text, params, ref, tol).verdict == "match"
    hour_end = first + 2 ** ((hot[-1] - 98) / 6)
    assert hour_end == pytest.approx(118.484, abs=1e-3)
    old = ref | {"loss_of_life_hours": hour_end, "ageing_factor": hour_end / 2}
    assert audit(raw, "fmsr_overload_ageing", text, params, old, tol).verdict == "mismatch"


def test_ageing_window_of_the_winding_indicator() -> None:
    # 116 °C every hour: F_AA = exp(15000/383 − 15000/389) = exp(39.1645 − 38.5604) = 1.8296;
    # 24 h → 43.91 h of normal ageing; faster than normal.
    f116 = 1.8296
    raw = MemoryRaw([ONAF], telemetry={"F1": [_hour("F1", h, 20.0, 116.0) for h in range(24)]
                                       + [_hour("F1", 0, 20.0, 140.0, "2026-07-02")]})
    ref = {"f_eqa": f116, "equivalent_ageing_hours": 24 * f116, "faster_than_normal": True,
           "peak_winding_c": 116.0}
    params = {"asset_id": "F1", "start": "2026-07-01", "end": "2026-07-02", "week": False}
    tol = {"f_eqa": 1e-3, "equivalent_ageing_hours": 0.01}
    text = "Equivalent ageing of F1 on 2026-07-01? Its nameplate lists thermally upgraded paper."
    assert audit(raw, "ma_ageing_window", text, params, ref, tol).verdict == "match"
    # Unstated paper: Kraft V = 2^((116 − 98)/6) = 8 is a reading.
    got = audit(raw, "ma_ageing_window", "Equivalent ageing of F1 on 2026-07-01?", params, ref,
                tol)
    assert got.verdict == "reading_dependent"
    assert got.disagreeing[0].answer is not None
    assert got.disagreeing[0].answer["f_eqa"] == pytest.approx(8.0)


def test_emergency_loading_worked_example() -> None:
    # D1, 120 % for 4 h at 30 °C from a settled 80 %, normal cyclic (distribution: 1.5 pu,
    # hot spot 120, top oil 105):
    #   θo(0) = 30 + 55·(4.2/6)^0.8 = 30 + 55·0.75180 = 71.35;
    #   θo(240 min) = 100.61 − 29.26·exp(−240/180) = 100.61 − 7.71 = 92.90 ≤ 105;
    #   θh(240) = 92.90 + 30.92 = 123.82 > 120 (k21 = 1: rises monotonically, peak at the end)
    #   → cannot carry, limited by the hot spot.
    raw = MemoryRaw([DIST])
    ref = {"can_carry": False, "limiting_quantity": "hot_spot", "exceeded": ["hot_spot"],
           "peak_hot_spot_c": 123.82, "peak_top_oil_c": 92.90}
    tol = {"peak_hot_spot_c": 0.02, "peak_top_oil_c": 0.02}
    params = {"asset_id": "D1", "load_pct": 120, "hours": 4.0, "ambient": 30, "pre_pct": 80,
              "regime": "normal_cyclic"}
    text = "Can D1 carry 120 % for 4 hours at 30 °C from 80 % under normal cyclic loading?"
    # The large-power limits (1.3 pu, same temperatures) give the same answer: a match.
    assert audit(raw, "fmsr_emergency_loading", text, params, ref, tol).verdict == "match"
    # 160 % exceeds the 1.5 pu current limit at once: the current limits it.
    got = audit(raw, "fmsr_emergency_loading", text, params | {"load_pct": 160}, ref, tol)
    assert got.verdict == "mismatch"
    assert all(d.answer and d.answer["limiting_quantity"] == "current" for d in got.disagreeing)


def test_emergency_loading_within_limits_names_the_smaller_margin() -> None:
    # F1 (ONAF, 25 MVA, medium power), 105 % for 2 h at 20 °C from a settled 100 %, normal
    # cyclic (1.5 pu, hot spot 120, top oil 105). ONAF: k11·τo = 75, k22·τw = 14, τo/k22 = 75,
    # k21 = 2, H·gr = 26.
    #   θo: 20 + 52 = 72 → ultimate 20 + 52·(7.615/7)^0.8 = 20 + 52·1.06969 = 75.62;
    #       θo(120) = 75.62 − 3.62·exp(−1.6) = 75.62 − 0.731 = 74.89.
    #   Δθh = Δθh1 − Δθh2 with targets 2·27.70 and 27.70 (26·1.05^1.3 = 26·1.06548 = 27.70):
    #       Δθh(t) = 27.70 − 3.40·exp(−t/14) + 1.70·exp(−t/75); at 120: 27.70 − 0.0006 +
    #       0.343 = 28.04 → θh(120) = 102.93, still rising (dθo/dt = 0.0098 K/min against
    #       dΔθh/dt = −0.0046 K/min), so the peak is at the end.
    #   Within limits; margins: hot spot 120 − 102.93 = 17.07 K < top oil 105 − 74.89 =
    #   30.11 K → the hot spot limits it.
    raw = MemoryRaw([ONAF])
    ref = {"can_carry": True, "limiting_quantity": "hot_spot", "exceeded": [],
           "peak_hot_spot_c": 102.93, "peak_top_oil_c": 74.89}
    params = {"asset_id": "F1", "load_pct": 105, "hours": 2.0, "ambient": 20, "pre_pct": 100,
              "regime": "normal_cyclic"}
    got = audit(raw, "fmsr_emergency_loading", "Can F1 carry 105 %?", params, ref,
                {"peak_hot_spot_c": 0.01, "peak_top_oil_c": 0.01})
    assert got.verdict == "match", got.disagreeing


def test_distribution_short_time_top_oil_limit_is_a_reading_unless_stated() -> None:
    # D1 (distribution), 120 % for 15 min at 20 °C from a settled 70 %, short-time emergency.
    #   θo(0) = 20 + 55·(3.45/6)^0.8 = 20 + 55·0.64228 = 55.33; ultimate 20 + 70.61 = 90.61;
    #   θo(15) = 55.33 + 35.28·(1 − exp(−15/180)) = 55.33 + 35.28·0.07996 = 58.15.
    #   Δθh (k21 = 1, τ = 8 min): 23.1·0.7^1.6 = 23.1·0.56515 = 13.05 → 30.92;
    #   Δθh(15) = 30.92 − 17.87·exp(−15/8) = 30.92 − 2.74 = 28.18 → θh(15) = 86.33.
    # The shared table sets no short-time hot-spot or top-oil limit for distribution units
    # ("2.0 / – / –"): the current (1.2 ≤ 2.0) is the only limit, so it limits. The project's
    # notes hold the top oil to the 115 °C emergency limit: margin 56.85 K → top oil limits.
    raw = MemoryRaw([DIST])
    ref = {"can_carry": True, "limiting_quantity": "top_oil", "exceeded": [],
           "peak_hot_spot_c": 86.33, "peak_top_oil_c": 58.15}
    tol = {"peak_hot_spot_c": 0.02, "peak_top_oil_c": 0.02}
    params = {"asset_id": "D1", "load_pct": 120, "hours": 0.25, "ambient": 20, "pre_pct": 70,
              "regime": "short_time_emergency"}
    text = "Can D1 carry 120 % for 15 minutes at 20 °C from 70 % in a short-time emergency?"
    got = audit(raw, "fmsr_emergency_loading", text, params, ref, tol)
    assert got.verdict == "reading_dependent"
    table = got.disagreeing[0]
    assert "short_oil=table" in table.name and table.answer is not None
    assert table.answer["limiting_quantity"] == "current"
    stated = text + " Hold its top oil to the 115 °C emergency limit."
    assert audit(raw, "fmsr_emergency_loading", stated, params, ref, tol).verdict == "match"


def test_sustained_overload_steady_state_and_paper() -> None:
    raw = MemoryRaw([DIST, ONAF])
    ref = {"top_oil_c": D1_OIL, "hot_spot_c": D1_HOT, "relative_ageing_rate": D1_V,
           "faster_than_normal": True}
    tol = {"top_oil_c": 0.01, "hot_spot_c": 0.01, "relative_ageing_rate": 0.01}
    params = {"asset_id": "D1", "load_pct": 120, "ambient": 30}
    assert audit(raw, "fmsr_sustained_overload", "D1 at 120 %, 30 °C?", params, ref,
                 tol).verdict == "match"
    # F1 (ONAF) at 110 %, 30 °C: Δθo = 52·(8.26/7)^0.8 = 59.36, Δθh = 26·1.1^1.3 = 29.43,
    #   θh = 118.79; upgraded V = exp(15000/383 − 15000/391.79) = 2.408; Kraft
    #   2^((118.79 − 98)/6) = 11.06 is a reading unless the text states the paper.
    f1 = {"top_oil_c": 89.36, "hot_spot_c": 118.79, "relative_ageing_rate": 2.408,
          "faster_than_normal": True}
    params = {"asset_id": "F1", "load_pct": 110, "ambient": 30}
    stated = "F1 at 110 %, 30 °C? Its nameplate lists thermally upgraded paper."
    assert audit(raw, "fmsr_sustained_overload", stated, params, f1, tol).verdict == "match"
    got = audit(raw, "fmsr_sustained_overload", "F1 at 110 %, 30 °C?", params, f1, tol)
    assert got.verdict == "reading_dependent"
    kraft = got.disagreeing[0].answer
    assert kraft is not None
    assert kraft["relative_ageing_rate"] == pytest.approx(2 ** ((118.79 - 98) / 6), rel=1e-3)
    assert math.isclose(kraft["hot_spot_c"], 118.79, abs_tol=0.01)
