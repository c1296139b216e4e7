"""The chiller's independent audit: its formulas worked by hand, and the audit of a generated
chiller run over the small seeded fleet (every family but the tool catalogue covered)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assets.chiller.audit import standards
from eval.audit.core import Case
from eval.audit.raw import RawStore
from eval.audit.run import AuditReport, audit_run
from generator.config import StoreSettings
from generator.generate.run.pipeline import Pipeline
from generator.generate.run.run_config import GenerateConfig
from tests.assets.chiller.chiller_fleet import seed_chiller
from tests.eval.audit.planting import plant_wrong_reference

REF_KWT = 3.516852 / 5.5  # COP 5.5 → 0.639428 kW/ton


# -- the EIR model (EnergyPlus Chiller:Electric:EIR, DOE-2 Centrifugal/5.50COP) ---------------


def test_curves_at_the_reference_point_by_hand() -> None:
    # x = 6.67, y = 29.4, x² = 44.4889, y² = 864.36, x·y = 196.098
    # CAPFT = 0.257896 + 0.259474 − 0.009658 + 1.377931 − 0.814953 − 0.067348 = 1.003342
    # EIRFT = 0.933884 − 0.388274 + 0.200216 + 0.071442 + 0.420079 − 0.238259 = 0.999088
    assert standards.CAPFT.at(6.67, 29.4, True) == pytest.approx(1.003342, abs=2e-6)
    assert standards.EIRFT.at(6.67, 29.4, True) == pytest.approx(0.999088, abs=2e-6)


def test_design_kw_per_ton_at_full_load_by_hand() -> None:
    # 500 tons asked of a 500-ton unit: available 500 × 1.003342 = 501.671 tons,
    # PLR = 0.996669, EIRFPLR = 0.222903 + 0.313387 × 0.996669 + 0.46371 × 0.993349 = 0.995872
    # kW/ton = 0.639428 × 1.003342 × 0.999088 × 0.995872 = 0.638334
    assert standards.design_kw_per_ton(500, REF_KWT, 500, 6.67, 29.4) == pytest.approx(
        0.638334, abs=2e-6)


def test_design_kw_per_ton_below_the_minimum_part_load_cycles_by_hand() -> None:
    # 20 tons: PLR = 20 / 501.671 = 0.039867 < 0.1 → EIRFPLR at the unloading limit 0.2:
    # 0.222903 + 0.0626774 + 0.0185484 = 0.304129; cycling fraction 0.39867.
    # P = 500 × 0.639428 × 1.003342 × 0.999088 × 0.304129 × 0.39867 = 38.858 kW → 1.94292 kW/ton
    assert standards.design_kw_per_ton(500, REF_KWT, 20, 6.67, 29.4) == pytest.approx(
        1.94292, abs=1e-4)


def test_curve_inputs_are_held_to_their_range_unless_extrapolated() -> None:
    # 18.33 °C entering condenser water lies below the fitted 24 °C: EnergyPlus evaluates at 24.
    held = standards.design_kw_per_ton(500, REF_KWT, 250, 6.67, 18.33)
    assert held == pytest.approx(standards.design_kw_per_ton(500, REF_KWT, 250, 6.67, 24.0))
    assert standards.design_kw_per_ton(500, REF_KWT, 250, 6.67, 18.33, limit=False) != held
    assert not standards.temperatures_inside(6.67, 18.33)


def test_a_load_above_the_available_capacity_has_no_design_figure() -> None:
    with pytest.raises(standards.OverCapacity):
        standards.design_kw_per_ton(500, REF_KWT, 510, 6.67, 29.4)


def test_efficiency_bands() -> None:
    # (0.70 / 0.638334 − 1) × 100 = 9.66 % → degraded (5 % < d ≤ 15 %)
    d = standards.degradation_pct(0.70, 0.638334)
    assert d == pytest.approx(9.6605, abs=1e-3)
    assert [standards.efficiency_band(x) for x in (-5.1, -5.0, 5.0, 5.1, 15.0, 15.1)] == [
        "better_than_design", "normal", "normal", "degraded", "degraded", "severely_degraded"]


def test_iplv_by_hand() -> None:
    # 0.01/0.618 + 0.42/0.507 + 0.45/0.465 + 0.12/0.534
    #   = 0.016181 + 0.828402 + 0.967742 + 0.224719 = 2.037044 → 1 / 2.037044 = 0.490907
    assert standards.iplv_kw_per_ton([0.618, 0.507, 0.465, 0.534]) == pytest.approx(
        0.490907, abs=2e-6)


# -- approaches and the service rules ------------------------------------------------------

DESIGN = standards.Design(evap_approach_k=1.1, cond_approach_k=1.1, subcooling_k=5.0,
                          superheat_k=8.0)


def test_both_approaches_high_with_normal_subcooling_is_fouling_of_both_by_hand() -> None:
    # 80 % load: expected approaches 1.1 × 0.8 = 0.88 K.
    # evaporator 6.67 − 3.0 = 3.67 K, rise 2.79 ≥ 1.667; condenser 40 − 35 = 5.0 K, rise 4.12.
    # subcooling 40 − 37 = 3 K, shift −2 K: neither ≥ +2.78 (purge) nor ≤ −2.78 (low charge).
    # superheat 49 − 40 = 9 K, rise 1 K < 10 K.
    record = {"supply_temperature": 6.67, "setpoint_temperature": 6.67,
              "evaporator_refrigerant_temperature": 3.0, "percent_loaded": 80.0,
              "condenser_refrigerant_temperature": 40.0,
              "condenser_water_return_temperature": 35.0,
              "condenser_liquid_temperature": 37.0, "discharge_temperature": 49.0}
    assert standards.diagnose(record, DESIGN).findings == ["condenser_fouling",
                                                           "evaporator_fouling"]
    ap = standards.approaches(record, DESIGN)
    assert (ap.evap_k, ap.cond_k) == pytest.approx((3.67, 5.0))
    assert (ap.evap_rise_k, ap.cond_rise_k) == pytest.approx((2.79, 4.12))
    # the same condenser with subcooling 40 − 32 = 8 K (shift +3 ≥ 2.78): non-condensables
    purge = record | {"condenser_liquid_temperature": 32.0}
    assert standards.diagnose(purge, DESIGN).findings == ["purge_problem", "evaporator_fouling"]


def test_a_drifting_supply_sensor_is_drift_to_the_rules_and_fouling_to_the_approach() -> None:
    # supply 8.0 vs setpoint 6.67 (offset 1.33 ≥ 1 K) at 60 % load (< 95 %): sensor drift; the
    # rules take the leaving water from the setpoint: 6.67 − 5.5 = 1.17 K against 0.66 K
    # expected, rise 0.51 K: not high. The measured supply gives 8.0 − 5.5 = 2.5 K, rise 1.84 K
    # ≥ 1.667: evaporator approach high.
    record = {"supply_temperature": 8.0, "setpoint_temperature": 6.67,
              "evaporator_refrigerant_temperature": 5.5, "percent_loaded": 60.0,
              "condenser_refrigerant_temperature": 31.0,
              "condenser_water_return_temperature": 30.5,
              "condenser_liquid_temperature": 26.0, "discharge_temperature": 39.0}
    assert standards.drift_suspected(record)
    assert standards.diagnose(record, DESIGN).findings == ["sensor_drift"]
    assert standards.approaches(record, DESIGN).evap_high
    assert not standards.approaches(record, DESIGN, leaving_chw_c=6.67).evap_high


def test_below_ten_percent_load_the_unit_is_not_running() -> None:
    record = {"supply_temperature": 6.67, "evaporator_refrigerant_temperature": 0.0,
              "percent_loaded": 9.9, "condenser_refrigerant_temperature": 40.0,
              "condenser_water_return_temperature": 30.0}
    assert standards.diagnose(record, DESIGN).findings == ["not_running"]


# -- the audit of a generated chiller run ------------------------------------------------------

CATALOGUE = "chiller_tsfm_catalogue"


@pytest.fixture(scope="module")
def chiller_run(settings_for: Callable[..., StoreSettings],
                tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, StoreSettings]:
    import asyncio

    settings = seed_chiller(settings_for)
    out = tmp_path_factory.mktemp("chiller_audit")
    cfg = GenerateConfig(asset_class="chiller", n=60, seed=20261203, out_dir=str(out),
                         run_id="c1", negatives=0)
    asyncio.run(Pipeline(cfg, settings=settings).run())
    return out / "c1", settings


def _audit(run: Path, settings: StoreSettings) -> AuditReport:
    raw = RawStore({"telemetry": "chiller", "nameplate": "chiller_assets",
                    "workorders": "workorder"}, settings=settings, asset_class="chiller")
    try:
        return audit_run(run, raw=raw)
    finally:
        raw.close()


def test_every_chiller_family_but_the_catalogue_is_re_derived(
        chiller_run: tuple[Path, StoreSettings]) -> None:
    run, settings = chiller_run
    report = _audit(run, settings)
    assert report.audited == 60
    assert set(report.unsupported) <= {CATALOGUE}
    verdicts = {r.verdict for r in report.scenarios if r.family != CATALOGUE}
    assert verdicts <= {"match", "reading_dependent"}, [
        (r.id, r.family, r.verdict, r.note) for r in report.scenarios
        if r.verdict in ("mismatch", "error")]
    assert len({r.family for r in report.scenarios if r.verdict == "match"}) >= 10


def test_a_planted_wrong_chiller_reference_is_a_mismatch(
        chiller_run: tuple[Path, StoreSettings], tmp_path: Path) -> None:
    run, settings = chiller_run
    copy = tmp_path / "planted"
    planted = plant_wrong_reference(run, copy, "chiller_fmsr_iplv", "iplv_kw_per_ton", 0.01)
    verdict = {r.id: r.verdict for r in _audit(copy, settings).scenarios}
    assert verdict[planted] == "mismatch"


# -- what the anomaly and forecast texts pin ---------------------------------------------------


class _Telemetry(RawStore):
    """Telemetry held in memory: one reading of the window's first day, at 07:00."""

    def __init__(self) -> None:
        pass

    def telemetry(self, asset_id: str) -> list[dict[str, object]]:
        return [{"timestamp": "2025-08-02T07:00:00", "kw_per_ton": 0.6}]


