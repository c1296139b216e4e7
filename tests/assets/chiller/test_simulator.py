"""Property and determinism tests of assets.chiller.simulator."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assets.chiller.diagnostics import (
    DiagnosisInputs,
    condenser_approach,
    diagnose,
    evaporator_approach,
    heat_balance_pct,
    water_heat_kw,
)
from assets.chiller.performance import KW_PER_TON
from assets.chiller.simulator import (
    FAULT_MODES,
    UPSTREAM_SENSOR_NAMES,
    ChillerReading,
    ChillerUnit,
    FaultMode,
    FaultSpec,
    FleetSpec,
    bms_kw_per_ton,
    bms_tonnage,
    simulate_fleet,
    simulate_hour,
    staged_on,
    technician_finding,
)

WHEN = datetime(2025, 7, 15, 14)  # a Tuesday afternoon: occupied
NO_NOISE = (0.0, 0.0, 0.0)


def _unit(mode: FaultMode | None = None, severity: float = 1.0) -> ChillerUnit:
    fault = None if mode is None else FaultSpec(mode=mode, onset_hour=0, severity=severity)
    return ChillerUnit(asset_id="U1", site_name="S", capacity_kw=500 * KW_PER_TON, fault=fault)


def _hour(unit: ChillerUnit, t_out: float, hour: int = 400) -> ChillerReading:
    return simulate_hour(unit, hour, WHEN, t_out, 5.0, 0.0, NO_NOISE)


@settings(max_examples=40, deadline=None)
@given(t_out=st.floats(22.0, 38.0), severity=st.floats(0.2, 1.0), hour=st.integers(1, 2000))
def test_fouled_condenser_has_a_higher_condenser_approach(
    t_out: float, severity: float, hour: int
) -> None:
    clean = _hour(_unit(), t_out, hour)
    fouled = _hour(_unit("condenser_fouling", severity), t_out, hour)
    assert clean.run_status == fouled.run_status == 1

    def approach(r: ChillerReading) -> float:
        return condenser_approach(
            r.condenser_refrigerant_temperature, r.condenser_water_return_temperature
        )

    assert approach(fouled) > approach(clean)
    assert fouled.kw_per_ton is not None and clean.kw_per_ton is not None
    assert fouled.kw_per_ton > clean.kw_per_ton


@settings(max_examples=30, deadline=None)
@given(t_out=st.floats(22.0, 38.0), severity=st.floats(0.2, 1.0))
def test_evaporator_faults_lower_the_saturation_temperature(t_out: float, severity: float) -> None:
    clean = _hour(_unit(), t_out)
    modes: tuple[FaultMode, ...] = ("evaporator_fouling", "low_refrigerant_charge")
    for mode in modes:
        bad = _hour(_unit(mode, severity), t_out)
        assert bad.evaporator_refrigerant_temperature < clean.evaporator_refrigerant_temperature
        assert evaporator_approach(
            bad.supply_temperature, bad.evaporator_refrigerant_temperature
        ) > evaporator_approach(clean.supply_temperature, clean.evaporator_refrigerant_temperature)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("condenser_fouling", "condenser_fouling"),
        ("purge_problem", "purge_problem"),
        ("evaporator_fouling", "evaporator_fouling"),
        ("low_refrigerant_charge", "low_refrigerant_charge"),
        ("compressor_overheating", "compressor_overheating"),
    ],
)
def test_full_load_signatures_read_as_their_fault(mode: FaultMode, expected: str) -> None:
    # Hot afternoon (full load), fault fully ramped (hour 400 > 336): the diagnosis rules
    # applied to the readings against the clean unit's readings name the injected fault.
    clean, bad = _hour(_unit(), 34.0), _hour(_unit(mode), 34.0)

    def facts(r: ChillerReading) -> tuple[float, float, float, float]:
        return (
            evaporator_approach(r.supply_temperature, r.evaporator_refrigerant_temperature),
            condenser_approach(
                r.condenser_refrigerant_temperature, r.condenser_water_return_temperature
            ),
            r.condenser_refrigerant_temperature - r.condenser_liquid_temperature,
            r.discharge_temperature - r.condenser_refrigerant_temperature,
        )

    ce, cc, cs, csh = facts(clean)
    be, bc, bs, bsh = facts(bad)
    result = diagnose(
        DiagnosisInputs(
            evaporator_approach_k=be, condenser_approach_k=bc,
            design_evaporator_approach_k=ce, design_condenser_approach_k=cc,
            subcooling_k=bs, design_subcooling_k=cs,
            discharge_superheat_k=bsh, design_discharge_superheat_k=csh,
        )
    )
    assert result.findings == [expected]


def test_sensor_drift_corrupts_tonnage_not_power() -> None:
    # Drift after 400 h: min(3, 0.1 × 400 / 24) × 1 = 1.6667 K on the supply reading.
    clean, drifted = _hour(_unit(), 30.0), _hour(_unit("sensor_drift"), 30.0)
    assert drifted.supply_temperature - clean.supply_temperature == pytest.approx(1.666667)
    assert drifted.power_input == pytest.approx(clean.power_input)
    assert drifted.tonnage < clean.tonnage


def test_clean_unit_closes_its_heat_balance() -> None:
    # Without noise, ρc_p·V̇_cw·(LCW − ECW) = delivered + P exactly (first law, as simulated).
    r = _hour(_unit(), 30.0)
    q_evap = r.tonnage * KW_PER_TON
    q_cond = water_heat_kw(
        r.condenser_water_flow,
        r.condenser_water_return_temperature - r.condenser_water_supply_temperature,
    )
    assert heat_balance_pct(q_evap, r.power_input, q_cond) == pytest.approx(0.0, abs=1e-9)


def test_fleet_is_deterministic_from_its_seed() -> None:
    spec = FleetSpec(seed=11, sites=1, units_per_site=3, days=3, start=date(2025, 7, 1))
    first, second = simulate_fleet(spec), simulate_fleet(spec)
    assert first == second
    other = simulate_fleet(spec.model_copy(update={"seed": 12}))
    assert other.docs["telemetry"] != first.docs["telemetry"]
    assert len(first.docs["telemetry"]) == 3 * 3 * 24


def test_records_carry_the_upstream_vocabulary() -> None:
    # Every mapped field exists on the record, and the upstream names are AssetOpsBench's.
    fields = set(ChillerReading.model_fields)
    assert set(UPSTREAM_SENSOR_NAMES) <= fields
    assert {"Tonnage", "Power Input", "Chiller % Loaded", "Supply Temperature",
            "Return Temperature", "Condenser Water Flow", "Chiller Efficiency",
            "Liquid Refrigerant Evaporator Temperature"} <= set(UPSTREAM_SENSOR_NAMES.values())


def test_eight_units_carry_every_fault_mode_once() -> None:
    # The cycle is 6 modes + 2 healthy: 8 units → each mode exactly once, 2 healthy units.
    fleet = simulate_fleet(FleetSpec(seed=3, sites=2, units_per_site=4, days=1))
    modes = sorted(t["fault_mode"] for t in fleet.docs["truth"] if t["fault_mode"] != "none")
    assert modes == sorted(FAULT_MODES)
    assert sum(u.fault is None for u in fleet.units) == 2


# --- fleet documents -------------------------------------------------------------------

FLEET_SPEC = FleetSpec(seed=42, sites=2, units_per_site=4, days=40)


@pytest.fixture(scope="module")
def fleet() -> Any:
    return simulate_fleet(FLEET_SPEC)


def test_every_document_is_tagged_and_uniquely_identified(fleet: Any) -> None:
    docs = fleet.docs
    assert set(docs) == {"telemetry", "nameplate", "workorders", "truth"}
    for logical, batch in docs.items():
        ids = [d["_id"] for d in batch]
        assert len(ids) == len(set(ids)), logical
        for d in batch:
            assert d["asset_class"] == "chiller", (logical, d["_id"])
            if logical == "nameplate":
                assert d["_id"] == d["asset_id"]  # the store reads a nameplate by id
            else:
                assert d["_id"].startswith("chiller:"), (logical, d["_id"])
    # 2 sites × 4 units × 40 days × 24 h
    assert len(docs["telemetry"]) == 8 * 40 * 24
    reading_fields = set(ChillerReading.model_fields)
    assert all(set(d) == reading_fields | {"_id", "asset_class"} for d in docs["telemetry"])
    assert sorted({d["site_name"] for d in docs["nameplate"]}) == ["MAIN", "PLANT2"]
    assert docs["nameplate"][0]["asset_id"] == "CH-MAIN-01"


def test_work_orders_carry_the_upstream_fields(fleet: Any) -> None:
    wos = [d for d in fleet.docs["workorders"] if d["dataset"] == "wo_events"]
    assert {d["dataset"] for d in fleet.docs["workorders"]} == {
        "wo_events", "events", "alert_events", "failure_codes"
    }
    for w in wos:
        assert w["preventive"] == ("TRUE" if w["wo_type"] == "preventive" else "FALSE")
        assert (w["primary_code"] == "CH-PM") == (w["wo_type"] == "preventive")
        assert w["collection"] == "chiller"
        datetime.fromisoformat(w["reported_date"])
        assert w["actual_finish"] > w["reported_date"]
    # Monthly inspections: days offset, offset + 30 < 40 → two per unit at most, one at least.
    per_unit = {u.asset_id: 0 for u in fleet.units}
    for w in wos:
        per_unit[w["equipment_id"]] += w["wo_type"] == "preventive"
    assert set(per_unit.values()) <= {1, 2}


def test_alerts_lead_to_corrective_work_and_healthy_units_stay_quiet(fleet: Any) -> None:
    docs = fleet.docs["workorders"]
    codes = {"condenser_fouling": "CH-CF", "evaporator_fouling": "CH-EF",
             "low_refrigerant_charge": "CH-LC", "compressor_overheating": "CH-OH",
             "sensor_drift": "CH-SD", "purge_problem": "CH-PP"}
    for t in fleet.docs["truth"]:
        aid = t["asset_id"]
        alerts = sorted(
            (d for d in docs if d["dataset"] == "alert_events" and d["equipment_id"] == aid),
            key=lambda d: d["start_time"],
        )
        corrective = [d for d in docs if d["dataset"] == "wo_events"
                      and d["equipment_id"] == aid and d["wo_type"] == "corrective"]
        if t["fault_mode"] == "none":
            assert alerts == [] and corrective == [] and t["first_alert"] is None
            continue
        assert alerts, aid  # every injected fault is alerted within the 40 days
        assert alerts[0]["start_time"] == t["first_alert"] >= t["onset"]
        # One corrective order per code the technician records, 24 h after the first alert
        # leading to it: the injected mode when the alert's rule covers it (a high approach
        # read as evaporator fouling on a low-charge unit is coded CH-LC), else the finding.
        firsts: dict[str, str] = {}
        for a in alerts:
            found = technician_finding(a["diagnosis"], t["fault_mode"])
            firsts.setdefault(codes[found], a["start_time"])
        assert sorted(w["primary_code"] for w in corrective) == sorted(firsts)
        for w in corrective:
            alerted = datetime.fromisoformat(firsts[w["primary_code"]])
            assert datetime.fromisoformat(w["reported_date"]) - alerted == timedelta(hours=24)
        # The first corrective order carries the injected mode's code.
        first = min(corrective, key=lambda w: w["reported_date"])
        assert first["primary_code"] == t["failure_code"], (aid, t["fault_mode"], firsts)


def _rise(doc: dict[str, Any], which: str) -> float:
    # approach − design approach × load fraction (design 1.1 K, the unit's nameplate value)
    if which == "condenser":
        approach = doc["condenser_refrigerant_temperature"] - doc[
            "condenser_water_return_temperature"]
    else:
        approach = doc["supply_temperature"] - doc["evaporator_refrigerant_temperature"]
    return float(approach - 1.1 * doc["percent_loaded"] / 100.0)


@pytest.mark.parametrize(
    ("mode", "which"),
    [("condenser_fouling", "condenser"), ("evaporator_fouling", "evaporator"),
     ("purge_problem", "condenser"), ("low_refrigerant_charge", "evaporator")],
)
def test_faults_raise_their_approach_in_the_stored_telemetry(
    fleet: Any, mode: str, which: str
) -> None:
    t = next(t for t in fleet.docs["truth"] if t["fault_mode"] == mode)
    rows = [d for d in fleet.docs["telemetry"]
            if d["asset_id"] == t["asset_id"] and d["run_status"] == 1
            and d["percent_loaded"] >= 70]
    before = [_rise(d, which) for d in rows if d["timestamp"] < t["onset"]]
    onset = datetime.fromisoformat(t["onset"])
    ramped = [_rise(d, which) for d in rows
              if datetime.fromisoformat(d["timestamp"]) >= onset + timedelta(hours=336)]
    assert before and ramped
    # Clean: the rise is noise around 0 (σ 0.05 K per temperature); ramped: ≥ 3 K × 0.7 × 0.7
    # (smallest severity 0.7 and load fraction 0.7 of the 4 K or 3 K signatures) ≈ 1.5 K.
    assert abs(sum(before) / len(before)) < 0.3
    assert sum(ramped) / len(ramped) > sum(before) / len(before) + 1.4


def test_sensor_drift_shows_as_a_supply_offset(fleet: Any) -> None:
    t = next(t for t in fleet.docs["truth"] if t["fault_mode"] == "sensor_drift")
    rows = [d for d in fleet.docs["telemetry"]
            if d["asset_id"] == t["asset_id"] and d["run_status"] == 1
            and d["percent_loaded"] < 95]
    offset = [(d["timestamp"], d["supply_temperature"] - d["setpoint_temperature"]) for d in rows]
    before = [o for ts, o in offset if ts < t["onset"]]
    # 20 days after onset: min(3, 0.1 × 20) × severity ≥ 2 × 0.7 = 1.4 K
    late_start = datetime.fromisoformat(t["onset"]) + timedelta(days=20)
    late = [o for ts, o in offset if datetime.fromisoformat(ts) >= late_start]
    assert max(abs(o) for o in before) < 0.3
    assert late and min(late) > 1.2


def test_nameplate_design_values_by_hand(fleet: Any) -> None:
    unit = fleet.units[0]
    plate = fleet.docs["nameplate"][0]
    tons = unit.capacity_kw / KW_PER_TON
    # kW/ton = 3.516852 / COP; chilled-water flow = Q_ref / (4.186 × 5.56)
    assert plate["design_kw_per_ton"] == pytest.approx(3.516852 / unit.design_cop, abs=1e-4)
    assert plate["design_capacity_tons"] == pytest.approx(tons, abs=0.05)
    assert plate["design_chilled_water_flow_l_s"] == pytest.approx(
        tons * 3.516852 / (4.186 * 5.56), abs=0.05
    )
    # Condenser flow carries Q_ref (1 + 1/COP) over the same range.
    assert plate["design_condenser_water_flow_l_s"] == pytest.approx(
        tons * 3.516852 * (1 + 1 / unit.design_cop) / (4.186 * 5.56), abs=0.05
    )


# --- staging, in-range BMS points, IPLV rating conditions (issue 29, parts 2 and 6) --------


def _staged(stage: int, when: datetime, plr: float, was_on: bool) -> bool:
    unit = ChillerUnit(asset_id="U1", site_name="S", capacity_kw=500 * KW_PER_TON, stage=stage)
    return staged_on(unit, when, plr * unit.capacity_kw, was_on)


def test_staging_follows_load_with_hysteresis_and_the_schedule() -> None:
    tuesday_2pm, tuesday_3am, saturday_2pm = WHEN, WHEN.replace(hour=3), datetime(2025, 7, 19, 14)
    # Lead: on from PLR_min 0.1 (DOE-2 centrifugal), whatever the hour.
    assert _staged(0, tuesday_3am, 0.10, False) and not _staged(0, tuesday_3am, 0.09, True)
    # First lag: stages on at 0.45, stays on down to 0.30 (hysteresis), day or night.
    assert not _staged(1, tuesday_3am, 0.40, False)
    assert _staged(1, tuesday_3am, 0.40, True)
    assert _staged(1, tuesday_3am, 0.45, False)
    assert not _staged(1, tuesday_3am, 0.29, True)
    # Second lag onwards: the same thresholds inside weekdays 06-20 h, off outside them.
    assert _staged(2, tuesday_2pm, 0.45, False)
    assert not _staged(2, tuesday_3am, 1.0, True)
    assert not _staged(3, saturday_2pm, 1.0, True)


def test_staged_off_units_log_an_idle_record() -> None:
    r = simulate_hour(_unit(), 400, WHEN, 30.0, 5.0, 0.0, NO_NOISE, running=False)
    assert (r.run_status, r.tonnage, r.power_input, r.kw_per_ton) == (0, 0.0, 0.0, None)


def test_a_fleet_stages_its_lag_units_off() -> None:
    # 4 units at one site, 14 days of July: the lead runs throughout (its load stays over
    # PLR_min), the second and third lag are off every night and weekend.
    fleet = simulate_fleet(FleetSpec(seed=7, sites=1, units_per_site=4, days=14,
                                     start=date(2025, 7, 1)))
    tel = fleet.docs["telemetry"]
    by_unit: dict[str, list[dict[str, Any]]] = {}
    for d in tel:
        by_unit.setdefault(d["asset_id"], []).append(d)
    assert all(d["run_status"] == 1 for d in by_unit["CH-MAIN-01"])
    for aid in ("CH-MAIN-03", "CH-MAIN-04"):
        nights = [d for d in by_unit[aid] if int(d["timestamp"][11:13]) < 6]
        assert nights and all(d["run_status"] == 0 for d in nights)
        assert any(d["run_status"] == 1 for d in by_unit[aid])
    for d in tel:
        if d["run_status"] == 0:
            assert d["tonnage"] == 0.0 and d["power_input"] == 0.0 and d["kw_per_ton"] is None


def test_a_drifting_sensor_never_logs_negative_tons_or_kw_per_ton_beyond_3() -> None:
    # 500 tons, 30 days after onset: drift min(3, 0.1 × 30) × 1 = 3 K on the supply reading.
    # At 30 % load the true range is 0.30 × 5.56 K = 1.67 K, so return − supply read =
    # 1.67 − 3 = −1.33 K: the BMS holds the tonnage at 0 and leaves kW/ton empty.
    unit = _unit("sensor_drift")
    cold = 15.0 + (0.30 - 0.25) / 0.045  # clip(0.25 + 0.045 (T − 15)) = 0.30 at T = 16.11 °C
    r = simulate_hour(unit, 720, WHEN, cold, 5.0, 0.0, NO_NOISE)
    assert r.run_status == 1 and r.power_input > 0
    assert r.tonnage == 0.0 and r.kw_per_ton is None
    # By hand: tons = 4.186 × V̇ × ΔT / 3.516852; power / tons > 3 reads invalid.
    assert bms_tonnage(100.0, 12.0, 13.0) == 0.0
    assert bms_tonnage(100.0, 12.0, 11.0) == pytest.approx(4.186 * 100.0 / 3.516852)
    assert bms_kw_per_ton(300.0, 100.0) == 3.0 and bms_kw_per_ton(301.0, 100.0) is None
    assert bms_kw_per_ton(10.0, 0.0) is None


def test_every_seeded_reading_lies_inside_its_declared_range() -> None:
    # The default fleet (seed 42, 2 sites × 4 units × 60 days) holds every failure mode,
    # a drifting supply sensor among them; asset.yaml's ranges hold on every record.
    from generator.assetdef import load_asset_class

    asset = load_asset_class("chiller")
    fleet = simulate_fleet(FleetSpec())
    bad = [
        (s.name, d["_id"], d[s.name]) for s in asset.sensors for d in fleet.docs["telemetry"]
        if isinstance(d.get(s.name), int | float)
        and not s.range[0] <= d[s.name] <= s.range[1]
    ]
    assert bad == []


def test_nameplate_says_which_iplv_points_were_clamped(fleet: Any) -> None:
    # AHRI 550/590 rates 100/75/50/25 % at 85/75/65/65 °F entering condenser water:
    # (85 − 32) × 5/9 = 29.44, (75 − 32) × 5/9 = 23.89, (65 − 32) × 5/9 = 18.33 °C. The DOE-2
    # curves stop at 24 °C, so the last three were evaluated at 24 °C, and the plate says so.
    plate = fleet.docs["nameplate"][0]
    assert plate["design_iplv_entering_cw_c"] == [29.44, 24.0, 24.0, 24.0]
    assert plate["design_iplv_clamped_points"] == [75, 50, 25]
