"""Property and determinism tests of assets.chiller.simulator."""

from __future__ import annotations

from datetime import date, datetime

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
    simulate_fleet,
    simulate_hour,
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
