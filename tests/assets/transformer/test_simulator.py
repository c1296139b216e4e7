"""Physical sanity of the simulated fleet (pure: no store involved)."""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest

from assets.transformer import dga
from assets.transformer.simulator import (
    FAILURE_CODES,
    OUTAGE_HOURS,
    PROTOTYPES,
    THRESHOLDS,
    FleetData,
    FleetSpec,
    classify_all,
    simulate_fleet,
    table1_row_holds,
)
from assets.transformer.thermal import COOLING, top_oil_rise

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


@pytest.fixture(scope="module")
def fleet42() -> FleetData:
    """The default fleet (`scenariogen env seed`): seed 42, 3 sites × 4 units × 90 days."""
    return simulate_fleet(FleetSpec(seed=42))


def _rows(fleet: FleetData) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in fleet.docs["telemetry"]:
        out[d["asset_id"]].append(d)
    return out


def _alerts(fleet: FleetData) -> list[dict[str, Any]]:
    return [d for d in fleet.docs["workorders"] if d.get("dataset") == "alert_events"]


def _rated(fleet: FleetData) -> dict[str, float]:
    return {p["asset_id"]: p["rated_mva"] for p in fleet.docs["nameplate"]}


def _truth(fleet: FleetData) -> dict[str, dict]:
    return {t["asset_id"]: t for t in fleet.docs["truth"]}


def _faults(fleet: FleetData, kind: str) -> list[tuple[str, dict[str, Any]]]:
    return [(t["asset_id"], f) for t in fleet.docs["truth"] for f in t["sensor_faults"]
            if f["kind"] == kind]


def _stuck_records(fleet: FleetData) -> set[tuple[str, str]]:
    """(asset, timestamp) of the records inside an injected stuck-indicator fault."""
    return {(a, d["timestamp"]) for a, f in _faults(fleet, "stuck")
            for d in fleet.docs["telemetry"]
            if d["asset_id"] == a and f["start"] <= d["timestamp"] <= f["end"]}


def test_default_fleet_size(fleet: FleetData) -> None:
    assert len(fleet.docs["nameplate"]) == 12
    # 12 units x 90 days x 24 h, less the records of the injected data gaps (two units of
    # twelve: one per UNITS_PER_KIND = 6), each 4 to 24 hours long.
    gaps = [f["count"] for _, f in _faults(fleet, "gap")]
    assert len(gaps) == 2 and all(4 <= g <= 24 for g in gaps)
    assert len(fleet.docs["telemetry"]) == 12 * 90 * 24 - sum(gaps)


def test_winding_above_oil_above_ambient_when_loaded(fleet: FleetData) -> None:
    rated = _rated(fleet)
    loaded = [d for d in fleet.docs["telemetry"] if d["load_mva"] > 0.1 * rated[d["asset_id"]]]
    assert len(loaded) > 0.9 * len(fleet.docs["telemetry"])
    stuck = _stuck_records(fleet)  # a frozen indicator need not follow the physics
    violations = [d for d in loaded if not d["wti"] > d["oti"] > d["ati"]
                  and (d["asset_id"], d["timestamp"]) not in stuck]
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
                and o["wo_type"] == "corrective"
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
        ratios = dga.iec60599_ratios(sample)
        assert table1_row_holds(t["fault_type"], ratios), (asset_id, ratios)
        if t["fault_type"] == "T1":  # Table 1 T1 row: CH4/H2 > 1, C2H4/C2H6 < 1, 5 % inside
            assert ratios.ch4_h2 >= 1.05 and ratios.c2h4_c2h6 <= 0.95, ratios


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


# -- thermal consistency: trips, de-energised cooling, fault signatures --------------------


