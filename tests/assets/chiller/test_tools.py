"""Golden tests of the chiller diagnostic tools, worked by hand (arithmetic in the comments).

Every call goes through argument validation (``validate_args``) and the tool function. The
store is a stub that records whether it was read: calls with every design value explicit
must not read it; calls without them take the nameplate (or the defaults).
"""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any

import jsonschema
import pytest

import assets.chiller.tools  # noqa: F401  (registers the tools)
from generator.assetdef import load_asset_class
from generator.errors import StoreUnavailable, UserError
from generator.tools.registry import TOOLS, ToolArgumentError, ToolContext, validate_args

NAMES = (
    "compute_approach_temperatures",
    "assess_chiller_efficiency",
    "compute_iplv",
    "diagnose_chiller_fault",
)


class StubStore:
    """Answers nameplate_doc from a dict and counts the reads."""

    def __init__(self, plates: dict[str, dict[str, Any]] | None = None) -> None:
        self.plates = plates or {}
        self.reads = 0

    async def nameplate_doc(self, asset_id: str) -> dict[str, Any] | None:
        self.reads += 1
        return self.plates.get(asset_id)


class DownStore:
    async def nameplate_doc(self, asset_id: str) -> dict[str, Any] | None:
        raise StoreUnavailable("store unreachable at http://127.0.0.1:9")


def run(name: str, store: Any = None, **raw: Any) -> Any:
    spec = TOOLS.get(name)
    ctx = ToolContext(load_asset_class("chiller"), store=store or StubStore())
    out = spec.fn(validate_args(spec, raw), ctx)
    if inspect.isawaitable(out):
        out = asyncio.run(out)
    assert isinstance(out, spec.result)
    payload = json.loads(json.dumps(out.model_dump(mode="json"), allow_nan=False))
    jsonschema.validate(payload, spec.result.model_json_schema())
    return out


@pytest.mark.parametrize("name", NAMES)
def test_tools_are_registered_for_the_chiller_with_a_source(name: str) -> None:
    spec = TOOLS.get(name)
    assert spec.domain == "fmsr"
    assert spec.asset_classes == ("chiller",)
    assert spec.standard and spec.description
    schema = json.loads(json.dumps(spec.schema()))
    assert schema["arguments"]["additionalProperties"] is False
    for prop in schema["arguments"]["properties"].values():
        assert prop.get("description")


# --- compute_approach_temperatures -----------------------------------------------------

APPROACH = {
    "asset_name": "CH-MAIN-01", "supply_temperature": 6.8,
    "evaporator_refrigerant_temperature": 4.9, "condenser_water_return_temperature": 35.2,
    "condenser_refrigerant_temperature": 37.9, "percent_loaded": 80.0,
    "return_temperature": 11.3, "condenser_water_supply_temperature": 29.6,
    "condenser_liquid_temperature": 33.1,
    "design_evaporator_approach_k": 1.1, "design_condenser_approach_k": 1.1,
}


def test_approaches_hand_case() -> None:
    # Evaporator 6.8 − 4.9 = 1.9 K; expected 1.1 × 80/100 = 0.88 K; rise 1.02 < 1.6667 → normal
    # Condenser 37.9 − 35.2 = 2.7 K; expected 0.88; rise 1.82 ≥ 1.6667 → high
    # Ranges: 11.3 − 6.8 = 4.5 K, 35.2 − 29.6 = 5.6 K; subcooling 37.9 − 33.1 = 4.8 K
    store = StubStore()
    r = run("compute_approach_temperatures", store, **APPROACH)
    assert r.evaporator_approach_k == pytest.approx(1.9)
    assert r.condenser_approach_k == pytest.approx(2.7)
    assert r.expected_evaporator_approach_k == pytest.approx(0.88)
    assert r.evaporator_approach_rise_k == pytest.approx(1.02)
    assert r.condenser_approach_rise_k == pytest.approx(1.82)
    assert r.chilled_water_range_k == pytest.approx(4.5)
    assert r.condenser_water_range_k == pytest.approx(5.6)
    assert r.subcooling_k == pytest.approx(4.8)
    assert r.threshold_k == pytest.approx(5 / 3, abs=1e-9)
    assert (r.evaporator_status, r.condenser_status) == ("normal", "high")
    assert r.status == "condenser_approach_high"
    assert r.design_source == "argument" and store.reads == 0


