"""Every tool an asset class registers is used by at least one of its families (issue 15, 6).

The families are drawn, not read: each registered family of the class (whoever added it)
is drawn at a few indices over a small seeded fleet and the tool names of the seeds' expected
calls are collected. A tool no family's draws call is a tool no scenario tests.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

import pytest

from generator.assetdef import available_asset_classes, load_asset_class
from generator.config import StoreSettings
from generator.generate.draw.families import FamilyContext, draw_seed, families_of
from generator.generate.draw.operate_run import draw_operate
from generator.profile.grounding import ground
from generator.store.couch import CouchClient
from generator.store.seed import seed
from generator.tools.registry import ToolContext, load_tools, tools_for
from tests.family_profile import profile_from_inventory

DRAWS = 8  # draw indices per family: enough for every variant of today's families
# A fleet with every failure mode of either class once (chiller: 8 units deal all six modes).
FLEET = {"seed": 5, "sites": 2, "units_per_site": 4, "days": 45}


def _settings(asset_class: str, seeded: StoreSettings, settings_for: Callable[..., StoreSettings]
              ) -> StoreSettings:
    if asset_class == "transformer":
        return seeded  # the session's seeded fleet
    asset = load_asset_class(asset_class)
    if asset.fleet_spec is None:
        pytest.skip(f"{asset_class} has no simulator to seed a fleet from")
    spec_cls = asset.load_fleet_spec()
    settings = settings_for(f"v{uuid.uuid4().hex[:8]}_")
    with CouchClient(settings) as client:
        seed(client, asset, spec_cls(**FLEET), prefix=settings.db_prefix)
    return settings


async def _used_tools(asset_class: str, settings: StoreSettings) -> dict[str, set[str]]:
    asset = load_asset_class(asset_class)
    inventory = await ground(asset, settings)
    assert inventory is not None, f"the seeded store holds no {asset_class} data"
    profile = profile_from_inventory(asset, inventory, created_at="2026-12-01T00:00:00Z")
    load_tools()
    ctx = FamilyContext(profile, ToolContext(asset, settings), run_seed=11)
    used: dict[str, set[str]] = {}
    for spec in families_of(asset):
        for draw in range(DRAWS):
            drawn = await draw_seed(spec, ctx, draw)
            if drawn is not None:
                for call in drawn.tool_sequence:
                    used.setdefault(call.name, set()).add(spec.name)
    # operate families (generator/operate) build their own records: count their calls too
    run = await draw_operate(asset_class, list(asset.tools), ctx.tools.store, n=2, run_seed=11)
    for record in run.records:
        for call in record.tool_sequence:
            used.setdefault(call.name, set()).add(str(record.family))
    return used


@pytest.mark.parametrize("asset_class", available_asset_classes())
def test_every_registered_tool_is_used_by_a_family(
    asset_class: str, seeded_settings: StoreSettings, settings_for: Callable[..., StoreSettings]
) -> None:
    settings = _settings(asset_class, seeded_settings, settings_for)
    used = asyncio.run(_used_tools(asset_class, settings))
    registered = set(tools_for(asset_class))
    assert used, f"no family of {asset_class} drew a seed"
    assert set(used) <= registered  # a family calls only tools its class serves
    unused = sorted(registered - set(used))
    assert unused == [], f"{asset_class} tools no family uses: {', '.join(unused)}"