@pytest.mark.parametrize("name", ["fleet", "fleet42"])
def test_readings_never_exceed_a_trip_setting_by_more_than_one_step(
    name: str, request: pytest.FixtureRequest
) -> None:
    fleet: FleetData = request.getfixturevalue(name)
    truth = _truth(fleet)
    trips = 0
    for asset_id, rows in _rows(fleet).items():
        bound = truth[asset_id]["trip_step_bound_k"]  # thermal.max_step_rise for the unit
        for r in rows:
            assert r["oti"] <= THRESHOLDS["oti_trip"] + bound, r
            assert r["wti"] <= THRESHOLDS["wti_trip"] + bound, r
        trips += len(truth[asset_id]["trips"])
    for a in _alerts(fleet):
        if a["rule_id"].endswith("TRIP"):
            assert a["value"] >= a["threshold"], a
            assert a["value"] <= a["threshold"] + truth[a["equipment_id"]]["trip_step_bound_k"]
    assert trips >= 1  # the check above has something to bite on


def test_a_tripped_unit_is_de_energised_and_cools_toward_ambient(fleet42: FleetData) -> None:
    truth = _truth(fleet42)
    rows = _rows(fleet42)
    seen = 0
    for asset_id, t in truth.items():
        index = {r["timestamp"]: i for i, r in enumerate(rows[asset_id])}
        for trip in t["trips"]:
            at = datetime.fromisoformat(trip)
            first = at.replace(minute=0) + timedelta(hours=1 if at.minute else 0)
            i0 = index[first.isoformat()]
            outage = rows[asset_id][i0 : i0 + OUTAGE_HOURS]
            assert all(r["load_mva"] == 0 and r["il1"] == 0 for r in outage)
            # No losses: the oil falls every hour toward ambient; an hour after the trip the
            # CT-fed heater has died away and the WTI reads the top oil (within 0.2 K).
            oti = [r["oti"] for r in outage]
            assert all(b < a for a, b in itertools.pairwise(oti)), oti
            assert all(r["oti"] > r["ati"] for r in outage)
            assert all(0 <= r["wti"] - r["oti"] <= 0.2 for r in outage[1:]), outage
            assert rows[asset_id][i0 + OUTAGE_HOURS]["load_mva"] > 0  # back in service
            seen += 1
    assert seen >= 1


@pytest.mark.parametrize("name", ["fleet", "fleet42"])
def test_wti_never_reads_below_oti(name: str, request: pytest.FixtureRequest) -> None:
    fleet: FleetData = request.getfixturevalue(name)
    stuck = _stuck_records(fleet)
    assert all(d["wti"] >= d["oti"] for d in fleet.docs["telemetry"]
               if (d["asset_id"], d["timestamp"]) not in stuck)


@pytest.mark.parametrize("name", ["fleet", "fleet42"])
def test_thermal_faults_raise_the_top_oil_rise_at_equal_load(
    name: str, request: pytest.FixtureRequest
) -> None:
    # Observed top-oil rise over the rise the rated cooling gives at the same loads, last
    # week against first week (before any onset): T1 (degraded cooling, Δθor × up to 1.25)
    # and T3 (extra core loss) climb; every other unit stays within 2 %.
    fleet: FleetData = request.getfixturevalue(name)
    plates = {p["asset_id"]: p for p in fleet.docs["nameplate"]}

    def ratio(asset_id: str, rows: list[dict[str, Any]]) -> float:
        p = plates[asset_id]
        rows = [r for r in rows if r["load_mva"] > 0]
        k = np.array([r["load_mva"] / p["rated_mva"] for r in rows])
        rise = np.mean([r["oti"] - r["ati"] for r in rows])
        return float(rise / np.mean(top_oil_rise(k, COOLING[p["thermal_class"]])))

    truth = _truth(fleet)
    for asset_id, rows in _rows(fleet).items():
        change = ratio(asset_id, rows[-168:]) / ratio(asset_id, rows[:168])
        fault = truth[asset_id]["fault_type"]
        if fault == "T1":
            assert change > 1.15 and truth[asset_id]["thermal_signature"], asset_id
        elif fault == "T3":
            assert change > 1.06 and truth[asset_id]["thermal_signature"], asset_id
        else:
            assert abs(change - 1) < 0.02 and truth[asset_id]["thermal_signature"] is None


# -- one diagnosis path: work orders and detection dates from interpret_dga --------------


