"""A minimal :class:`AssetProfile` around a grounded inventory, for the family tests of any
class (no literature, no LLM)."""

from __future__ import annotations

from generator.assetdef import AssetClass
from generator.profile.grounding import failure_mode_profiles
from generator.profile.model import (
    AssetProfile,
    DomainSupport,
    GroundedInventory,
    ProfileProvenance,
)


def profile_from_inventory(
    asset: AssetClass, inventory: GroundedInventory, created_at: str = "2026-11-30T00:00:00Z"
) -> AssetProfile:
    """A minimal profile of ``asset`` around ``inventory``: every domain supported, no
    themes, standards, evidence or references."""
    return AssetProfile(
        asset_class=asset.asset_class,
        display_name=asset.display_name,
        description=asset.description,
        generation_mode="open_form",
        inventory=inventory,
        failure_modes=failure_mode_profiles(asset, inventory),
        supported_domains=[
            DomainSupport(domain=d, supported=True, tools=[], reason="test") for d in asset.domains
        ],
        unsupported_domains=[],
        task_themes=[],
        standards=[],
        evidence=[],
        references=[],
        provenance=ProfileProvenance(
            created_at=created_at, generator_version="test", retriever="local",
            retrievers_used=[], llm="none", prompt_version="test", cache_key="test",
            store_url="http://test",
        ),
    )
