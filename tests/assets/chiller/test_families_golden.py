"""Golden tests: chiller reference answers re-derived by hand from the raw seeded documents.

One family per domain (and a second where cheap). Each test draws the family's seeds on a
small seeded fleet, then reads the raw documents straight from the store databases (no
tool, no family ``derive``) and recomputes the answer with the formula written out in the
comments.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest

from generator.config import StoreSettings
from generator.generate.draw.families import FAMILIES, draw_many, load_families
from generator.generate.model import TaskSeed
from generator.profile.model import AssetProfile
from generator.store.couch import CouchClient
from generator.store.seed import database_names
from tests.assets.chiller.chiller_fleet import (
    ASSET,
    chiller_context,
    chiller_profile,
    seed_chiller,
)

RUN_SEED = 29
THREE_F_K = 3.0 * 5.0 / 9.0  # 3 °F in kelvin = 1.6667 K
FIVE_F_K = 5.0 * 5.0 / 9.0  # 5 °F = 2.7778 K


@pytest.fixture(scope="module")
def chiller_settings(settings_for: Callable[..., StoreSettings]) -> StoreSettings:
    return seed_chiller(settings_for)


@pytest.fixture(scope="module")
async def profile(chiller_settings: StoreSettings) -> AssetProfile:
    return await chiller_profile(chiller_settings)


async def _draw(
    name: str, settings: StoreSettings, profile: AssetProfile, count: int = 6
) -> list[TaskSeed]:
    load_families(ASSET)
    ctx = chiller_context(profile, settings, RUN_SEED)
    seeds = await draw_many(FAMILIES.get(name), ctx, 0, count, count * 8)
    assert seeds, name
    return seeds


class Raw:
    """The raw documents of the seeded fleet, read with a plain client."""

    def __init__(self, settings: StoreSettings) -> None:
        self.client = CouchClient(settings)
        self.db = database_names(ASSET, settings.db_prefix)

    def telemetry(self, asset_id: str, start: str, end: str) -> list[dict[str, Any]]:
        """Records with start <= timestamp < end (ISO strings compare in time order)."""
        docs = self.client.find(self.db["telemetry"], {"asset_id": asset_id})
        return sorted(
            (d for d in docs if start <= d["timestamp"] < end), key=lambda d: d["timestamp"]
        )

    def record(self, asset_id: str, ts: str) -> dict[str, Any]:
        hits = [d for d in self.client.find(self.db["telemetry"], {"asset_id": asset_id})
                if d["timestamp"] == ts]
        assert len(hits) == 1
        return hits[0]

    def nameplate(self, asset_id: str) -> dict[str, Any]:
        docs = [d for d in self.client.all_docs(self.db["nameplate"])
                if d.get("asset_id") == asset_id]
        assert len(docs) == 1
        return docs[0]

    def work_orders(self, asset_id: str) -> list[dict[str, Any]]:
        return self.client.find(
            self.db["workorders"], {"dataset": "wo_events", "equipment_id": asset_id}
        )

    def failure_codes(self) -> list[dict[str, Any]]:
        return self.client.find(self.db["workorders"], {"dataset": "failure_codes"})

    def close(self) -> None:
        self.client.close()


@pytest.fixture(scope="module")
def raw(chiller_settings: StoreSettings) -> Any:
    r = Raw(chiller_settings)
    yield r
    r.close()


# -- iot ------------------------------------------------------------------------------------


async def test_window_stat_matches_the_raw_records(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Raw
) -> None:
    for s in await _draw("chiller_iot_window_stat", chiller_settings, profile, 8):
        p = s.params
        # The window [start, end) is whole days: records with start <= ts < end.
        docs = raw.telemetry(p["asset_id"], p["start"], p["end"])
        values = [(d["timestamp"], d[p["sensor"]]) for d in docs if d[p["sensor"]] is not None]
        if p["stat"] == "mean":
            if p["sensor"] == "kw_per_ton":
                # kW/ton is null while the machine is off: the plain mean of the hourly values
                # over the running hours, (1/n)·Σ kWt_i (not Σ kW / Σ tons).
                assert s.answer["hours"] == sum(1 for d in docs if d["run_status"] == 1)
            else:
                # tonnage: every hour counts, off hours as 0 tons.
                assert s.answer["hours"] == len(docs)
            expected = float(np.mean([v for _, v in values]))
            assert s.answer["value"] == pytest.approx(expected, rel=1e-12)
        else:
            sign = 1.0 if p["stat"] == "max" else -1.0
            best = max(sign * v for _, v in values)
            hits = [t for t, v in values if sign * v == best]
            assert hits == [s.answer["timestamp"]]  # a unique extreme, at that hour
            assert s.answer["value"] == sign * best


async def test_site_cooling_sums_the_raw_tonnage(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Raw
) -> None:
    for s in await _draw("chiller_iot_site_cooling", chiller_settings, profile, 3):
        p = s.params
        units = sorted(s.answer["ton_hours"])
        for aid in units:
            docs = raw.telemetry(aid, p["start"], p["end"])
            # hourly records: ton-hours = Σ tons_i × 1 h (off hours hold 0 tons)
            assert s.answer["ton_hours"][aid] == pytest.approx(sum(d["tonnage"] for d in docs))
        top = max(units, key=lambda u: s.answer["ton_hours"][u])
        assert s.answer["unit"] == top


# -- fmsr -----------------------------------------------------------------------------------


async def test_approach_check_worked_from_the_raw_record_and_nameplate(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Raw
) -> None:
    seen = set()
    for s in await _draw("chiller_fmsr_approach_check", chiller_settings, profile, 8):
        p = s.params
        r = raw.record(p["asset_id"], p["timestamp"])
        plate = raw.nameplate(p["asset_id"])
        # evaporator approach = leaving chilled water − evaporator saturation
        evap = r["supply_temperature"] - r["evaporator_refrigerant_temperature"]
        # condenser approach = condenser saturation − leaving condenser water
        cond = r["condenser_refrigerant_temperature"] - r["condenser_water_return_temperature"]
        assert s.answer["evaporator_approach_k"] == pytest.approx(evap, abs=1e-9)
        assert s.answer["condenser_approach_k"] == pytest.approx(cond, abs=1e-9)
        # clean approach scales with load: expected = design × %loaded / 100;
        # high when measured − expected >= 3 °F (1.667 K)
        load = r["percent_loaded"] / 100.0
        evap_high = evap - plate["design_evaporator_approach_k"] * load >= THREE_F_K
        cond_high = cond - plate["design_condenser_approach_k"] * load >= THREE_F_K
        side = {(False, False): "none", (True, False): "evaporator",
                (False, True): "condenser", (True, True): "both"}[(evap_high, cond_high)]
        assert s.answer["fouling_suspected"] == side
        seen.add(side)
    assert seen - {"none"}, "no draw found a fouled side"


def _hand_diagnosis(r: dict[str, Any], plate: dict[str, Any]) -> list[str]:
    """The service rules of the chiller tools' contract, worked on one raw record."""
    load = r["percent_loaded"]
    offset = r["supply_temperature"] - r["setpoint_temperature"]
    findings = []
    drift = offset >= 1.0 and load < 95.0  # supply 1 K over setpoint below full load
    if drift:
        findings.append("sensor_drift")
    # with drift the evaporator approach is taken from the setpoint; at >= 95 % load with the
    # supply 1 K over setpoint the evaporator is not assessed
    assessed = not (offset >= 1.0 and load >= 95.0)
    leaving = r["setpoint_temperature"] if drift else r["supply_temperature"]
    evap_rise = (leaving - r["evaporator_refrigerant_temperature"]
                 - plate["design_evaporator_approach_k"] * load / 100.0)
    cond_rise = (r["condenser_refrigerant_temperature"] - r["condenser_water_return_temperature"]
                 - plate["design_condenser_approach_k"] * load / 100.0)
    # subcooling shift = (condenser saturation − liquid) − design subcooling
    shift = (r["condenser_refrigerant_temperature"] - r["condenser_liquid_temperature"]
             - plate["design_subcooling_k"])
    if cond_rise >= THREE_F_K:
        findings.append("purge_problem" if shift >= FIVE_F_K else "condenser_fouling")
    if assessed and evap_rise >= THREE_F_K:
        findings.append("low_refrigerant_charge" if shift <= -FIVE_F_K else "evaporator_fouling")
    # discharge superheat = discharge − condenser saturation; overheating at design + 10 K
    superheat = r["discharge_temperature"] - r["condenser_refrigerant_temperature"]
    if superheat >= plate["design_discharge_superheat_k"] + 10.0:
        findings.append("compressor_overheating")
    return sorted(findings) or ["normal"]