def _case(family: str, text: str, params: dict[str, object]) -> Case:
    return Case(id="x", family=family, text=text, params=params, grounding={}, answer={},
                tolerance={}, rel_tolerance={})


def test_the_anomaly_note_pins_the_spread_and_the_first_scored_hour() -> None:
    # run_tsad takes the MAD over the window and the 4 weeks before, and scores the window
    # from its first reading (hours before it belong to the reference): the note says both.
    from assets.chiller.audit.common import anomaly_dims
    from assets.chiller.families_tsfm import ANOMALY_NOTE
    from eval.audit.core import AuditContext

    ctx = AuditContext(raw=_Telemetry(), failure_modes=[])
    params = {"asset_id": "CH-1", "start": "2025-08-02", "end": "2025-08-09",
              "sensor": "kw_per_ton", "threshold": 3.5}
    question = "Any kW/ton anomalies on CH-1 from 2 August through 8 August 2025? "
    dims = anomaly_dims(ctx, _case("chiller_tsfm_anomalies", question + ANOMALY_NOTE, params))
    assert dims["spread"] == ["reference"]
    assert dims["scored"] == ["from_first_reading"]
    bare = anomaly_dims(ctx, _case("chiller_tsfm_anomalies", question, params))
    assert bare["spread"] == ["reference", "window_only"]
    assert bare["scored"] == ["from_window_start", "from_first_reading"]


