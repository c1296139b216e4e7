"""`--negatives 16` covers eight kinds per class, each verified, worded apart per run seed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.generate.negatives import build_negatives, kinds_for, verify_negative
from generator.profile.model import AssetProfile
from generator.tools.registry import ToolContext, load_tools
from tests.assets.chiller.chiller_fleet import chiller_profile, seed_chiller

from ._factories import profile_from_store

pytestmark = pytest.mark.couch

EIGHT = {
    "unknown_asset", "outside_window", "external_dependency", "insufficient_evidence",
    "sensor_not_fitted", "forbidden_action", "contradictory_request", "beyond_standard_scope",
}


@pytest.mark.parametrize("asset_class", ["transformer", "chiller"])
def test_rotation_holds_the_eight_kinds(asset_class: str) -> None:
    assert {k.kind for k in kinds_for(asset_class)} >= EIGHT


async def _check_sixteen(profile: AssetProfile, settings: StoreSettings) -> None:
    load_tools()
    ctx = ToolContext(load_asset_class(profile.asset_class), settings)
    try:
        runs = [await build_negatives(profile, ctx, 16, run_seed=seed) for seed in (1, 2)]
        for recs in runs:
            assert len(recs) == 16
            assert len({r.reference_answer["kind"] for r in recs}) >= 8  # type: ignore[index]
            for r in recs:
                problems = await verify_negative(
                    r.reference_answer, r.tool_sequence, ctx, asset_class=profile.asset_class)
                assert problems == [], r.text
        texts = [{r.text for r in recs} for recs in runs]
        assert not texts[0] & texts[1]
        # Negatives get the positives' openers or closers: some texts carry more than the ask.
        assert any(not t.rstrip().endswith("?") for t in texts[0])
    finally:
        ctx.close()


async def test_sixteen_transformer_negatives(seeded_settings: StoreSettings) -> None:
    await _check_sixteen(await profile_from_store(seeded_settings), seeded_settings)


async def test_sixteen_chiller_negatives(settings_for: Callable[..., StoreSettings]) -> None:
    settings = seed_chiller(settings_for)
    await _check_sixteen(await chiller_profile(settings), settings)