def test_approaches_take_the_nameplate_and_report_not_running() -> None:
    # Nameplate design approaches 0.5 / 2.0 K at 80 %: expected 0.4 and 1.6 K.
    # Evaporator rise 1.9 − 0.4 = 1.5 < 1.6667 → normal; condenser 2.7 − 1.6 = 1.1 → normal.
    plate = {"design_evaporator_approach_k": 0.5, "design_condenser_approach_k": 2.0}
    store = StubStore({"CH-MAIN-01": plate})
    raw = {k: v for k, v in APPROACH.items() if not k.startswith("design_")}
    r = run("compute_approach_temperatures", store, **raw)
    assert r.expected_evaporator_approach_k == pytest.approx(0.4)
    assert r.expected_condenser_approach_k == pytest.approx(1.6)
    assert r.status == "normal" and r.design_source == "nameplate" and store.reads == 1
    # Below 10 % load nothing is assessed, whatever the approaches.
    off = run("compute_approach_temperatures", store, **{**raw, "percent_loaded": 5.0})
    assert off.status == "not_running" and off.condenser_status == "normal"


def test_approaches_without_nameplate_use_the_defaults_and_a_down_store_is_one_line() -> None:
    raw = {k: v for k, v in APPROACH.items() if not k.startswith("design_")}
    r = run("compute_approach_temperatures", StubStore(), **raw)
    assert r.design_source == "default"
    assert r.expected_condenser_approach_k == pytest.approx(0.88)  # default 1.1 × 0.8
    # An outage stays an outage (StoreUnavailable), in one line naming the missing values.
    with pytest.raises(StoreUnavailable, match="design_evaporator_approach_k, design_condenser"):
        run("compute_approach_temperatures", DownStore(), **raw)


def test_strict_arguments() -> None:
    with pytest.raises(ToolArgumentError):
        run("compute_approach_temperatures", **{**APPROACH, "percent_loaded": True})
    with pytest.raises(ToolArgumentError):
        run("compute_approach_temperatures", **{**APPROACH, "supply_temperature": "6.8"})
    with pytest.raises(ToolArgumentError):
        run("compute_approach_temperatures", **{**APPROACH, "tonnage": 5.0})


# --- assess_chiller_efficiency ---------------------------------------------------------


def test_efficiency_degraded_hand_case() -> None:
    # Design: 500 tons, 3.516852 / 5.5 = 0.6394276 kW/ton. At 7 °C / 25 °C and 250 tons the
    # DOE-2 model gives 0.574945 kW/ton and PLR 0.479891 (tests/assets/chiller/
    # test_performance.py::test_off_design_point_by_hand, worked by hand there).
    # Measured 160 kW / 250 tons = 0.64 kW/ton; COP 3.516852 / 0.64 = 5.495081
    # Degradation (0.64 / 0.574945 − 1) × 100 = 11.3150 % → degraded (5 < 11.3 ≤ 15)
    store = StubStore()
    r = run(
        "assess_chiller_efficiency", store, asset_name="CH-MAIN-01", power_input=160.0,
        tonnage=250.0, supply_temperature=7.0, condenser_water_supply_temperature=25.0,
        design_capacity_tons=500.0, design_kw_per_ton=3.516852 / 5.5,
    )
    assert r.measured_kw_per_ton == pytest.approx(0.64)
    assert r.measured_cop == pytest.approx(5.495081, abs=1e-6)
    assert r.load_kw == pytest.approx(879.213)
    assert r.part_load_ratio == pytest.approx(0.479891, abs=1e-6)
    assert r.design_kw_per_ton_at_conditions == pytest.approx(0.574945, abs=1e-5)
    assert r.degradation_pct == pytest.approx(11.3150, abs=3e-3)
    assert r.status == "degraded" and not r.temperatures_clamped
    assert r.design_source == "argument" and store.reads == 0


def test_efficiency_scales_with_the_design_kw_per_ton_from_the_nameplate() -> None:
    # Nameplate 0.6 kW/ton (COP 5.86142): power ∝ 1 / COP_ref at the same PLR, so the design
    # kW/ton at 7 / 25 °C is 0.574945 × 0.6 / 0.6394276 = 0.574945 × 0.9383396 = 0.539494.
    # Measured 125 kW / 250 tons = 0.5: (0.5 / 0.539494 − 1) × 100 = −7.3206 % → better.
    store = StubStore({"CH-X": {"design_capacity_tons": 500.0, "design_kw_per_ton": 0.6}})
    r = run(
        "assess_chiller_efficiency", store, asset_name="CH-X", power_input=125.0,
        tonnage=250.0, supply_temperature=7.0, condenser_water_supply_temperature=25.0,
    )
    assert r.design_kw_per_ton_at_conditions == pytest.approx(0.539494, abs=1e-5)
    assert r.degradation_pct == pytest.approx(-7.3206, abs=3e-3)
    assert r.status == "better_than_design" and r.design_source == "nameplate"