def test_the_holt_winters_start_note_pins_the_tools_start() -> None:
    # The note names the start run_tsfm_forecasting uses (generator/tools/timeseries.py:
    # level and trend on the line through the first two days' means); the audit then tries
    # that start alone, and "additive Holt-Winters" without it leaves all three open.
    from assets.chiller.audit.families_tsfm import _starts_from_two_day_line
    from assets.chiller.families_tsfm import HW_START_NOTE, METHOD_TEXT

    assert _starts_from_two_day_line(HW_START_NOTE)
    assert not _starts_from_two_day_line(METHOD_TEXT["holt_winters"])



# -- diagnosis → action: which corrective orders count -----------------------------------------


class _OneUnit(RawStore):
    """One record, the failure-code catalogue and work orders, held in memory."""

    def __init__(self, record: dict[str, object], orders: list[dict[str, object]]) -> None:
        self._record, self._orders = record, orders

    def telemetry(self, asset_id: str) -> list[dict[str, object]]:
        return [self._record]

    def nameplate(self, asset_id: str) -> dict[str, object] | None:
        return None  # the documented design defaults: 1.1 K approaches, 5 K subcooling, 8 K SH

    def work_db(self, dataset: str) -> list[dict[str, object]]:
        if dataset == "failure_codes":
            return [{"fault_type": "condenser_fouling", "code": "CH-CF"},
                    {"fault_type": "evaporator_fouling", "code": "CH-EF"}]
        return self._orders if dataset == "wo_events" else []


