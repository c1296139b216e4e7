"""Golden tests of the chiller lookup families, worked by hand from the raw seeded documents.

Each test draws the family on the small seeded fleet, reads the raw documents with a plain
client (no tool, no ``derive``) and recomputes the answer with the rule in the comments.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import date
from itertools import pairwise
from typing import Any

import pytest

from generator.config import StoreSettings
from generator.generate.draw.families import FAMILIES, draw_many, load_families
from generator.generate.model import TaskSeed
from generator.profile.model import AssetProfile
from generator.store.couch import CouchClient
from generator.store.seed import database_names
from tests.assets.chiller.chiller_fleet import (
    ASSET,
    SPEC_ARGS,
    chiller_context,
    chiller_profile,
    seed_chiller,
)

RUN_SEED = 31


@pytest.fixture(scope="module")
def chiller_settings(settings_for: Callable[..., StoreSettings]) -> StoreSettings:
    return seed_chiller(settings_for)


@pytest.fixture(scope="module")
async def profile(chiller_settings: StoreSettings) -> AssetProfile:
    return await chiller_profile(chiller_settings)


@pytest.fixture(scope="module")
def raw(chiller_settings: StoreSettings) -> Any:
    client = CouchClient(chiller_settings)
    db = database_names(ASSET, chiller_settings.db_prefix)

    def find(dataset: str, **sel: str) -> list[dict[str, Any]]:
        return client.find(db["workorders"], {"dataset": dataset, **sel})

    find.client = client  # type: ignore[attr-defined]
    find.db = db  # type: ignore[attr-defined]
    yield find
    client.close()


async def _draw(name: str, settings: StoreSettings, profile: AssetProfile,
                count: int = 6) -> list[TaskSeed]:
    load_families(ASSET)
    ctx = chiller_context(profile, settings, RUN_SEED)
    seeds = await draw_many(FAMILIES.get(name), ctx, 0, count, count * 8)
    assert seeds, name
    return seeds


async def test_fleet_layout_finds_the_unit_and_counts(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Any
) -> None:
    # the fleet spec: 2 sites × 4 units; the nameplate documents say which site each is at
    plates = [d for d in raw.client.all_docs(raw.db["nameplate"]) if "site_name" in d]
    per_site = Counter(d["site_name"] for d in plates)
    assert sorted(per_site.values()) == [SPEC_ARGS["units_per_site"]] * SPEC_ARGS["sites"]
    site_of = {d["asset_id"]: d["site_name"] for d in plates}
    for s in await _draw("chiller_iot_fleet_layout", chiller_settings, profile):
        home = site_of[s.params["asset_id"]]
        assert s.answer == {"site": home, "units_at_site": per_site[home], "sites": 2}


async def test_sensor_list_counts_the_raw_record_fields(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Any
) -> None:
    seen = set()
    for s in await _draw("chiller_iot_sensor_list", chiller_settings, profile, 8):
        doc = raw.client.find(raw.db["telemetry"], {"asset_id": s.params["asset_id"]})[0]
        # a telemetry record's fields less its keys are the streamed quantities (16 in
        # asset.yaml: supply ... discharge temperature)
        fields = set(doc) - {"_id", "_rev", "asset_class", "asset_id", "site_name", "timestamp"}
        assert len(fields) == len(ASSET.sensors) == 16
        assert s.answer == {"sensor_count": 16, "streams_sensor": s.params["sensor"] in fields}
        seen.add(s.answer["streams_sensor"])
    assert seen == {True, False}  # both a fitted and an absent sensor were asked


async def test_window_orders_split_planned_and_corrective(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Any
) -> None:
    for s in await _draw("chiller_wo_window_orders", chiller_settings, profile):
        p = s.params
        # work orders with start <= reported_date < end; preventive ones are planned
        docs = [o for o in raw("wo_events", equipment_id=p["asset_id"])
                if p["start"] <= o["reported_date"] < p["end"]]
        planned = sum(1 for o in docs if o["wo_type"] == "preventive")
        assert s.answer == {"count": len(docs), "preventive": planned,
                            "corrective": len(docs) - planned}


async def test_planned_visits_count_and_latest(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Any
) -> None:
    for s in await _draw("chiller_wo_planned_visits", chiller_settings, profile):
        docs = raw("wo_events", equipment_id=s.params["asset_id"])
        dates = sorted(o["reported_date"] for o in docs if o["wo_type"] == "preventive")
        assert s.answer == {"count": len(dates), "latest": dates[-1][:10] if dates else None}


async def test_code_mix_counts_primary_codes(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Any
) -> None:
    for s in await _draw("chiller_wo_code_mix", chiller_settings, profile):
        docs = raw("wo_events", equipment_id=s.params["asset_id"])
        codes = Counter(o["primary_code"] for o in docs)
        assert s.answer == {"total": sum(codes.values()), "by_code": dict(sorted(codes.items()))}


async def test_event_log_counts_alerts_and_work_orders(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Any
) -> None:
    for s in await _draw("chiller_wo_event_log", chiller_settings, profile):
        p = s.params
        events = [e for e in raw("events", equipment_id=p["asset_id"])
                  if p["start"] <= e["event_time"] < p["end"]]
        alerts = [e for e in events if e["event_group"] == "ALERT"]
        assert s.answer == {"alerts": len(alerts), "work_orders": len(events) - len(alerts),
                            "alert_types": sorted({e["event_type"] for e in alerts})}


async def test_next_code_by_the_markov_rule_worked_by_hand(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Any
) -> None:
    orders = raw("wo_events")
    seqs: dict[str, list[str]] = {}
    for o in sorted(orders, key=lambda o: (o["reported_date"], o["wo_id"])):
        seqs.setdefault(o["equipment_id"], []).append(o["primary_code"])
    codes = {c["code"] for c in raw("failure_codes")} | {o["primary_code"] for o in orders}
    for s in await _draw("chiller_wo_next_code", chiller_settings, profile, 4):
        own = seqs[s.params["asset_id"]]
        a = own[-1]
        # n[a][b]: own transitions a -> b; f[a][b]: the fleet's (every unit, own included)
        n = Counter(y for x, y in pairwise(own) if x == a)
        f = Counter(y for seq in seqs.values() for x, y in pairwise(seq) if x == a)
        # q(b|a) = (f[a][b] + 1) / (f[a] + |C|);  P(b|a) = (n[a][b] + q) / (n[a] + 1)
        p = {b: (n[b] + (f[b] + 1) / (sum(f.values()) + len(codes))) / (sum(n.values()) + 1)
             for b in codes}
        best = max(p, key=lambda b: (p[b], [-ord(ch) for ch in b]))
        assert s.answer == {"last_code": a, "predicted_code": best,
                            "probability": round(p[best], 4)}


async def test_catalogue_lists_the_documented_methods(
    chiller_settings: StoreSettings, profile: AssetProfile
) -> None:
    # docs/tools.md (tsfm): anomaly detection by a robust z-score on a weekday × hour
    # baseline; forecasting by seasonal naive and Holt-Winters
    s = (await _draw("chiller_tsfm_catalogue", chiller_settings, profile, 1))[0]
    assert s.answer["tasks"] == ["anomaly detection", "forecasting"]
    methods = " ".join(s.answer["forecasting_methods"]).lower()
    assert "holt-winters" in methods and "seasonal naive" in methods
    assert len(s.answer["forecasting_methods"]) == 2


async def test_sensor_modes_from_the_class_definition(
    chiller_settings: StoreSettings, profile: AssetProfile
) -> None:
    # asset.yaml failure_modes: a mode is revealed by the sensors it lists, e.g.
    # discharge_temperature -> compressor overheating only; six modes in all
    by_sensor: dict[str, list[str]] = {}
    for mode in ASSET.failure_modes:
        for sensor in mode.sensors:
            by_sensor.setdefault(sensor, []).append(mode.name)
    assert by_sensor["discharge_temperature"] == ["Compressor overheating"]
    for s in await _draw("chiller_fmsr_sensor_modes", chiller_settings, profile):
        assert s.answer == {"failure_modes": sorted(by_sensor.get(s.params["sensor"], [])),
                            "of_total": 6}


async def test_iplv_by_the_ahri_formula(
    chiller_settings: StoreSettings, profile: AssetProfile
) -> None:
    # AHRI 550/590 (I-P), kW/ton: IPLV = 1 / (0.01/A + 0.42/B + 0.45/C + 0.12/D).
    # Worked once: A..D = 0.6, 0.45, 0.4, 0.5 -> 1 / (0.016667 + 0.933333 + 1.125 + 0.24)
    # = 1 / 2.315 = 0.43197
    assert abs(1 / (0.01 / 0.6 + 0.42 / 0.45 + 0.45 / 0.4 + 0.12 / 0.5) - 0.43197) < 1e-5
    for s in await _draw("chiller_fmsr_iplv", chiller_settings, profile):
        a, b, c, d = s.params["kw_per_ton"]
        expected = 1 / (0.01 / a + 0.42 / b + 0.45 / c + 0.12 / d)
        assert abs(s.answer["iplv_kw_per_ton"] - expected) <= 1e-4
        for text in (s.params["a"], s.params["b"], s.params["c"], s.params["d"]):
            assert text in s.mentions  # the text states the four points


async def test_record_gaps_count_the_hours_without_a_record(
    chiller_settings: StoreSettings, profile: AssetProfile, raw: Any
) -> None:
    client, db = raw.client, raw.db
    seeds = await _draw("chiller_iot_record_gaps", chiller_settings, profile, 3)
    assert seeds
    for s in seeds:
        p = s.params
        # Expected: every whole hour from start (00:00) up to the end midnight, excluded:
        # 24 per day of the window. Present: the distinct hours of the unit's raw records.
        days = (date.fromisoformat(p["end"]) - date.fromisoformat(p["start"])).days
        docs = client.find(db["telemetry"], {"asset_id": p["asset_id"]})
        hours = {str(d["timestamp"])[:13] for d in docs
                 if p["start"] <= str(d["timestamp"])[:10] < p["end"]}
        assert s.answer["expected_hours"] == 24 * days
        assert s.answer["records"] == len(hours)
        assert s.answer["missing_hours"] == 24 * days - len(hours)
        assert (s.answer["gaps"] == []) == (len(hours) == 24 * days)
