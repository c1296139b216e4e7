"""The negative-kind registry: rotation per class, generic wording from the vocabulary."""

from __future__ import annotations

import random

import pytest

from generator.generate.draw.negatives import (
    NegativeContext,
    NegativeDraft,
    kinds_for,
    negative,
)
from generator.generate.model import ToolCall
from generator.profile.model import GroundedAsset
from generator.store.query import TimeRange
from generator.vocabulary import Vocabulary

from ._factories import make_profile

PUMP = Vocabulary(
    asset_class="pump", noun="pump", plural="pumps", domain_phrase="centrifugal pumps",
    fleet_phrase="a fleet of pumps", persona="operators of centrifugal pumps",
    agent_persona="You assist the operators of a fleet of pumps.",
    sensor_names={"wti": "bearing temperature"},
    task_themes=[{"role": "operator", "theme": "Read flows", "needs": ["iot"]}],  # type: ignore[list-item]
)


def _asset(aid: str) -> GroundedAsset:
    return GroundedAsset(
        asset_id=aid, site_name="EAST", sensors=["wti"],
        coverage={"telemetry": TimeRange(start="2026-06-01T00:00:00", end="2026-06-30T23:00:00",
                                         count=None)},
        work_orders=0,
    )


def _ctx(seed: int = 3) -> NegativeContext:
    profile = make_profile([_asset("EAST-P01"), _asset("EAST-P02")])
    return NegativeContext(profile=profile, rng=random.Random(seed),
                           asset=profile.inventory.assets[0], vocabulary=PUMP)


def test_transformer_rotation_overrides_in_place_then_appends() -> None:
    kinds = kinds_for("transformer")
    order = [
        "unknown_asset", "outside_window", "external_dependency", "insufficient_evidence",
        "sensor_not_fitted", "forbidden_action", "contradictory_request",
        "beyond_standard_scope"]
    assert [k.kind for k in kinds] == order
    generic = {k.kind: k for k in kinds_for("no-such-class")}
    assert list(generic) == order
    # The transformer words insufficient_evidence itself (oil samples), in the generic place.
    assert kinds[3] is not generic["insufficient_evidence"]
    # The transformer's external_dependency is its own registration, not the generic one.
    assert kinds[2] is not generic["external_dependency"]
    assert kinds[0] is generic["unknown_asset"]


def test_generic_kinds_speak_the_class_vocabulary() -> None:
    by_kind = {k.kind: k for k in kinds_for("no-such-class")}
    texts = []
    for seed in range(12):
        for kind in ("unknown_asset", "outside_window", "external_dependency"):
            d = by_kind[kind].draft(_ctx(seed))
            assert d is not None
            texts.append(d.text + " " + d.characteristic_form)
    joined = " ".join(texts).lower()
    assert "transformer" not in joined and "top-oil" not in joined and "bushing" not in joined
    # The only telemetry sensor the vocabulary names is wti ("bearing temperature"); the
    # profile's oti has no spoken name, so the generic kinds ask about wti alone.
    assert "bearing temperature" in joined and "top oil" not in joined
    assert "of pump east-p" in joined  # "the highest ... of pump EAST-P0x"


def test_unknown_id_is_beyond_the_site_numbers() -> None:
    d = kinds_for("no-such-class")[0].draft(_ctx())
    assert d is not None
    bad = d.answer["asset_id"]
    # Known EAST-P01, EAST-P02: the unknown id is EAST-P03..EAST-P08 (max + 1..6).
    assert bad.startswith("EAST-P0") and 3 <= int(bad[-2:]) <= 8
    assert d.calls == [ToolCall(name="history", args={
        "site_name": "EAST", "asset_id": bad, "start": "2026-06-01", "final": "2026-06-02",
        "sensors": ["wti"]})]


def test_duplicate_registration_is_refused() -> None:
    def draft(ctx: NegativeContext) -> NegativeDraft | None:
        return None

    with pytest.raises(ValueError, match="already registered"):
        negative("unknown_asset")(draft)