def test_efficiency_above_capacity_is_a_user_error() -> None:
    # 600 tons from a 500-ton unit at 7 / 25 °C (capacity 500 × 1.0419 = 520.95 tons).
    with pytest.raises(UserError, match="exceeds the design capacity"):
        run(
            "assess_chiller_efficiency", asset_name="CH-X", power_input=400.0, tonnage=600.0,
            supply_temperature=7.0, condenser_water_supply_temperature=25.0,
            design_capacity_tons=500.0, design_kw_per_ton=0.6,
        )


# --- compute_iplv ----------------------------------------------------------------------


def test_iplv_from_measured_kw_per_ton() -> None:
    # 0.01/0.60 + 0.42/0.50 + 0.45/0.40 + 0.12/0.45 = 0.0166667 + 0.84 + 1.125 + 0.2666667
    #   = 2.2483333 → IPLV = 0.444774 kW/ton; COP form 3.516852 × 2.2483333 = 7.907056
    r = run("compute_iplv", asset_name="CH-MAIN-01", kw_per_ton=[0.60, 0.50, 0.40, 0.45])
    assert r.basis == "measured_points" and r.status == "computed"
    assert r.iplv_kw_per_ton == pytest.approx(0.444774, abs=1e-6)
    assert r.iplv_cop == pytest.approx(7.907056, abs=1e-5)
    assert r.point_cop[0] == pytest.approx(5.86142, abs=1e-5)  # 3.516852 / 0.6
    assert r.weights == [0.01, 0.42, 0.45, 0.12]
    assert r.rating_loads_pct == [100.0, 75.0, 50.0, 25.0]
    assert r.entering_condenser_c == pytest.approx([29.4444, 23.8889, 18.3333, 18.3333],
                                                   abs=1e-4)


def test_iplv_from_cops() -> None:
    # 0.01·5 + 0.42·6 + 0.45·7 + 0.12·6.5 = 0.05 + 2.52 + 3.15 + 0.78 = 6.5;
    # kW/ton form 3.516852 / 6.5 = 0.541054
    r = run("compute_iplv", asset_name="CH-MAIN-01", cop=[5.0, 6.0, 7.0, 6.5])
    assert r.iplv_cop == pytest.approx(6.5)
    assert r.iplv_kw_per_ton == pytest.approx(0.541054, abs=1e-6)


def test_iplv_of_the_design_curve() -> None:
    # Default design (COP 5.5): IPLV 0.575914 kW/ton, points 0.639568 / 0.544486 / 0.567758 /
    # 0.765439 (tests/assets/chiller/test_diagnostics.py::test_model_iplv_rating_points, by
    # hand). A nameplate of 0.6 kW/ton scales every point by 0.6 / 0.6394276 = 0.9383396:
    # IPLV 0.575914 × 0.9383396 = 0.540403.
    r = run("compute_iplv", StubStore(), asset_name="CH-NONE")
    assert r.basis == "design_curve" and r.design_source == "default"
    assert r.iplv_kw_per_ton == pytest.approx(0.575914, abs=3e-6)
    assert r.clamped_points == [75, 50, 25]
    plate = StubStore({"CH-A": {"design_capacity_tons": 750.0, "design_kw_per_ton": 0.6}})
    scaled = run("compute_iplv", plate, asset_name="CH-A")
    assert scaled.design_source == "nameplate"
    assert scaled.iplv_kw_per_ton == pytest.approx(0.540403, abs=5e-6)
    assert scaled.point_kw_per_ton[1] == pytest.approx(0.544486 * 0.9383396, abs=5e-6)


def test_iplv_bad_input() -> None:
    with pytest.raises(UserError, match="both kw_per_ton and cop"):
        run("compute_iplv", asset_name="X", kw_per_ton=[0.6] * 4, cop=[5.0] * 4)
    with pytest.raises(ToolArgumentError):
        run("compute_iplv", asset_name="X", kw_per_ton=[0.6, 0.5, 0.4])
    with pytest.raises(ToolArgumentError):
        run("compute_iplv", asset_name="X", kw_per_ton=[0.6, 0.5, 0.0, 0.4])


# --- diagnose_chiller_fault ------------------------------------------------------------