@pytest.mark.parametrize("name", ["fleet", "fleet42"])
def test_dga_work_orders_and_detection_follow_the_tool(
    name: str, request: pytest.FixtureRequest
) -> None:
    fleet: FleetData = request.getfixturevalue(name)
    truth = _truth(fleet)
    orders = [d for d in fleet.docs["workorders"] if d.get("dataset") == "wo_events"]
    for asset_id, t in truth.items():
        samples = sorted(
            (s for s in fleet.docs["oil_samples"] if s["asset_id"] == asset_id),
            key=lambda s: s["timestamp"],
        )
        verdicts = [
            (s["timestamp"], dga.interpret_dga(asset_id, **{g: s[g] for g in (
                "hydrogen", "methane", "acetylene", "ethylene", "ethane", "co", "co2")}))
            for s in samples
        ]
        abnormal = [(ts, v) for ts, v in verdicts if v.fault_type != "normal"]
        dga_orders = sorted(
            (o for o in orders if o["equipment_id"] == asset_id
             and o["wo_description"].startswith("DGA")),
            key=lambda o: o["reported_date"],
        )
        if t["fault_type"] == "none":
            assert abnormal == [] and t["first_detected"] is None and dga_orders == []
            continue
        when, verdict = abnormal[0]
        assert t["first_detected"] == t["dga_abnormal_first_seen"] == when
        assert t["first_detected_class"] == verdict.fault_type
        assert t["onset"] < when  # seen only after the fault starts
        first_classified = next(ts for ts, v in verdicts if v.fault_type == t["fault_type"])
        assert t["first_classified"] == first_classified >= when
        first_order = dga_orders[0]
        reported = datetime.fromisoformat(when) + timedelta(days=2)
        assert first_order["reported_date"] == reported.isoformat()
        assert first_order["primary_code"] == FAILURE_CODES.get(verdict.fault_type, "DGA-ABN")
        assert len(dga_orders) <= 2


# -- the default fleet holds non-trivial answers -------------------------------------------


def test_default_fleet_has_alarms_overloads_and_faults(fleet42: FleetData) -> None:
    truth = _truth(fleet42)
    rated = _rated(fleet42)
    faulty = [a for a, t in truth.items() if t["fault_type"] != "none"]
    assert len(faulty) >= len(truth) / 3
    wti_alarm_units = {a["equipment_id"] for a in _alerts(fleet42) if a["rule_id"] == "WTI_ALARM"}
    assert len(wti_alarm_units) >= 3
    long_overloads = 0
    for asset_id, rows in _rows(fleet42).items():
        run = best = 0
        for r in rows:
            run = run + 1 if r["load_mva"] > rated[asset_id] else 0
            best = max(best, run)
        long_overloads += best >= 2  # above 1.0 pu for at least two consecutive hours
    assert long_overloads >= 2
    corrective = [
        d for d in fleet42.docs["workorders"]
        if d.get("dataset") == "wo_events" and d["wo_type"] == "corrective"
    ]
    assert len({d["equipment_id"] for d in corrective}) >= len(truth) / 2


# -- injected telemetry faults (assets.transformer.sensor_faults) --------------------------


def test_telemetry_faults_are_what_the_truth_lists(fleet42: FleetData) -> None:
    rows = _rows(fleet42)
    kinds = Counter(f["kind"] for t in fleet42.docs["truth"] for f in t["sensor_faults"])
    assert kinds == {"stuck": 2, "gap": 2, "contact": 2}  # 12 units: two of each kind
    faulty = [t["asset_id"] for t in fleet42.docs["truth"] if t["sensor_faults"]]
    assert len(faulty) == len(set(faulty)) == 6  # one fault per unit
    for a, f in _faults(fleet42, "stuck"):
        run = [d for d in rows[a] if f["start"] <= d["timestamp"] <= f["end"]]
        assert len(run) == f["count"] >= 24 and {d[f["sensor"]] for d in run} == {f["value"]}
        # the contacts follow the true temperature, below the alarm setting here
        assert all(d[c] == 0 for d in run for c in ("oti_a", "wti_a", "oti_t", "wti_t"))
        i = rows[a].index(run[0])
        assert rows[a][i - 1][f["sensor"]] != f["value"] != rows[a][i + len(run)][f["sensor"]]
    for a, f in _faults(fleet42, "gap"):
        stamps = [d["timestamp"] for d in rows[a]]
        first = datetime.fromisoformat(f["start"])
        missing = [(first + timedelta(hours=h)).isoformat() for h in range(f["count"])]
        assert missing[-1] == f["end"] and not set(missing) & set(stamps)
        assert len(stamps) == 90 * 24 - f["count"]
    for a, f in _faults(fleet42, "contact"):
        setting = THRESHOLDS["oti_alarm" if f["sensor"] == "oti_a" else "wti_alarm"]
        on = [d for d in rows[a] if d[f["sensor"]] == 1 and d[f["sensor"].split("_")[0]]
              < setting]
        assert [d["timestamp"] for d in on] == f["timestamps"] and len(on) == f["count"]
        assert all(d[f["sensor"].split("_")[0]] <= setting - 10 for d in on)