def test_diagnosis_to_action_counts_the_orders_of_the_diagnosed_hour_and_none_after() -> None:
    # The record of test_both_approaches_high_with_normal_subcooling_is_fouling_of_both_by_hand
    # (80 % load): condenser and evaporator fouling, codes CH-CF and CH-EF.
    # Orders: CH-CF reported at 14:30 (inside the diagnosed hour 14:00-15:00: counts, "up to
    # the end of that hour"); CH-EF reported the next morning (after the hour: does not count);
    # CH-EF reported 15 days before (outside the 14 days: does not count).
    # → existing [WO-2], still to raise [CH-EF].
    from eval.audit.core import AuditContext
    from eval.audit.run import audit_case

    ts = "2025-07-07T14:00:00"
    record = {"timestamp": ts, "supply_temperature": 6.67, "setpoint_temperature": 6.67,
              "evaporator_refrigerant_temperature": 3.0, "percent_loaded": 80.0,
              "condenser_refrigerant_temperature": 40.0,
              "condenser_water_return_temperature": 35.0,
              "condenser_liquid_temperature": 37.0, "discharge_temperature": 49.0}

    def order(wo: str, when: str, code: str) -> dict[str, object]:
        return {"wo_id": wo, "equipment_id": "CH-1", "reported_date": when,
                "primary_code": code, "wo_type": "corrective"}

    orders = [order("WO-1", "2025-06-22T14:00:00", "CH-EF"),
              order("WO-2", "2025-07-07T14:30:00", "CH-CF"),
              order("WO-3", "2025-07-08T09:00:00", "CH-EF")]
    ctx = AuditContext(raw=_OneUnit(record, orders), failure_modes=[])
    answer = {"findings": ["condenser_fouling", "evaporator_fouling"],
              "failure_codes": ["CH-CF", "CH-EF"], "existing_work_orders": ["WO-2"],
              "codes_to_raise": ["CH-EF"], "decision": "raise corrective work orders for CH-EF"}
    text = (f"Diagnose chiller CH-1 at {ts} and decide on the corrective work order. If the "
            "readings show a fault and no corrective work order with its failure code was "
            "reported from 14 days before that hour up to the end of that hour, say which "
            "failure code to raise.")

    def case(words: str) -> Case:
        return Case(id="x", family="chiller_ma_diagnosis_to_action", text=words,
                    params={"asset_id": "CH-1", "timestamp": ts}, grounding={},
                    answer=answer, tolerance={}, rel_tolerance={})

    got = audit_case(ctx, case(text))
    assert got.verdict == "match", [d.differences for d in got.disagreeing]
    # A text that leaves the end open ("from 14 days before that hour on") may count WO-3.
    open_end = text.replace(" up to the end of that hour", " on")
    assert audit_case(ctx, case(open_end)).verdict == "reading_dependent"


