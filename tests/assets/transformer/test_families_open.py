"""Open (rubric) families of the transformer class over the seeded test fleet."""

from __future__ import annotations

import pytest

from generator.config import StoreSettings
from generator.generate.families import FAMILIES, draw_many, load_families, recompute
from generator.generate.model import TaskSeed
from generator.profile.model import AssetProfile
from tests.generator.generate.test_families import ASSET, family_context, grounded_profile

RUN_SEED = 11
OPEN = ("open_dga_disagreement", "open_outage_bundle", "ma_open_maintenance_plan")


@pytest.fixture(scope="module")
async def profile(seeded_settings: StoreSettings) -> AssetProfile:
    return await grounded_profile(seeded_settings)


@pytest.fixture(scope="module")
async def seeds(seeded_settings: StoreSettings, profile: AssetProfile) -> dict[str, list[TaskSeed]]:
    load_families(ASSET)
    ctx = family_context(profile, seeded_settings, RUN_SEED)
    return {name: await draw_many(FAMILIES.get(name), ctx, 0, 4, 40) for name in OPEN}


def test_debug(seeds: dict[str, list[TaskSeed]]) -> None:
    for name, drawn in seeds.items():
        print(name, len(drawn))
        for s in drawn[:2]:
            print(s.answer)
            print(s.rubric)
    assert False
