"""A small seeded chiller fleet for the family tests (one per test module, own prefix)."""

from __future__ import annotations

import uuid
from datetime import date

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.generate.draw.families import FamilyContext
from generator.profile.grounding import ground
from generator.profile.model import AssetProfile
from generator.store.couch import CouchClient
from generator.store.seed import seed
from generator.tools.registry import ToolContext, load_tools
from tests.family_profile import profile_from_inventory

ASSET = load_asset_class("chiller")
# 2 sites × 4 units × 45 days: every failure mode once plus two healthy units (the
# simulator deals the modes from a seeded cycle), onsets in days 11-22, so alerts and
# corrective work orders fall inside the data.
SPEC_ARGS = {"seed": 5, "sites": 2, "units_per_site": 4, "days": 45, "start": date(2025, 6, 1)}


def seed_chiller(settings_for: object) -> StoreSettings:
    """Seed the fleet under a fresh prefix and return the settings that read it."""
    from assets.chiller.simulator import FleetSpec

    make = settings_for  # the conftest factory: settings_for(prefix, role="admin")
    settings: StoreSettings = make(f"c{uuid.uuid4().hex[:8]}_")  # type: ignore[operator]
    with CouchClient(settings) as client:
        seed(client, ASSET, FleetSpec(**SPEC_ARGS), prefix=settings.db_prefix)
    return settings


async def chiller_profile(settings: StoreSettings) -> AssetProfile:
    """The grounded profile of the seeded chiller fleet."""
    inventory = await ground(ASSET, settings)
    if inventory is None:
        raise RuntimeError("the seeded store holds no chiller data")
    return profile_from_inventory(ASSET, inventory, created_at="2026-12-01T00:00:00Z")


def chiller_context(profile: AssetProfile, settings: StoreSettings, run_seed: int) -> FamilyContext:
    """A fresh family context over the seeded fleet (tools loaded)."""
    load_tools()
    return FamilyContext(profile, ToolContext(ASSET, settings), run_seed)
