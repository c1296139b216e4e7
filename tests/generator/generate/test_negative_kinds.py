"""`--negatives 16` covers eight kinds per class, each verified, worded apart per run seed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.generate.draw.negatives import _frames, build_negatives, kinds_for, verify_negative
from generator.generate.model import ToolCall
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
        # Negatives get the positives' openers (templates.yaml, filled with the unit's site
        # and id): some texts of each run open with one.
        pools = _frames(profile.asset_class)
        openers = [o.split("{")[0] for ops, _ in pools.values() for o in ops]
        for run in texts:
            assert any(t.startswith(o) for t in run for o in openers if o)
    finally:
        ctx.close()


async def test_sixteen_transformer_negatives(seeded_settings: StoreSettings) -> None:
    await _check_sixteen(await profile_from_store(seeded_settings), seeded_settings)


async def test_sixteen_chiller_negatives(settings_for: Callable[..., StoreSettings]) -> None:
    settings = seed_chiller(settings_for)
    await _check_sixteen(await chiller_profile(settings), settings)


async def test_verification_refuses_false_claims(seeded_settings: StoreSettings) -> None:
    load_tools()
    ctx = ToolContext(load_asset_class("transformer"), seeded_settings)
    try:
        profile = await profile_from_store(seeded_settings)
        asset = profile.inventory.assets[0]
        site, aid = asset.site_name, asset.asset_id
        listing = [ToolCall(name="sensors", args={"site_name": site, "asset_id": aid})]
        # A sensor the class is not declared to lack is not accepted as absent.
        assert await verify_negative(
            {"answerable": False, "kind": "sensor_not_fitted", "sensor": "top-oil temperature"},
            listing, ctx) != []
        # An action outside the declared forbidden ones is not accepted.
        assert await verify_negative(
            {"answerable": False, "kind": "forbidden_action", "needs": "fly a drone"},
            listing, ctx) != []
        # A window in the right order inside the data is answerable: the check says so.
        day = asset.telemetry.start[:10]
        ordered = [ToolCall(name="history", args={
            "site_name": site, "asset_id": aid, "start": day, "final": f"{day}T06:00:00",
            "sensors": [asset.sensors[0]]})]
        assert await verify_negative(
            {"answerable": False, "kind": "contradictory_request"}, ordered, ctx) != []
        # Another user error (an unknown unit) does not show a contradictory window.
        unknown = [ToolCall(name="history", args={**ordered[0].args, "asset_id": aid + "9"})]
        assert await verify_negative(
            {"answerable": False, "kind": "contradictory_request"}, unknown, ctx) != []
    finally:
        ctx.close()
