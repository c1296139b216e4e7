"""Golden scenarios: raw documents written by hand into a test store, answers worked by hand.

One small fleet under its own database prefix: site GOLD, unit GOLD-TX01, four days of hourly
top-oil temperature (2026-06-01 00:00 .. 2026-06-04 23:00), two oil samples, two work orders
and the failure-code catalogue. The telemetry is

    oti(day d, hour h) = 40 + h + 2·d     (d = 0 on 2026-06-01, h = 0..23)

so every window statistic and forecast has a closed form. Each test runs the whole generation
stage of one family on this store -- the family's draws through the interpretation gate
(:meth:`RunEnv.draw`), the template verbaliser, the early and deterministic checks -- and
compares every accepted scenario's reference answer with the value derived by hand below.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from assets.transformer.family_readings import HW_SIMPLE_INIT
from generator.api import END_DAY_INCLUDED
from generator.config import StoreSettings
from generator.generate.draw.families import FAMILIES
from generator.generate.model import TaskSeed
from generator.generate.run.run_config import GenerateConfig
from generator.generate.run.stages import RunEnv, prepare
from generator.store.couch import CouchClient
from generator.store.seed import META_DB, database_names, indexes_of, marker_id
from tests.generator.generate.test_families import ASSET, grounded_profile

SITE, UNIT = "GOLD", "GOLD-TX01"
DAYS = 4
T0 = datetime(2026, 6, 1)


def oti(hour_index: int) -> float:
    """The hand-written series: 40 + hour of day + 2 per day."""
    return 40.0 + hour_index % 24 + 2.0 * (hour_index // 24)


def _telemetry() -> list[dict[str, Any]]:
    docs = []
    for t in range(DAYS * 24):
        ts = (T0 + timedelta(hours=t)).isoformat()
        docs.append({"_id": f"{UNIT}:{ts}", "asset_id": UNIT, "site_name": SITE,
                     "timestamp": ts, "oti": oti(t)})
    return docs


# A healthy sample (every gas inside the IEC 60599 typical values) and a T3 sample:
# C2H2/C2H4 = 6/650 = 0.009 (< 0.1), CH4/H2 = 300/120 = 2.5 (> 1), C2H4/C2H6 = 650/50 = 13
# (> 4): IEC 60599 Table 1 thermal fault > 700 °C (T3). Rogers codes agree (CH4/H2 ≥ 1,
# C2H4/C2H6 ≥ 3) and Duval triangle 1 does too: CH4 300, C2H4 650, C2H2 6 of 956 ppm are
# 31.4 %, 68.0 %, 0.6 % -> zone T3 (C2H4 ≥ 50 %, C2H2 < 15 %).
HEALTHY = {"hydrogen": 20.0, "methane": 10.0, "ethane": 8.0, "ethylene": 5.0,
           "acetylene": 0.2, "co": 200.0, "co2": 1500.0}
FAULTY = {"hydrogen": 120.0, "methane": 300.0, "ethane": 50.0, "ethylene": 650.0,
          "acetylene": 6.0, "co": 300.0, "co2": 2000.0}
QUALITY = {"oxygen": 10000.0, "nitrogen": 50000.0, "water_content": 10.0,
           "dielectric_rigidity": 60.0, "interfacial_v": 38.0, "power_factor": 0.1,
           "acidity": 0.03, "dbds": 0.0}


def _oil() -> list[dict[str, Any]]:
    return [
        {"_id": f"{UNIT}:{ts}", "dataset": "oil_sample", "asset_id": UNIT, "site_name": SITE,
         "timestamp": ts, **gases, **QUALITY}
        for ts, gases in (("2026-06-01T10:00:00", HEALTHY), ("2026-06-02T10:00:00", FAULTY))
    ]


def _work_order(wo_id: str, when: str, code: str, preventive: bool) -> dict[str, Any]:
    return {"_id": f"wo:{wo_id}", "dataset": "wo_events", "wo_id": wo_id, "equipment_id": UNIT,
            "site_name": SITE, "preventive": preventive,
            "wo_type": "preventive" if preventive else "corrective", "primary_code": code,
            "wo_description": code, "work_priority": 2, "reported_date": when,
            "actual_finish": when, "actual_labor_hours": 4.0}


CODES = {"PD": "EL-PD", "D1": "EL-D1", "D2": "EL-D2", "T1": "TH-T1", "T2": "TH-T2",
         "T3": "TH-T3"}


def _workorders() -> list[dict[str, Any]]:
    codes = [{"_id": f"fc:{c}", "dataset": "failure_codes", "code": c, "fault_type": f,
              "description": f"fault {f}"} for f, c in CODES.items()]
    codes += [{"_id": f"fc:{c}", "dataset": "failure_codes", "code": c, "fault_type": None,
               "description": c} for c in ("PM-INSP", "OP-OVL", "DGA-ABN")]
    return [
        *codes,
        _work_order("WO-GOLD-001", "2026-06-01T08:00:00", "PM-INSP", True),
        # Corrective work for the T3 finding, two days after the sample of 2026-06-02.
        _work_order("WO-GOLD-002", "2026-06-04T10:00:00", "TH-T3", False),
    ]


def _nameplate() -> list[dict[str, Any]]:
    return [{"_id": UNIT, "asset_id": UNIT, "site_name": SITE, "rated_mva": 10.0,
             "cooling": "ONAN", "thermal_class": "ONAN", "hv_kv": 33.0, "lv_kv": 11.0,
             "paper": "kraft", "year_installed": 2005, "oti_alarm": 90.0, "oti_trip": 100.0,
             "wti_alarm": 110.0, "wti_trip": 130.0}]


def seed_raw(settings: StoreSettings, docs: dict[str, list[dict[str, Any]]]) -> None:
    """Write hand-made documents as a complete store (databases, indexes, marker)."""
    names = database_names(ASSET, settings.db_prefix)
    with CouchClient(settings) as client:
        meta = settings.db_prefix + META_DB
        client.create_db(meta)
        for logical, batch in docs.items():
            client.create_db(names[logical])
            client.bulk_docs(names[logical], batch)
        for logical, indexes in indexes_of(ASSET).items():
            for fields, name in indexes:
                client.create_index(names[logical], fields, name)
        client.put(meta, {
            "_id": marker_id(ASSET.asset_class), "status": "complete", "fingerprint": "golden",
            "spec": {"seed": 0, "sites": 1, "units_per_site": 1, "days": DAYS},
            "counts": {k: len(v) for k, v in docs.items()},
        })


@pytest.fixture(scope="module")
def golden_settings(settings_for: Callable[..., StoreSettings]) -> StoreSettings:
    settings = settings_for("golden_famb_")
    seed_raw(settings, {
        "telemetry": _telemetry(), "oil_samples": _oil(), "nameplate": _nameplate(),
        "workorders": _workorders(), "truth": [],
    })
    return settings


async def _env(settings: StoreSettings, tmp: Path) -> RunEnv:
    profile = await grounded_profile(settings)
    config = GenerateConfig(n=10, seed=5, out_dir=str(tmp))
    return await prepare(ASSET, profile, config, settings, None)


async def generate_family(
    settings: StoreSettings, tmp: Path, family: str, candidates: int = 24
) -> list[TaskSeed]:
    """Run a family's generation stage on the store; the seeds whose scenarios pass every
    check (early and deterministic) after verbalisation."""
    env = await _env(settings, tmp)
    spec = FAMILIES.get(family)
    env.families[spec.domain] = [spec]
    accepted: list[TaskSeed] = []
    try:
        for candidate in range(candidates):
            seed = await env.draw(spec.domain, candidate)
            if seed is None:
                continue
            draft = env.template.verbalise([seed])[0]
            problems = await env.early(seed, draft, spec.domain)
            problems += await env.deterministic(seed, draft, spec.domain)
            assert problems == [], (seed.key, draft.text, problems)
            assert draft.text and seed.answer_summary in draft.characteristic_form
            accepted.append(seed)
    finally:
        env.close()
    return accepted


def _day_index(day: str) -> int:
    return (datetime.fromisoformat(day) - T0).days


async def test_golden_iot_sensor_stat(golden_settings: StoreSettings, tmp_path: Path) -> None:
    """Window [d0, d0 + L) of whole days (d0 = start day index, L days):

    - max: the last day's 23:00 reading, 40 + 23 + 2(d0 + L - 1) (one reading, no tie);
    - min: the first day's 00:00 reading, 40 + 0 + 2·d0;
    - mean: each day averages 40 + 11.5 + 2d, so the window averages
      51.5 + 2(d0 + (L - 1)/2) = 51.5 + 2·d0 + (L - 1), over 24·L readings.

    E.g. [2026-06-02, 2026-06-04): d0 = 1, L = 2 -> max 67 at 06-03 23:00, min 42 at
    06-02 00:00, mean 54.5 over 48 readings.
    """
    seeds = await generate_family(golden_settings, tmp_path, "iot_sensor_stat")
    assert len(seeds) >= 5
    assert {s.params["stat"] for s in seeds} == {"max", "min", "mean"}
    for s in seeds:
        p, answer = s.params, s.answer
        d0, length = _day_index(p["start"]), (_day_index(p["end"]) - _day_index(p["start"]))
        assert p["sensor"] == "oti"
        if p["stat"] == "max":
            assert answer["value"] == 63 + 2 * (d0 + length - 1)
            last = T0 + timedelta(days=d0 + length - 1, hours=23)
            assert answer.get("timestamp", last.isoformat()) == last.isoformat()
        elif p["stat"] == "min":
            assert answer["value"] == 40 + 2 * d0
            first = T0 + timedelta(days=d0)
            assert answer.get("timestamp", first.isoformat()) == first.isoformat()
        else:
            assert answer["value"] == pytest.approx(51.5 + 2 * d0 + (length - 1), abs=1e-9)
            assert answer["count"] == 24 * length
        # The text pins the window's end (end day excluded); the other reading is recorded.
        assert {r.name: r.outcome for r in s.readings}[END_DAY_INCLUDED] in ("same", "stated")
        assert s.rel_tolerance == {"value": 0.001}


async def test_golden_tsfm_forecast(golden_settings: StoreSettings, tmp_path: Path) -> None:
    """The only training window of 3-14 whole days is [2026-06-01, 2026-06-04) (72 readings,
    hour indices 0..71); the forecast h hours ahead is for hour index T = 71 + h, stamped
    2026-06-04 00:00 + (h - 1) h.

    - seasonal naive repeats the last day (d = 2): 40 + ((h - 1) mod 24) + 4;
    - Holt-Winters: the series is a linear trend (2/24 per hour) plus a zero-mean daily
      season, which the tool's start represents exactly; every one-step error is 0, the
      state never moves off that line, and the forecast is the series itself:
      40 + (T mod 24) + 2·floor(T / 24) = 40 + ((h - 1) mod 24) + 2(3 + floor((h - 1)/24)).
      Its in-sample MAE (0) is below seasonal naive's (|y[t] - y[t-24]| = 2 everywhere), so
      the fallback rule keeps Holt-Winters.

    E.g. h = 6: naive 40 + 5 + 4 = 49, Holt-Winters 40 + 5 + 6 = 51 °C at 2026-06-04 05:00;
    h = 48: naive 67, Holt-Winters 40 + 23 + 8 = 71 °C at 2026-06-05 23:00.
    """
    seeds = await generate_family(golden_settings, tmp_path, "tsfm_forecast")
    assert len(seeds) >= 3
    assert {s.answer["method"] for s in seeds} == {"holt_winters", "seasonal_naive"}
    for s in seeds:
        p, answer = s.params, s.answer
        h = p["horizon"]
        assert (p["start"], p["end"]) == ("2026-06-01", "2026-06-04")
        assert answer["timestamp"] == (datetime(2026, 6, 4) + timedelta(hours=h - 1)).isoformat()
        if answer["method"] == "seasonal_naive":
            assert not p["fallback"]
            assert answer["value"] == pytest.approx(40 + (h - 1) % 24 + 4, abs=1e-9)
        else:
            expected = 40 + (h - 1) % 24 + 2 * (3 + (h - 1) // 24)
            assert answer["value"] == pytest.approx(expected, abs=1e-6)
            checks = {r.name: r.outcome for r in s.readings}
            assert checks[HW_SIMPLE_INIT] == "same"  # the other start agrees within 5 %
        assert s.rel_tolerance == {"value": 0.05} and s.tolerance == {"value": 1.0}


async def test_golden_wo_decision_after_diagnosis(
    golden_settings: StoreSettings, tmp_path: Path
) -> None:
    """The only sample the DGA tool classifies as a fault is that of 2026-06-02 10:00 (T3,
    see FAULTY); the healthy sample of 06-01 never becomes a premise. T3's failure code is
    TH-T3 (the catalogue's one code with fault type T3). Corrective work reported since
    2026-06-02: WO-GOLD-002 (TH-T3, 06-04) -> already raised. No matching work before the
    date, so the plain phrasing is used.
    """
    seeds = await generate_family(golden_settings, tmp_path, "wo_decision_after_diagnosis", 8)
    assert seeds
    for s in seeds:
        assert s.params["fault"] == "T3" and s.params["start"] == "2026-06-02"
        assert s.params["earlier_work"] is False
        assert s.answer == {
            "failure_code": "TH-T3",
            "already_raised": True,
            "work_orders": ["WO-GOLD-002"],
            "decision": "already raised",
        }
        assert s.outcome == "already_raised"