def test_instrument_orders_follow_the_faults_that_list_one(fleet42: FleetData) -> None:
    orders = {d["wo_id"]: d for d in fleet42.docs["workorders"]
              if d.get("dataset") == "wo_events" and d["primary_code"] == "IC-SENS"}
    listed = {f["work_order"]: (a, f) for t in fleet42.docs["truth"]
              for a, f in [(t["asset_id"], x) for x in t["sensor_faults"]] if f["work_order"]}
    assert set(orders) == set(listed) and 0 < len(orders) < 6
    for wo_id, (a, f) in listed.items():
        o = orders[wo_id]
        assert o["equipment_id"] == a and o["wo_type"] == "corrective"
        lead = datetime.fromisoformat(o["reported_date"]) - datetime.fromisoformat(f["start"])
        assert timedelta(days=1) <= lead <= timedelta(days=3)
        # numbered after every other order of the unit
        own = sorted(d["wo_id"] for d in fleet42.docs["workorders"]
                     if d.get("dataset") == "wo_events" and d["equipment_id"] == a)
        assert own[-1] == wo_id
    codes = {d["code"] for d in fleet42.docs["workorders"] if d.get("dataset") == "failure_codes"}
    assert "IC-SENS" in codes


def test_faults_move_no_other_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the injection every document but the faulted ones is the same: the faults
    draw from their own random stream and come after everything else."""
    from assets.transformer import simulator

    spec = FleetSpec(seed=3, sites=2, units_per_site=2, days=21)
    with_faults = simulate_fleet(spec).docs
    monkeypatch.setattr(simulator, "inject_sensor_faults",
                        lambda seed, tele, alarm, rng: {a: [] for a in tele})
    clean = simulate_fleet(spec).docs
    faults = {t["asset_id"]: t["sensor_faults"] for t in with_faults["truth"]}
    assert sum(map(len, faults.values())) == 3  # 4 units: one stuck, one gap, one contact
    old = {d["_id"]: d for d in clean["telemetry"]}
    new = {d["_id"]: d for d in with_faults["telemetry"]}
    assert set(new) <= set(old)
    changed = {i for i in new if new[i] != old[i]}
    for i in changed:  # only the faulted sensor of a faulted record differs
        a, ts = new[i]["asset_id"], new[i]["timestamp"]
        (f,) = faults[a]
        assert f["start"] <= ts <= f["end"]
        assert {k for k in new[i] if new[i][k] != old[i][k]} == {f["sensor"]}
    for name in ("oil_samples", "nameplate"):
        assert with_faults[name] == clean[name]
    extra = [d for d in with_faults["workorders"] if d not in clean["workorders"]]
    assert all(d.get("primary_code") == "IC-SENS" or d.get("event_type") == "IC-SENS"
               or d.get("code") == "IC-SENS" for d in extra)
    assert all(d in with_faults["workorders"] for d in clean["workorders"])
    for t_new, t_old in zip(with_faults["truth"], clean["truth"], strict=True):
        assert {k: v for k, v in t_new.items() if k != "sensor_faults"} == {
            k: v for k, v in t_old.items() if k != "sensor_faults"}
