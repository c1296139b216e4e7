"""A small seeded chiller fleet for the family tests (one per test module, own prefix)."""

from __future__ import annotations

import uuid
from datetime import date

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.generate.families import FamilyContext
from generator.profile.grounding import failure_mode_profiles, ground
from generator.profile.model import (
    AssetProfile,
    DomainSupport,
    GroundedInventory,
    ProfileProvenance,
)
from generator.store.couch import CouchClient
from generator.store.seed import seed
from generator.tools.registry import ToolContext, load_tools

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


def profile_from_inventory(inventory: GroundedInventory) -> AssetProfile:
    """A minimal chiller profile around a grounded inventory (no literature, no LLM)."""
    return AssetProfile(
        asset_class=ASSET.asset_class,
        display_name=ASSET.display_name,
        description=ASSET.description,
        generation_mode="open_form",
        inventory=inventory,
        failure_modes=failure_mode_profiles(ASSET, inventory),
        supported_domains=[
            DomainSupport(domain=d, supported=True, tools=[], reason="test") for d in ASSET.domains
        ],
        unsupported_domains=[],
        task_themes=[],
        standards=[],
        evidence=[],
        references=[],
        provenance=ProfileProvenance(
            created_at="2026-12-01T00:00:00Z", generator_version="test", retriever="local",
            retrievers_used=[], llm="none", prompt_version="test", cache_key="test",
            store_url="http://test",
        ),
    )


async def chiller_profile(settings: StoreSettings) -> AssetProfile:
    """The grounded profile of the seeded chiller fleet."""
    inventory = await ground(ASSET, settings)
    if inventory is None:
        raise RuntimeError("the seeded store holds no chiller data")
    return profile_from_inventory(inventory)


def chiller_context(profile: AssetProfile, settings: StoreSettings, run_seed: int) -> FamilyContext:
    """A fresh family context over the seeded fleet (tools loaded)."""
    load_tools()
    return FamilyContext(profile, ToolContext(ASSET, settings), run_seed)
