"""Golden test of ``chiller_wo_alert_to_failure`` on a seeded fleet where alerts are followed
by more than one corrective order: the reference's lead time runs to the first order after
each alert (as the text states), worked out by hand from the raw documents."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from assets.chiller.families_wo import FIRST_ORDER_NOTE
from generator.config import StoreSettings
from generator.generate.draw.families import FAMILIES, draw_many, load_families
from generator.profile.model import AssetProfile
from generator.store.couch import CouchClient
from generator.store.seed import database_names
from tests.assets.chiller.chiller_fleet import (
    ASSET,
    chiller_context,
    chiller_profile,
    seed_chiller,
)

EXTRA_AFTER = timedelta(hours=1)  # a second corrective order 1 h after each first one


def _iso(t: datetime) -> str:
    return t.isoformat()


@pytest.fixture(scope="module")
def twice_settings(settings_for: Callable[..., StoreSettings]) -> StoreSettings:
    """The small seeded fleet, plus a second corrective order reported 1 h after the first
    corrective order that follows each alert within a day (so within every horizon the
    family draws, 2 to 14 days, both orders follow the alert)."""
    settings = seed_chiller(settings_for)
    db = database_names(ASSET, settings.db_prefix)["workorders"]
    with CouchClient(settings) as client:
        alerts = client.find(db, {"dataset": "alert_events"})
        orders = [o for o in client.find(db, {"dataset": "wo_events"})
                  if o["wo_type"] == "corrective"]
        extra: dict[str, dict[str, Any]] = {}
        for a in alerts:
            t = datetime.fromisoformat(str(a["start_time"])[:19])
            after = sorted((str(o["reported_date"]), o) for o in orders
                           if o["equipment_id"] == a["equipment_id"]
                           and t < datetime.fromisoformat(str(o["reported_date"])[:19])
                           <= t + timedelta(days=1))
            if not after:
                continue
            first = after[0][1]
            wo_id = f"{first['wo_id']}-B"
            when = datetime.fromisoformat(str(first["reported_date"])[:19]) + EXTRA_AFTER
            extra[wo_id] = {k: v for k, v in first.items() if k not in ("_id", "_rev")} | {
                "_id": f"golden:{wo_id}", "wo_id": wo_id, "reported_date": _iso(when)}
        assert extra, "no alert of the seeded fleet is followed within a day"
        client.bulk_docs(db, list(extra.values()))
    return settings


@pytest.fixture(scope="module")
async def twice_profile(twice_settings: StoreSettings) -> AssetProfile:
    return await chiller_profile(twice_settings)


async def test_lead_time_runs_to_the_first_of_several_orders(
    twice_settings: StoreSettings, twice_profile: AssetProfile
) -> None:
    load_families(ASSET)
    ctx = chiller_context(twice_profile, twice_settings, 29)
    seeds = await draw_many(FAMILIES.get("chiller_wo_alert_to_failure"), ctx, 0, 10, 80)
    assert seeds
    db = database_names(ASSET, twice_settings.db_prefix)["workorders"]
    with CouchClient(twice_settings) as client:
        every_alert = client.find(db, {"dataset": "alert_events"})
        every_order = client.find(db, {"dataset": "wo_events"})
    several = 0
    for s in seeds:
        p = s.params
        assert p["note"] == FIRST_ORDER_NOTE
        # Alerts with start <= start_time < end; corrective orders with
        # alert < reported_date <= alert + N days (after the window's end too).
        alerts = sorted(str(a["start_time"]) for a in every_alert
                        if a["equipment_id"] == p["asset_id"]
                        and p["start"] <= str(a["start_time"]) < p["end"])
        orders = sorted((str(o["reported_date"]), str(o["wo_id"])) for o in every_order
                        if o["equipment_id"] == p["asset_id"] and o["wo_type"] == "corrective")
        leads, firsts = [], set()
        for a in alerts:
            t = datetime.fromisoformat(a[:19])
            hits = [(w, i) for w, i in orders
                    if t < datetime.fromisoformat(w[:19]) <= t + timedelta(days=p["within_days"])]
            several += len(hits) > 1
            if hits:  # lead time = hours from the alert to the first of them only
                leads.append((datetime.fromisoformat(hits[0][0][:19]) - t).total_seconds() / 3600)
                firsts.add(hits[0][1])
        assert s.answer["alerts"] == len(alerts)
        assert s.answer["followed"] == len(leads)
        assert s.answer["work_orders"] == sorted(firsts)
        if leads:
            assert s.answer["mean_lead_time_hours"] == pytest.approx(sum(leads) / len(leads))
        else:
            assert s.answer["mean_lead_time_hours"] is None
    assert several, "no drawn window held an alert followed by two corrective orders"
