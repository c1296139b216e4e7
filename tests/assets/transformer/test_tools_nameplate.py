"""Nameplate-aware diagnostic tools against a real store (issue 9).

Nameplates are written by hand into an isolated set of databases, so the expectations do not
depend on the simulator's fleet. Ageing rates are worked by hand (IEC 60076-7 clause 6.3):
Kraft V = 2^((θh − 98)/6); thermally upgraded V = exp(15000/383 − 15000/(θh + 273)).
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

import assets.transformer.tools_diagnostic  # noqa: F401  (registers the tools)
from assets.transformer.nameplate import NameplateLookupError, facts_from_nameplate
from generator.assetdef import load_asset_class
from generator.config import StoreSettings
from generator.errors import StoreUnavailable
from generator.store.couch import CouchClient
from generator.store.seed import database_names
from generator.tools.registry import ToolContext, call_tool

PLATES: list[dict[str, Any]] = [
    # 25 MVA ONAF, thermally upgraded paper → medium power.
    {"_id": "UPG-1", "asset_id": "UPG-1", "site_name": "S", "rated_mva": 25.0,
     "cooling": "ONAF", "thermal_class": "ONAF", "paper": "upgraded"},
    # 1.6 MVA ONAN distribution unit, Kraft paper.
    {"_id": "DIST-1", "asset_id": "DIST-1", "site_name": "S", "rated_mva": 1.6,
     "cooling": "ONAN", "thermal_class": "ONAN_distribution", "paper": "kraft"},
    # 200 MVA, cooling written as an IEC code without thermal_class → large, OD.
    {"_id": "BIG-1", "asset_id": "BIG-1", "site_name": "S", "rated_mva": 200.0,
     "cooling": "ODAF", "paper": "upgraded"},
]  # fmt: skip

# θh = 104 °C: upgraded V = exp(39.164491 − 39.787798) = exp(−0.623307) = 0.536168;
# Kraft V = 2^((104 − 98)/6) = 2.
V_UPGRADED_104 = 0.536168


@pytest.fixture
def ctx(store_settings: StoreSettings) -> Any:
    asset = load_asset_class("transformer")
    db = database_names(asset, store_settings.db_prefix)["nameplate"]
    with CouchClient(store_settings) as client:
        client.create_db(db)
        for plate in PLATES:
            client.put(db, dict(plate))
    context = ToolContext(asset, store_settings)
    yield context
    context.close()


def _call(ctx: ToolContext, name: str, **args: Any) -> Any:
    return asyncio.run(call_tool(name, args, ctx))


def test_winding_reads_paper_and_size_class_from_the_nameplate(ctx: ToolContext) -> None:
    # The defect: an upgraded-paper unit at 104 °C was "accelerated ageing / medium"
    # with V = 2; from its nameplate it is normal (104 ≤ 110), low risk, V = 0.536168.
    r = _call(ctx, "assess_winding_temperature", asset_name="UPG-1", wti=104, oti=85, ati=30)
    assert (r.paper, r.paper_source) == ("upgraded", "nameplate")
    assert (r.size_class, r.size_class_source, r.cooling) == ("medium", "nameplate", "ONAF")
    assert r.relative_ageing_rate == pytest.approx(V_UPGRADED_104, rel=1e-5)
    assert (r.thermal_status, r.risk_level) == ("normal", "low")
    # An explicit argument overrides the nameplate.
    k = _call(ctx, "assess_winding_temperature", asset_name="UPG-1", wti=104, oti=85, ati=30,
              paper="kraft")  # fmt: skip
    assert (k.paper, k.paper_source, k.relative_ageing_rate) == ("kraft", "argument", 2.0)
    assert k.size_class_source == "nameplate"


def test_unknown_asset_gets_the_documented_defaults(ctx: ToolContext) -> None:
    r = _call(ctx, "assess_winding_temperature", asset_name="NOPE", wti=104, oti=85, ati=30)
    assert (r.paper, r.paper_source, r.size_class, r.size_class_source) == (
        "kraft", "default", "medium", "default")  # fmt: skip
    assert r.relative_ageing_rate == pytest.approx(2.0)


def test_hot_spot_uses_the_distribution_characteristics_from_the_nameplate(
    ctx: ToolContext,
) -> None:
    # DIST-1: thermal_class ONAN_distribution, Kraft. K = 1, θa = 20: Δθo = 55, Δθh = 1.1·21 =
    # 23.1 → θh = 98.1; V = 2^(0.1/6) = 1.011619.
    r = _call(ctx, "compute_hot_spot", asset_name="DIST-1", load_factor=1.0, ambient_c=20.0)
    assert (r.cooling, r.cooling_source, r.paper, r.paper_source) == (
        "ONAN_distribution", "nameplate", "kraft", "nameplate")  # fmt: skip
    assert r.hot_spot_c == pytest.approx(98.1)
    assert r.relative_ageing_rate == pytest.approx(1.011619, rel=1e-5)


def test_loss_of_life_maps_an_iec_cooling_code(ctx: ToolContext) -> None:
    # BIG-1: "ODAF" → OD characteristics; K = 1, θa = 20 → θo = 20 + 49 = 69,
    # θh = 69 + 1.3·22 = 97.6 (steady throughout). Upgraded: V = exp(15000/383 − 15000/370.6)
    # = exp(39.164491 − 40.474906) = exp(−1.310415) = 0.269708 → 24 h · V = 6.47300 h.
    r = _call(ctx, "compute_loss_of_life", asset_name="BIG-1", load_factors=[1.0] * 24,
              ambient_c=20.0, step_minutes=60.0)  # fmt: skip
    assert (r.cooling, r.cooling_source, r.paper) == ("OD", "nameplate", "upgraded")
    assert r.peak_hot_spot_c == pytest.approx(97.6)
    assert r.loss_of_life_hours == pytest.approx(24 * math.exp(15000 / 383 - 15000 / 370.6))
    assert r.loss_of_life_hours == pytest.approx(6.47300, rel=1e-5)


def test_load_profile_reads_the_rating(ctx: ToolContext) -> None:
    # DIST-1 (1.6 MVA → distribution); 11 kV, 100 A balanced: S = √3·11·100/1000 = 1.90526 MVA
    # → 119.08 % → ≤ 150 → overload (normal cyclic).
    v = 11 / math.sqrt(3)
    r = _call(ctx, "assess_load_profile", asset_name="DIST-1", vl1=v, vl2=v, vl3=v, il1=100.0,
              il2=100.0, il3=100.0, vl12=11.0, vl23=11.0, vl31=11.0, inut=0.0)  # fmt: skip
    assert (r.rated_mva, r.rated_mva_source, r.size_class) == (1.6, "nameplate", "distribution")
    assert r.load_factor_pct == pytest.approx(119.079, abs=1e-3)
    assert r.loading_status == "overload (normal cyclic)"


def test_unreachable_store_is_one_clear_line() -> None:
    dead = ToolContext(
        load_asset_class("transformer"),
        StoreSettings(url="http://127.0.0.1:9", db_prefix="x_", external=True),
    )
    try:
        with pytest.raises(NameplateLookupError) as exc:
            _call(dead, "assess_winding_temperature", asset_name="UPG-1", wti=104, oti=85,
                  ati=30)  # fmt: skip
        text = str(exc.value)
        assert isinstance(exc.value, StoreUnavailable)  # an outage: generation stops on it
        assert "\n" not in text
        assert "paper, size_class" in text and "scenariogen env up" in text
        # Every value explicit: no store needed.
        r = _call(dead, "assess_winding_temperature", asset_name="UPG-1", wti=104, oti=85,
                  ati=30, paper="upgraded", size_class="medium")  # fmt: skip
        assert r.paper_source == "argument"
    finally:
        dead.close()


def test_facts_from_unrecognised_nameplate_fields_are_none() -> None:
    facts = facts_from_nameplate("X", {"paper": "aramid", "cooling": "KNAN", "rated_mva": "big"})
    assert facts.found and facts.paper is None and facts.cooling is None
    assert facts.rated_mva is None and facts.size_class is None
