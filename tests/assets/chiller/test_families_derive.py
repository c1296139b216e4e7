"""Chiller family ``derive`` functions on hand-made tool outputs (no store): the readings
they gate, the ties they refuse, the thresholds they keep away from."""

from __future__ import annotations

from typing import Any

import pytest

from assets.chiller import families_fmsr, families_iot, families_wo
from generator.api import Ambiguous, anomaly_workorder_derive


def _rec(ts: str, run: int, **values: float | None) -> dict[str, Any]:
    return {"asset_id": "CH-X-01", "timestamp": ts, "run_status": run, **values}


RECORDS = [
    _rec("2025-06-01T00:00:00", 0, supply_temperature=10.7, kw_per_ton=None,
         power_input=0.0, tonnage=0.0),
    _rec("2025-06-01T01:00:00", 1, supply_temperature=6.9, kw_per_ton=0.6,
         power_input=60.0, tonnage=100.0),
    _rec("2025-06-01T02:00:00", 1, supply_temperature=7.1, kw_per_ton=0.5,
         power_input=150.0, tonnage=300.0),
]


def test_window_max_over_every_hour_differs_from_the_running_hours_only() -> None:
    params = {"sensor": "supply_temperature", "stat": "max"}
    out = [{"records": RECORDS}]
    # every hour: the idle loop's 10.7 °C at 00:00 is the highest reading
    assert families_iot._stat_derive(params, out) == {
        "value": 10.7, "timestamp": "2025-06-01T00:00:00"
    }
    # running hours only: 7.1 °C at 02:00 -- the gate drops such a draw (reading unstated)
    running = {**params, "reading": families_iot.RUNNING_ONLY}
    assert families_iot._stat_derive(running, out) == {
        "value": 7.1, "timestamp": "2025-06-01T02:00:00"
    }


def test_mean_kw_per_ton_against_the_ratio_of_sums() -> None:
    params = {"sensor": "kw_per_ton", "stat": "mean"}
    out = [{"records": RECORDS}]
    # mean of hourly values over the running hours: (0.6 + 0.5) / 2 = 0.55 over 2 hours
    assert families_iot._stat_derive(params, out) == pytest.approx({"value": 0.55, "hours": 2})
    # energy-weighted: (60 + 150) kW / (100 + 300) tons = 210 / 400 = 0.525
    ratio = {**params, "reading": families_iot.RATIO_OF_SUMS}
    assert families_iot._stat_derive(ratio, out)["value"] == pytest.approx(0.525)


def test_site_cooling_refuses_a_near_tie() -> None:
    listing = {"assets": [{"asset_id": "A"}, {"asset_id": "B"}]}
    a = {"asset_id": "A", "records": [{"tonnage": 100.0}, {"tonnage": 100.0}]}  # 200 ton-h
    b = {"asset_id": "B", "records": [{"tonnage": 199.5}, {"tonnage": 0.0}]}  # 199.5 ton-h
    with pytest.raises(Ambiguous):  # 0.5 apart is within 1 % of 200
        families_iot._site_cooling_derive({}, [listing, a, b])
    b["records"] = [{"tonnage": 150.0}, {"tonnage": 0.0}]
    assert families_iot._site_cooling_derive({}, [listing, a, b]) == {
        "unit": "A", "ton_hours": {"A": 200.0, "B": 150.0}
    }


def _approach_out(evap: float, rise_e: float, rise_c: float, status: str) -> dict[str, Any]:
    return {"evaporator_approach_k": evap, "condenser_approach_k": 3.0,
            "evaporator_approach_rise_k": rise_e, "condenser_approach_rise_k": rise_c,
            "status": status}


def test_approach_check_ties_the_tool_to_the_record_and_keeps_off_the_threshold() -> None:
    record = {"records": [{"supply_temperature": 7.0, "evaporator_refrigerant_temperature": 4.5}]}
    # 7.0 − 4.5 = 2.5 K evaporator approach; rises 0.5 and 2.3 K: condenser high
    ok = _approach_out(2.5, 0.5, 2.3, "condenser_approach_high")
    assert families_fmsr._approach_derive({}, [record, ok])["fouling_suspected"] == "condenser"
    with pytest.raises(Ambiguous):  # the tool saw another record
        families_fmsr._approach_derive({}, [record, _approach_out(2.0, 0.5, 2.3, "normal")])
    with pytest.raises(Ambiguous):  # 1.62 K is within 0.1 K of the 3 °F = 1.667 K threshold
        families_fmsr._approach_derive({}, [record, _approach_out(2.5, 1.62, 0.0, "normal")])


def test_alert_follow_up_and_corrective_listing() -> None:
    out = {"alerts": 2, "followed": 1, "mean_lead_time_hours": 24.0,
           "links": [{"wo_id": "WO-1"}, {"wo_id": None}]}
    assert families_wo._alert_derive({}, [out]) == {
        "alerts": 2, "followed": 1, "mean_lead_time_hours": 24.0, "work_orders": ["WO-1"]
    }
    assert families_wo.alert_outcome({"alerts": 2, "followed": 0}) == "unanswered"
    orders = {"work_orders": [{"wo_id": "WO-2", "primary_code": "CH-CF"}]}
    assert families_wo._corrective_derive({}, [orders]) == {
        "count": 1, "work_orders": {"WO-2": "CH-CF"}
    }


def test_anomaly_to_workorder_orders_by_time() -> None:
    tsad = {"anomalies": [{"timestamp": "2025-06-10T05:00:00"}]}
    before = {"wo_id": "W1", "reported_date": "2025-06-09T08:00:00"}
    after = {"wo_id": "W2", "reported_date": "2025-06-11T08:00:00"}
    got = anomaly_workorder_derive({}, [tsad, {"work_orders": [before]}])
    assert got["followed_by_corrective"] is False
    got = anomaly_workorder_derive({}, [tsad, {"work_orders": [before, after]}])
    assert got["followed_by_corrective"] is True
    assert got["corrective_work_orders"] == ["W1", "W2"]


def test_sensor_words_agree_with_the_class_vocabulary() -> None:
    from assets.chiller.families_common import SENSOR_WORDS
    from generator.assetdef import ASSETS_DIR, load_asset_class
    from generator.yamlfile import read_yaml

    spoken = read_yaml(ASSETS_DIR / "chiller" / "vocabulary.yaml")["sensor_names"]
    for code, words in spoken.items():
        assert SENSOR_WORDS[code] == words, code
    assert set(SENSOR_WORDS) == {s.name for s in load_asset_class("chiller").sensors}


def test_efficiency_of_a_unit_that_is_off_is_no_answer() -> None:
    """A neighbouring unit staged off at the instance's hour (tonnage 0) has no kW/ton: the
    derivation says so instead of dividing by zero (a held-out decoy rederives on it)."""
    off = {"records": [{"timestamp": "2026-01-05T03:00:00", "run_status": 0, "tonnage": 0.0,
                        "power_input": 0.0}]}
    assessed = {"measured_kw_per_ton": 0.0, "design_kw_per_ton": 0.6, "degradation_pct": 0.0}
    with pytest.raises(Ambiguous, match="not running"):
        families_fmsr._efficiency_derive({}, [off, assessed])
