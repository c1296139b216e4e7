"""run_tsad on the seeded small fleet finds the truth events and not the weekly load dip.

Fleet: tests/conftest.py ``seeded_settings`` (seed 7, 2 sites × 3 units, 30 days). Truth
events are the overload episode (72 h from its start), trips (the outage that follows) and
WTI alarms, all read from the store's truth database and alert events.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.tools.registry import ToolContext, call_tool

ASSET = load_asset_class("transformer")
SENSORS = ("load_mva", "wti", "oti")


@pytest.fixture
async def ctx(seeded_settings: StoreSettings) -> AsyncIterator[ToolContext]:
    context = ToolContext(ASSET, seeded_settings)
    yield context
    context.close()


async def _flags(ctx: ToolContext, site: str, asset_id: str, sensor: str) -> list[dict[str, Any]]:
    out = await call_tool(
        "run_tsad",
        {"site_name": site, "asset_id": asset_id, "sensor": sensor, "start": "2026-06-01"},
        ctx,
    )
    return list(out.model_dump()["anomalies"])


def _at(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


async def test_flags_find_truth_events_and_are_not_weekend_dips(ctx: ToolContext) -> None:
    truth = await ctx.store.ground_truth()
    overloaded = [t for t in truth if t["overload_episode_start"]]
    assert overloaded, "the small fleet should hold an overload episode"
    outside: list[datetime] = []
    for t in truth:
        aid, site = t["asset_id"], t["site_name"]
        events: list[tuple[datetime, datetime]] = []
        if t["overload_episode_start"]:
            start = _at(t["overload_episode_start"])
            events.append((start, start + timedelta(hours=72)))
        for trip in t["trips"]:
            events.append((_at(trip) - timedelta(hours=1), _at(trip) + timedelta(hours=10)))
        flags = {s: await _flags(ctx, site, aid, s) for s in SENSORS}
        # The overload: its heaviest hour is flagged on load.
        if t["overload_episode_start"]:
            start = _at(t["overload_episode_start"])
            rows = await ctx.store.history(
                aid, start.isoformat(), (start + timedelta(hours=72)).isoformat(), ["load_mva"]
            )
            peak = max(rows, key=lambda r: float(r["load_mva"]))["timestamp"]
            assert peak in {a["timestamp"] for a in flags["load_mva"]}, (aid, peak)
        # Every WTI alarm has a WTI flag within 3 hours.
        for alert in await ctx.store.alerts(aid):
            if alert["rule_id"] != "WTI_ALARM":
                continue
            at = _at(alert["start_time"])
            near = [a for a in flags["wti"] if abs(_at(a["timestamp"]) - at) <= timedelta(hours=3)]
            assert near, (aid, alert["start_time"])
            events.append((at - timedelta(hours=3), at + timedelta(hours=3)))
        for sensor in SENSORS:
            outside += [
                _at(a["timestamp"])
                for a in flags[sensor]
                if not any(lo <= _at(a["timestamp"]) < hi for lo, hi in events)
            ]
    # Away from the truth events, flags are not weekend dips: Saturdays and Sundays hold
    # 2/7 ≈ 29 % of the hours and the daily-profile method put most flags there; the
    # weekly baseline must put well under that share on them.
    weekend = sum(d.weekday() >= 5 for d in outside)
    assert outside and weekend / len(outside) < 0.15, (weekend, len(outside))