# -- alerts followed by corrective work: the lead time to the first order ----------------------


class _WorkDb(RawStore):
    """Work-order databases held in memory, by dataset."""

    def __init__(self, datasets: dict[str, list[dict[str, object]]]) -> None:
        self._datasets = datasets

    def work_db(self, dataset: str) -> list[dict[str, object]]:
        return self._datasets.get(dataset, [])


def test_alert_to_failure_lead_time_runs_to_the_first_order_after_the_alert() -> None:
    # Window [2025-07-01, 2025-07-08), horizon 2 days. Alerts: A1 07-02 10:00, A2 07-05 08:00.
    # Corrective orders: W1 07-02 12:00 (A1 + 2 h), W2 07-03 16:00 (A1 + 30 h), W3 07-09 08:00
    # (A2 + 96 h: beyond 2 days). Preventive P1 07-02 11:00 (never counts).
    # First order after each alert: A1 -> W1 (2 h); A2 -> none. followed 1, mean lead 2 h,
    # orders [W1].
    # Every order within the horizon: A1 -> W1 (2 h) and W2 (30 h): mean (2 + 30) / 2 = 16 h,
    # orders [W1, W2].
    from assets.chiller.families_wo import FIRST_ORDER_NOTE
    from eval.audit.core import AuditContext
    from eval.audit.run import audit_case

    def alert(n: str, when: str) -> dict[str, object]:
        return {"alert_id": n, "equipment_id": "CH-1", "start_time": when, "rule_id": "R1"}

    def order(wo: str, when: str, kind: str = "corrective") -> dict[str, object]:
        return {"wo_id": wo, "equipment_id": "CH-1", "reported_date": when,
                "primary_code": "CH-CF", "wo_type": kind}

    raw = _WorkDb({
        "alert_events": [alert("A1", "2025-07-02T10:00:00"), alert("A2", "2025-07-05T08:00:00")],
        "wo_events": [order("W1", "2025-07-02T12:00:00"), order("W2", "2025-07-03T16:00:00"),
                      order("W3", "2025-07-09T08:00:00"),
                      order("P1", "2025-07-02T11:00:00", "preventive")],
    })
    ctx = AuditContext(raw=raw, failure_modes=[])
    answer = {"alerts": 2, "followed": 1, "mean_lead_time_hours": 2.0, "work_orders": ["W1"]}
    question = ("How many alerts did chiller CH-1 raise from 2025-07-01 to 2025-07-08 (end "
                "excluded), and how many were followed by a corrective work order within 2 "
                "days? What was the mean lead time?")

    def case(text: str) -> Case:
        return Case(id="x", family="chiller_wo_alert_to_failure", text=text,
                    params={"asset_id": "CH-1", "start": "2025-07-01", "end": "2025-07-08",
                            "within_days": 2},
                    grounding={}, answer=answer, tolerance={"mean_lead_time_hours": 0.1},
                    rel_tolerance={})

    got = audit_case(ctx, case(question + " " + FIRST_ORDER_NOTE))
    assert got.verdict == "match", [d.differences for d in got.disagreeing]
    # Unstated, every order within 2 days may count as a lead time: 16 h and [W1, W2].
    bare = audit_case(ctx, case(question))
    assert bare.verdict == "reading_dependent"
    assert {"alerts": 2, "followed": 1, "mean_lead_time_hours": 16.0,
            "work_orders": ["W1", "W2"]} in [d.answer for d in bare.disagreeing]