# -- multiagent -----------------------------------------------------------------------------


async def test_diagnosis_to_action_worked_from_raw_documents(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Raw
) -> None:
    outcomes = set()
    code_of = {c["fault_type"]: c["code"] for c in raw.failure_codes() if c.get("fault_type")}
    for s in await _draw("chiller_ma_diagnosis_to_action", chiller_settings, profile, 6):
        p = s.params
        r = raw.record(p["asset_id"], p["timestamp"])
        findings = _hand_diagnosis(r, raw.nameplate(p["asset_id"]))
        assert s.answer["findings"] == findings
        codes = sorted(code_of[f] for f in findings if f != "normal")
        assert s.answer["failure_codes"] == codes
        # corrective work counts as raised when reported from 14 days before the hour up to
        # the hour's end (an order reported later did not exist when the reading came in)
        since = (datetime.fromisoformat(p["timestamp"]) - timedelta(days=14)).isoformat()
        until = (datetime.fromisoformat(p["timestamp"]) + timedelta(hours=1)).isoformat()
        raised = {o["primary_code"] for o in raw.work_orders(p["asset_id"])
                  if o["wo_type"] == "corrective" and since <= o["reported_date"] < until}
        assert s.answer["codes_to_raise"] == [c for c in codes if c not in raised]
        outcomes.add(s.outcome)
    assert outcomes & {"raise", "raised"}, "no draw found a fault"


