"""Negative scenarios against the seeded fleet: built, verified, deterministic, checked."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.generate.checks.checks import CheckContext, CheckItem, GroundingSets, run_checks
from generator.generate.checks.dedup import DedupIndex
from generator.generate.draw.negatives import build_negatives, verify_negative
from generator.generate.model import ScenarioRecord, ToolCall
from generator.generate.run.policy import load_policies
from generator.profile.model import AssetProfile
from generator.tools.registry import ToolContext

from ._factories import profile_from_store

pytestmark = pytest.mark.couch
# The transformer's rotation: the generic kinds, its own wording of external data in the
# generic kind's place, then its own kind.
KINDS = ["unknown_asset", "outside_window", "external_dependency", "insufficient_evidence"]


@pytest.fixture
async def tools_ctx(seeded_settings: StoreSettings) -> AsyncIterator[ToolContext]:
    ctx = ToolContext(load_asset_class("transformer"), seeded_settings)
    yield ctx
    ctx.close()


@pytest.fixture
async def profile(seeded_settings: StoreSettings) -> AssetProfile:
    return await profile_from_store(seeded_settings)


async def test_one_of_each_kind_verified_and_well_formed(
    profile: AssetProfile, tools_ctx: ToolContext
) -> None:
    negs = await build_negatives(profile, tools_ctx, 4, run_seed=11)
    assert [n.reference_answer["kind"] for n in negs] == KINDS  # type: ignore[index]
    known = {a.asset_id for a in profile.inventory.assets}
    for rec in negs:
        assert rec.negative and rec.deterministic and rec.id.startswith("negative_pending_")
        assert rec.reference_answer is not None and rec.reference_answer["answerable"] is False
        assert "cannot" in rec.characteristic_form and rec.tool_sequence
        assert rec.expected_tools == [c.name for c in rec.tool_sequence]
        ScenarioRecord.model_validate(rec.model_dump(mode="json"))
    unknown = negs[0]
    assert unknown.grounding["asset_id"] not in known
    prefix = unknown.grounding["asset_id"].rsplit("TX", 1)[0]
    assert prefix == f"{unknown.grounding['site']}-"  # an existing site's naming scheme
    window = negs[1]
    assert window.grounding["start"] > "2026-06-30"  # the fleet's data ends on 2026-06-30


async def test_deterministic_per_run_seed(profile: AssetProfile, tools_ctx: ToolContext) -> None:
    a = await build_negatives(profile, tools_ctx, 6, run_seed=5)
    b = await build_negatives(profile, tools_ctx, 6, run_seed=5)
    assert [r.model_dump() for r in a] == [r.model_dump() for r in b]
    texts = {r.text for seed in range(1, 6)
             for r in await build_negatives(profile, tools_ctx, 4, run_seed=seed)}
    assert len(texts) > 4  # other seeds draw other units, windows, dependencies


async def test_provably_unanswerable_check_passes_real_negatives(
    profile: AssetProfile, tools_ctx: ToolContext
) -> None:
    ctx = CheckContext.with_registered_tools(
        load_policies(), dedup=DedupIndex(), grounding=GroundingSets.from_profile(profile),
        tools_ctx=tools_ctx,
    )
    for rec in await build_negatives(profile, tools_ctx, 8, run_seed=3):
        skipped: list[str] = []
        problems = await run_checks("all", CheckItem.from_scenario(rec), ctx, skipped=skipped)
        assert problems == [], rec.text
        assert "provably_unanswerable" not in skipped
        assert "grounded_entities_exist" in skipped  # negatives name missing things on purpose


def _answer(kind: str, **extra: Any) -> dict[str, Any]:
    return {"answerable": False, "kind": kind, "reason": "test", **extra}


async def test_verification_catches_answerable_negatives(tools_ctx: ToolContext) -> None:
    known = [ToolCall(name="history", args={
        "site_name": "NORTH", "asset_id": "NORTH-TX01", "start": "2026-06-03",
        "final": "2026-06-04", "sensors": ["wti"]})]
    assert await verify_negative(_answer("unknown_asset"), known, tools_ctx) == [
        "history answered for the supposedly unknown asset"]
    assert await verify_negative(_answer("outside_window"), known, tools_ctx) == [
        "history returned 24 records in the window"]
    week = [ToolCall(name="oil_samples", args={
        "site_name": "NORTH", "asset_id": "NORTH-TX01", "start": "2026-06-01",
        "final": "2026-06-30"})]
    problems = await verify_negative(_answer("insufficient_evidence"), week, tools_ctx)
    assert len(problems) == 1 and "samples, not a single one" in problems[0]
    # A forecast is something the tools do provide: not an external dependency.
    assert await verify_negative(_answer("external_dependency", needs="load forecast"), [],
                                 tools_ctx) == [
        "unknown external dependency 'load forecast' (known: weather forecast, "
        "ERP spare-parts inventory, electricity market prices)"]
    assert await verify_negative({"answerable": True}, [], tools_ctx) != []


async def test_check_flags_a_missing_refusal(profile: AssetProfile, tools_ctx: ToolContext) -> None:
    rec = (await build_negatives(profile, tools_ctx, 1, run_seed=1))[0]
    bad = rec.model_copy(update={"characteristic_form": "The response lists the readings."})
    ctx = CheckContext.with_registered_tools(load_policies(), tools_ctx=tools_ctx)
    problems = await run_checks("deterministic", CheckItem.from_scenario(bad), ctx)
    assert problems == [
        "provably_unanswerable: characteristic_form carries no refusal ('cannot be determined ...')"
    ]


async def test_no_assets_no_negatives(tools_ctx: ToolContext) -> None:
    from ._factories import make_profile

    assert await build_negatives(make_profile([]), tools_ctx, 4, run_seed=1) == []


async def test_near_duplicate_negatives_are_redrawn(
    profile: AssetProfile, tools_ctx: ToolContext
) -> None:
    plain = await build_negatives(profile, tools_ctx, 4, run_seed=9)
    index = DedupIndex()
    index.add(plain[1].text, "earlier")  # the outside-window draw is taken already
    redrawn = await build_negatives(profile, tools_ctx, 4, run_seed=9, dedup=index)
    assert [r.text for i, r in enumerate(redrawn) if i != 1] == [
        r.text for i, r in enumerate(plain) if i != 1]
    assert redrawn[1].reference_answer["kind"] == "outside_window"  # type: ignore[index]
    assert redrawn[1].provenance.attempts > 1 and redrawn[1].text != plain[1].text
    assert len(index) == 5


def test_forbidden_action_texts_ask_for_the_action_their_reason_names() -> None:
    """A text asking to create a work order must not be refused as "may not close a work
    order" (a held-out writer found exactly that): each text's verb is its action's."""
    from generator.generate.draw.negatives import FORBIDDEN_TEXTS

    verbs = {"switch the unit off": ("switch", "please shut down", "take"),
             "change a setting": ("raise", "lower", "adjust"),
             "close a work order": ("close", "mark"),
             "create a work order": ("create", "raise")}
    assert set(FORBIDDEN_TEXTS) == set(verbs)
    for action, texts in FORBIDDEN_TEXTS.items():
        for text in texts:
            assert text.lower().startswith(verbs[action]), (action, text)
