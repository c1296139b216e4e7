"""On the default seeded fleet, the tools diagnose every injected fault and flag no healthy unit.

The agent's path: `oil_samples` for the unit, then `interpret_dga` on the latest sample;
the answer is checked against the ground truth kept in its separate database.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from assets.transformer.simulator import FleetSpec
from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.store.couch import CouchClient
from generator.store.seed import seed
from generator.tools.registry import ToolContext, call_tool

ASSET = load_asset_class("transformer")


@pytest.fixture
async def ctx(store_settings: StoreSettings) -> AsyncIterator[ToolContext]:
    with CouchClient(store_settings) as client:
        seed(client, ASSET, FleetSpec(seed=42, sites=3, units_per_site=4, days=35),
             prefix=store_settings.db_prefix)
    context = ToolContext(ASSET, store_settings)
    yield context
    context.close()


async def test_every_fault_diagnosed_and_no_healthy_unit_flagged(ctx: ToolContext) -> None:
    truth = {t["asset_id"]: t for t in await ctx.store.ground_truth()}
    assert len(truth) == 12
    faulty = 0
    for asset_id, t in sorted(truth.items()):
        samples = await call_tool("oil_samples", {
            "site_name": t["site_name"], "asset_id": asset_id, "start": "2026-06-01"}, ctx)
        latest = samples.model_dump()["records"][-1]
        diagnosis = await call_tool("interpret_dga", {
            "asset_name": asset_id, **{g: latest[g] for g in (
                "hydrogen", "methane", "ethane", "ethylene", "acetylene", "co", "co2")}}, ctx)
        got = diagnosis.model_dump()["fault_type"]
        if t["fault_type"] == "none":
            assert got == "normal", (asset_id, latest)
        else:
            faulty += 1
            assert got == t["fault_type"], (asset_id, latest)
    assert faulty == 6
