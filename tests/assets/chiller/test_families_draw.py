"""Chiller task families over a small seeded fleet: every family draws distinct, reproducible
seeds whose answers recompute from the tools."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from generator.config import StoreSettings
from generator.generate.families import (
    draw_many,
    families_of,
    load_families,
    params_key,
    recompute,
)
from generator.generate.model import TaskSeed
from generator.profile.model import AssetProfile
from tests.assets.chiller.chiller_fleet import (
    ASSET,
    chiller_context,
    chiller_profile,
    seed_chiller,
)

RUN_SEED = 13
PER_FAMILY = 5


@pytest.fixture(scope="module")
def chiller_settings(settings_for: Callable[..., StoreSettings]) -> StoreSettings:
    return seed_chiller(settings_for)


@pytest.fixture(scope="module")
async def profile(chiller_settings: StoreSettings) -> AssetProfile:
    return await chiller_profile(chiller_settings)


@pytest.fixture(scope="module")
async def seeds(chiller_settings: StoreSettings, profile: AssetProfile) -> dict[str, list[TaskSeed]]:
    load_families(ASSET)
    ctx = chiller_context(profile, chiller_settings, RUN_SEED)
    out = {}
    for spec in families_of(ASSET):
        out[spec.name] = await draw_many(spec, ctx, 0, PER_FAMILY, PER_FAMILY * 8)
    return out


def test_explore(seeds: dict[str, list[TaskSeed]]) -> None:
    for name, drawn in seeds.items():
        print(name, len(drawn))
        for s in drawn[:5]:
            print("   ", s.answer_summary, s.outcome)