DESIGN = {
    "design_evaporator_approach_k": 1.1, "design_condenser_approach_k": 1.1,
    "design_subcooling_k": 5.0, "design_discharge_superheat_k": 8.0,
}


def diagnose(**raw: Any) -> Any:
    return run("diagnose_chiller_fault", asset_name="CH-MAIN-01", **DESIGN, **raw)


def test_purge_problem_hand_case() -> None:
    # 90 %: expected approaches 1.1 × 0.9 = 0.99 K.
    # Evaporator 6.70 − 5.60 = 1.10 → rise 0.11. Condenser 37.50 − 34.00 = 3.50 → rise 2.51
    # ≥ 1.667. Subcooling 37.50 − 29.00 = 8.50, shift +3.50 ≥ 2.778 → purge problem (not
    # fouling). Superheat 46.0 − 37.5 = 8.5 → rise 0.5 < 10. Offset 6.70 − 6.67 = 0.03 < 1.
    r = diagnose(
        supply_temperature=6.70, evaporator_refrigerant_temperature=5.60,
        condenser_water_return_temperature=34.00, condenser_refrigerant_temperature=37.50,
        percent_loaded=90.0, setpoint_temperature=6.67, condenser_liquid_temperature=29.0,
        discharge_temperature=46.0,
    )
    assert r.findings == ["purge_problem"] and r.failure_codes == ["CH-PP"]
    assert r.status == "fault"
    assert r.condenser_approach_rise_k == pytest.approx(2.51)
    assert r.subcooling_shift_k == pytest.approx(3.5)
    assert r.superheat_rise_k == pytest.approx(0.5)
    assert r.supply_offset_k == pytest.approx(0.03)


def test_sensor_drift_hand_case_and_full_load_ambiguity() -> None:
    # 60 %: supply 8.20 vs setpoint 6.67 → offset 1.53 ≥ 1.0 below 95 % → sensor drift. The
    # evaporator approach is taken from the setpoint: 6.67 − 5.50 = 1.17, expected 0.66, rise
    # 0.51 (from the suspect reading it would be 2.70, rise 2.04: a false fouling finding).
    # Condenser 32.80 − 32.00 = 0.80 vs 0.66; subcooling 32.8 − 27.8 = 5.0; superheat 8.0.
    raw = {
        "supply_temperature": 8.20, "evaporator_refrigerant_temperature": 5.50,
        "condenser_water_return_temperature": 32.00, "condenser_refrigerant_temperature": 32.80,
        "setpoint_temperature": 6.67, "condenser_liquid_temperature": 27.8,
        "discharge_temperature": 40.8,
    }
    r = diagnose(percent_loaded=60.0, **raw)
    assert r.findings == ["sensor_drift"] and r.failure_codes == ["CH-SD"]
    assert r.evaporator_approach_k == pytest.approx(1.17)
    assert r.evaporator_approach_rise_k == pytest.approx(0.51)
    # At 97 % the offset may be a capacity limit: no drift finding, evaporator not assessed.
    full = diagnose(percent_loaded=97.0, **raw)
    assert full.findings == ["normal"] and not full.evaporator_assessed
    assert full.status == "normal"


def test_low_charge_overheating_and_not_running() -> None:
    # 80 %: evaporator 6.7 − 2.9 = 3.8, expected 0.88, rise 2.92 ≥ 1.667; subcooling
    # 36.0 − 34.0 = 2.0, shift −3.0 ≤ −2.778 → low charge. Condenser 36.0 − 35.0 = 1.0 vs
    # 0.88. Discharge 56.0: superheat 20.0, rise 12.0 ≥ 10 → also overheating.
    r = diagnose(
        supply_temperature=6.7, evaporator_refrigerant_temperature=2.9,
        condenser_water_return_temperature=35.0, condenser_refrigerant_temperature=36.0,
        percent_loaded=80.0, condenser_liquid_temperature=34.0, discharge_temperature=56.0,
    )
    assert r.findings == ["low_refrigerant_charge", "compressor_overheating"]
    assert r.failure_codes == ["CH-LC", "CH-OH"]
    assert r.supply_offset_k is None  # no setpoint given: the drift rule is skipped
    off = diagnose(
        supply_temperature=6.7, evaporator_refrigerant_temperature=2.9,
        condenser_water_return_temperature=35.0, condenser_refrigerant_temperature=36.0,
        percent_loaded=5.0,
    )
    assert off.findings == ["not_running"] and off.status == "not_running"
    assert off.failure_codes == []
