"""Physical sanity of the simulated fleet (pure: no store involved)."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from assets.transformer import dga
from assets.transformer.simulator import (
    PROTOTYPES,
    FleetData,
    FleetSpec,
    classify_all,
    simulate_fleet,
)

TYPICAL = {
    "hydrogen": 150,
    "methane": 130,
    "ethane": 90,
    "ethylene": 280,
    "acetylene": 20,
    "co": 600,
    "co2": 14000,
}


@pytest.fixture(scope="module")
def fleet() -> FleetData:
    return simulate_fleet(FleetSpec(seed=7))


def _rated(fleet: FleetData) -> dict[str, float]:
    return {p["asset_id"]: p["rated_mva"] for p in fleet.docs["nameplate"]}


def _truth(fleet: FleetData) -> dict[str, dict]:
    return {t["asset_id"]: t for t in fleet.docs["truth"]}


def test_default_fleet_size(fleet: FleetData) -> None:
    assert len(fleet.docs["nameplate"]) == 12
    assert len(fleet.docs["telemetry"]) == 12 * 90 * 24


def test_winding_above_oil_above_ambient_when_loaded(fleet: FleetData) -> None:
    rated = _rated(fleet)
    loaded = [d for d in fleet.docs["telemetry"] if d["load_mva"] > 0.1 * rated[d["asset_id"]]]
    assert len(loaded) > 0.9 * len(fleet.docs["telemetry"])
    violations = [d for d in loaded if not d["wti"] > d["oti"] > d["ati"]]
    assert violations == []


def test_load_factor_mostly_between_20_and_120_percent(fleet: FleetData) -> None:
    rated = _rated(fleet)
    for asset_id in rated:
        rows = [d for d in fleet.docs["telemetry"] if d["asset_id"] == asset_id]
        inside = sum(0.2 <= d["load_mva"] / rated[asset_id] <= 1.2 for d in rows)
        assert inside / len(rows) >= 0.95, asset_id


def test_apparent_power_from_voltages_and_currents_matches_stored_load(fleet: FleetData) -> None:
    for d in fleet.docs["telemetry"][::7]:
        # S = (V12·I1 + V23·I2 + V31·I3)/√3, kV·A → kVA, /1000 → MVA.
        s = (d["vl12"] * d["il1"] + d["vl23"] * d["il2"] + d["vl31"] * d["il3"]) / math.sqrt(3)
        s /= 1000.0
        assert s == pytest.approx(d["load_mva"], rel=0.01, abs=1e-4)


def test_line_voltages_are_consistent_with_phase_voltages(fleet: FleetData) -> None:
    d = fleet.docs["telemetry"][100]
    # Phasors 120° apart: |Va − Vb∠−120°|² = Va² + Vb² + Va·Vb.
    expected = math.sqrt(d["vl1"] ** 2 + d["vl2"] ** 2 + d["vl1"] * d["vl2"])
    assert d["vl12"] == pytest.approx(expected, rel=1e-3)


def test_trips_are_rare_events(fleet: FleetData) -> None:
    truth = _truth(fleet)
    for asset_id, t in truth.items():
        if t["fault_type"] == "none":
            assert len(t["trips"]) <= 1, asset_id
    trip_hours = Counter(d["asset_id"] for d in fleet.docs["telemetry"] if d["oti_t"] or d["wti_t"])
    assert all(n <= 3 for n in trip_hours.values())


def test_every_injected_fault_classifies_as_itself_in_the_latest_sample(fleet: FleetData) -> None:
    truth = _truth(fleet)
    faulty = {a: t["fault_type"] for a, t in truth.items() if t["fault_type"] != "none"}
    assert set(faulty.values()) == set(PROTOTYPES)
    for asset_id, fault in faulty.items():
        samples = sorted(
            (s for s in fleet.docs["oil_samples"] if s["asset_id"] == asset_id),
            key=lambda s: s["timestamp"],
        )
        latest = samples[-1]
        sample = dga.GasSample(
            **{g: latest[g] for g in ("hydrogen", "methane", "ethane", "ethylene", "acetylene")}
        )
        assert classify_all(sample) == (fault, fault, fault), asset_id


def test_healthy_units_stay_under_typical_concentrations(fleet: FleetData) -> None:
    truth = _truth(fleet)
    healthy = {a for a, t in truth.items() if t["fault_type"] == "none"}
    for s in fleet.docs["oil_samples"]:
        if s["asset_id"] in healthy:
            for gas, limit in TYPICAL.items():
                assert s[gas] < limit, (s["asset_id"], gas, s[gas])


def test_faulty_units_get_a_corrective_work_order_after_dga(fleet: FleetData) -> None:
    truth = _truth(fleet)
    orders = [d for d in fleet.docs["workorders"] if d.get("dataset") == "wo_events"]
    for asset_id, t in truth.items():
        if t["fault_type"] != "none":
            assert t["dga_abnormal_first_seen"] is not None
            assert any(
                o["equipment_id"] == asset_id
                and not o["preventive"]
                and o["wo_description"].startswith("DGA abnormal")
                for o in orders
            )


def test_same_seed_same_documents_other_seed_other_fleet() -> None:
    spec = FleetSpec(seed=3, sites=1, units_per_site=3, days=14)
    a, b = simulate_fleet(spec), simulate_fleet(spec)
    assert a.docs == b.docs
    c = simulate_fleet(spec.model_copy(update={"seed": 4}))
    assert c.docs["telemetry"] != a.docs["telemetry"]


def test_ids_are_unique_per_database(fleet: FleetData) -> None:
    for name, docs in fleet.docs.items():
        ids = [d["_id"] for d in docs]
        assert len(ids) == len(set(ids)), name


@pytest.mark.parametrize("seed", [1, 5, 9, 23])
@pytest.mark.parametrize("days", [7, 10, 30])
def test_short_windows_still_hold_every_fault_in_the_latest_sample(seed: int, days: int) -> None:
    fleet = simulate_fleet(FleetSpec(seed=seed, sites=2, units_per_site=3, days=days))
    truth = _truth(fleet)
    for asset_id, t in truth.items():
        if t["fault_type"] == "none":
            continue
        latest = max(
            (s for s in fleet.docs["oil_samples"] if s["asset_id"] == asset_id),
            key=lambda s: s["timestamp"],
        )
        assert t["onset"] < latest["timestamp"]
        sample = dga.GasSample(
            **{g: latest[g] for g in ("hydrogen", "methane", "ethane", "ethylene", "acetylene")}
        )
        assert classify_all(sample) == (t["fault_type"],) * 3


@pytest.mark.parametrize("seed", [7, 8, 42])
def test_healthy_units_read_as_normal_under_both_screens(seed: int) -> None:
    fleet = simulate_fleet(FleetSpec(seed=seed))
    truth = _truth(fleet)
    for s in fleet.docs["oil_samples"]:
        if truth[s["asset_id"]]["fault_type"] != "none":
            continue
        sample = dga.GasSample(**{g: s[g] for g in ("hydrogen", "methane", "ethane", "ethylene",
                                                   "acetylene", "co", "co2")})
        screen = dga.concentration_screen(sample)
        assert screen.all_within_iec_typical and screen.ieee_condition == 1, (s["_id"], screen)