# -- tsfm -----------------------------------------------------------------------------------


async def test_seasonal_naive_forecast_repeats_the_last_raw_day(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Raw
) -> None:
    seeds = [s for s in await _draw("chiller_tsfm_forecast", chiller_settings, profile, 16)
             if s.params["method"] == "seasonal_naive"]
    assert seeds
    for s in seeds:
        p = s.params
        docs = raw.telemetry(p["asset_id"], p["start"], p["end"])
        y = [d[p["sensor"]] for d in docs]
        n, m, h = len(y), 24, p["horizon"]
        # seasonal naive (Hyndman & Athanasopoulos): ŷ(n+h) = y(n + h − m·(⌊(h−1)/m⌋ + 1)),
        # 1-based; 0-based that is y[n − m + (h − 1) mod m]
        forecast = [y[n - m + (k - 1) % m] for k in range(1, h + 1)]
        assert s.answer["value"] == pytest.approx(forecast[-1], abs=1e-9)
        assert s.answer["peak"] == pytest.approx(max(forecast), abs=1e-9)
        # the last forecast hour is h hours after the last record of the window
        last = datetime.fromisoformat(docs[-1]["timestamp"])
        assert s.answer["timestamp"][:19] == (last + timedelta(hours=h)).isoformat()


# -- wo -------------------------------------------------------------------------------------


async def test_corrective_window_matches_the_raw_work_orders(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Raw
) -> None:
    nonempty = 0
    for s in await _draw("chiller_wo_corrective_window", chiller_settings, profile, 8):
        p = s.params
        # corrective work orders reported in [start, end): start <= reported_date < end
        hits = {o["wo_id"]: o["primary_code"] for o in raw.work_orders(p["asset_id"])
                if o["wo_type"] == "corrective" and p["start"] <= o["reported_date"] < p["end"]}
        assert s.answer == {"count": len(hits), "work_orders": hits}
        nonempty += bool(hits)
    assert nonempty, "no window held corrective work"
