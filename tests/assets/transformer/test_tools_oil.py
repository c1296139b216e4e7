"""The ``assess_oil_quality`` tool: hand-worked cases from IEC 60422:2013 Tables 1 and 5
(values as in docs/standards-notes.md), and the errors it gives for bad input."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from assets.transformer.oil_quality import category_for_voltage, classify
from assets.transformer.tools_oil import OilQualityArgs, assess_oil_quality_tool
from generator.api import UserError


async def _assess(**kw: Any) -> dict[str, Any]:
    args = OilQualityArgs(asset_name="T1", **kw)
    out = await assess_oil_quality_tool(args, None)  # type: ignore[arg-type,unused-ignore]
    return out.model_dump()


def _cats(out: dict[str, Any]) -> dict[str, str]:
    return {row["parameter"]: row["category"] for row in out["parameters"]}


async def test_category_c_unit_with_wet_oil_is_reconditioned() -> None:
    # 33 kV ≤ 72.5 kV → category C (Table 1). Table 5, category C:
    # water 45 mg/kg > 40 → poor; breakdown 35 kV in 30–40 → fair;
    # IFT 30 mN/m > 28 → good; acidity 0.05 < 0.15 → good.
    # Poor water, no poor acidity/IFT → recondition, triggered by water alone.
    out = await _assess(water_content=45.0, dielectric_rigidity=35.0, interfacial_v=30.0,
                        acidity=0.05, voltage_kv=33.0)
    assert out["equipment_category"] == "C" and out["category_source"] == "voltage"
    assert _cats(out) == {"water_content": "poor", "dielectric_rigidity": "fair",
                          "interfacial_v": "good", "acidity": "good"}
    assert out["overall"] == "poor"
    assert out["decision"] == "recondition" and out["decision_basis"] == ["water_content"]


async def test_category_b_aged_oil_is_reclaimed() -> None:
    # 132 kV in (72.5, 170] → category B. Water 12 < 20 → good; breakdown 38 < 40 → poor;
    # IFT 18 < 22 → poor; acidity 0.25 > 0.20 → poor. Ageing products poor (IFT, acidity) →
    # reclaim, which also covers the poor breakdown voltage; basis = the ageing parameters.
    out = await _assess(water_content=12.0, dielectric_rigidity=38.0, interfacial_v=18.0,
                        acidity=0.25, voltage_kv=132.0)
    assert out["equipment_category"] == "B"
    assert _cats(out) == {"water_content": "good", "dielectric_rigidity": "poor",
                          "interfacial_v": "poor", "acidity": "poor"}
    assert out["decision"] == "reclaim"
    assert out["decision_basis"] == ["interfacial_v", "acidity"]


async def test_category_a_fair_values_mean_monitoring() -> None:
    # Category A given: water 18 in 15–20 → fair; breakdown 65 > 60 → good; IFT 25 in 22–28 →
    # fair; acidity 0.08 < 0.10 → good. Nothing poor, two fair → monitor.
    out = await _assess(water_content=18.0, dielectric_rigidity=65.0, interfacial_v=25.0,
                        acidity=0.08, category="A")
    assert out["category_source"] == "argument"
    assert out["overall"] == "fair" and out["decision"] == "monitor"
    assert out["decision_basis"] == ["water_content", "interfacial_v"]


async def test_all_good_needs_nothing_and_boundaries_are_fair() -> None:
    # Category C: water 10 < 30, breakdown 55 > 40, IFT 35 > 28, acidity 0.02 < 0.15 → good.
    out = await _assess(water_content=10.0, dielectric_rigidity=55.0, interfacial_v=35.0,
                        acidity=0.02, voltage_kv=11.0)
    assert out["overall"] == "good" and out["decision"] == "none"
    assert out["decision_basis"] == []
    # A value on a limit is fair (the fair range is closed at both ends).
    assert classify("dielectric_rigidity", 40.0, "C") == "fair"
    assert classify("dielectric_rigidity", 30.0, "C") == "fair"
    assert classify("water_content", 30.0, "C") == "fair"
    assert classify("acidity", 0.15, "O") == "fair"


def test_voltage_categories() -> None:
    # Table 1: O ≥ 400, A 170 < U < 400, B 72.5 < U ≤ 170, C ≤ 72.5.
    assert [category_for_voltage(v) for v in (400, 275, 170.5, 170, 72.6, 72.5, 0.4)] == [
        "O", "A", "A", "B", "B", "C", "C",
    ]


async def test_errors_name_the_bad_value_and_the_fix() -> None:
    with pytest.raises(UserError, match=r"no equipment category.*valid: O, A, B, C.*voltage_kv"):
        await _assess(water_content=10.0)
    with pytest.raises(UserError, match=r"no oil-quality value given.*fix"):
        await _assess(category="B")
    with pytest.raises(UserError, match=r"category A does not match voltage_kv; got 33\.0"):
        await _assess(water_content=10.0, category="A", voltage_kv=33.0)
    with pytest.raises(ValidationError, match="water_content"):
        OilQualityArgs(asset_name="T1", water_content=-1.0, category="C")
    with pytest.raises(ValidationError, match="category"):
        OilQualityArgs(asset_name="T1", water_content=1.0, category="Z")  # type: ignore[arg-type,unused-ignore]
