"""Natural draws of every family of an asset class, for fitting the difficulty cut points.

The cut points (:data:`generator.generate.draw.difficulty.CUTS_BY_DOMAIN`) follow a rule on the
scores of a domain's *natural* draws: what each family draws on the seeded fleet, without the
run's hard share or non-trivial targets steering the choice. This module draws them: up to
``per_family`` distinct seeds of every single-domain family (draw indices in order, the run
seed fixed), and for a multi-agent family that composes from a parent, its composition from
each of the parent's natural draws. Every family weighs alike, as in a run's candidate
stream where the families take turns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from generator.generate.draw.difficulty import cuts_for, cuts_from_scores, level_shares

if TYPE_CHECKING:
    from generator.assetdef import AssetClass
    from generator.config import StoreSettings
    from generator.generate.model import TaskSeed


class DomainCuts(BaseModel):
    """One domain's natural-draw scores and its cut points (current and fitted)."""

    model_config = ConfigDict(extra="forbid")

    draws: int = Field(description="Natural draws scored")
    families: int = Field(description="Families that drew at least one seed")
    cuts_now: tuple[float, float] = Field(description="The generator's cut points")
    shares_now: dict[str, float] = Field(description="Level shares under cuts_now")
    cuts_fitted: tuple[float, float] | None = Field(
        description="Cut points by the rule (difficulty.cuts_from_scores); None: too few draws"
    )
    shares_fitted: dict[str, float] | None = Field(description="Level shares under cuts_fitted")


async def natural_seeds(
    asset: AssetClass, settings: StoreSettings, per_family: int, run_seed: int
) -> dict[str, list[TaskSeed]]:
    """Up to ``per_family`` distinct natural draws per family, by domain."""
    from generator.generate.draw.families import (
        FAMILIES,
        FamilyContext,
        compose_seed,
        draw_many,
        families_of,
    )
    from generator.profile.build import build_profile
    from generator.store.snapshot import FleetSnapshot
    from generator.tools.registry import ToolContext, load_tools

    load_tools()
    profile = await build_profile(asset.asset_class, settings=settings)
    snapshot = await FleetSnapshot.aload(asset, settings)
    ctx = FamilyContext(profile, ToolContext(asset, settings, store=snapshot), run_seed)
    tries = per_family * 4
    out: dict[str, list[TaskSeed]] = {}
    for domain in asset.domains:
        seeds: list[TaskSeed] = []
        for spec in families_of(asset, domain):
            if spec.compose_from:
                parent = FAMILIES.get(spec.compose_from[0])
                parents = await draw_many(parent, ctx, 0, per_family, tries)
                for i, p in enumerate(parents):
                    composed = await compose_seed(spec, [p], ctx, i)
                    if composed is not None:
                        seeds.append(composed)
            else:
                seeds.extend(await draw_many(spec, ctx, 0, per_family, tries))
        out[domain] = seeds
    return out


def fit_domains(seeds: dict[str, list[TaskSeed]]) -> dict[str, DomainCuts]:
    """Per domain: current and fitted cut points with the level shares each gives."""
    out: dict[str, DomainCuts] = {}
    for domain, mine in seeds.items():
        scores = [float(s.difficulty_score or 0.0) for s in mine]
        if not scores:
            continue
        fitted = cuts_from_scores(scores)
        out[domain] = DomainCuts(
            draws=len(scores),
            families=len({s.family for s in mine}),
            cuts_now=cuts_for(domain),
            shares_now=level_shares(scores, cuts_for(domain)),
            cuts_fitted=fitted,
            shares_fitted=level_shares(scores, fitted) if fitted else None,
        )
    return out
