"""The transformer's margin checks and store-free decoys on hand-built instances (ratios worked
by hand)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from assets.transformer.heldout import dga_class, loading_band, swapped_ratio_codes, thermal_limits
from eval.grade import grade
from generator.generate.model import TaskSeed, ToolCall
from generator.heldout.decoys import DecoyInput, make_decoys
from generator.heldout.margins import check_margins


def _seed(answer: dict[str, Any], calls: list[ToolCall], **kw: Any) -> TaskSeed:
    return TaskSeed(family="fmsr_dga_given", domain="fmsr", category="Diagnostic Assessment",
                    role="operator", draw=0, params=kw.pop("params", {}), mentions=[],
                    tool_sequence=calls, answer=answer, answer_summary="x", difficulty="easy",
                    **kw)


def _dga(h2: float, ch4: float, c2h6: float, c2h4: float, c2h2: float) -> ToolCall:
    return ToolCall(name="interpret_dga", args={
        "asset_name": "A-TX01", "hydrogen": h2, "methane": ch4, "ethane": c2h6,
        "ethylene": c2h4, "acetylene": c2h2})


def test_dga_class_clear_of_every_boundary() -> None:
    # H2 50, CH4 200, C2H6 50, C2H4 300, C2H2 2: C2H2/C2H4 = 0.0067 (< 0.2), CH4/H2 = 4 (> 1),
    # C2H4/C2H6 = 6 (> 4, 50 % above): Table 1 T3. Duval: sum 502, %C2H4 = 59.8 (≥ 50 by 9.8
    # points), %C2H2 = 0.4 (< 15): T3. Every boundary is beyond 5 % / 2 points.
    seed = _seed({"fault_type": "T3"}, [_dga(50, 200, 50, 300, 2)])
    result = dga_class(seed, [{}])
    assert result is not None and result.ok


def test_dga_class_near_the_t2_t3_boundary_fails() -> None:
    # C2H4 205 instead: C2H4/C2H6 = 4.1, 2.5 % above the T2/T3 limit 4 (margin 5 %);
    # Duval %C2H4 = 205/407 = 50.4, 0.4 points above 50 (margin 2 points).
    seed = _seed({"fault_type": "T3"}, [_dga(50, 200, 50, 205, 2)])
    result = dga_class(seed, [{}])
    assert result is not None and not result.ok


def test_loading_band_margin() -> None:
    call = ToolCall(name="assess_load_profile", args={"asset_name": "A-TX01"})
    near = _seed({"loading_status": "overload (normal cyclic)"}, [call])
    # medium class bands end at 20, 100, 150 (normal cyclic 1.5 pu) and 180 %: 100.6 is 0.6
    # points from 100, inside the 1-point margin; 120 is 20 points from every limit
    out_near = {"load_factor_pct": 100.6, "size_class": "medium"}
    out_far = {"load_factor_pct": 120.0, "size_class": "medium"}
    assert not loading_band(near, [out_near]).ok  # type: ignore[union-attr]
    assert loading_band(near, [out_far]).ok  # type: ignore[union-attr]


def _record(seed: TaskSeed) -> dict[str, Any]:
    return {"id": "ho-1", "type": "fmsr", "difficulty": "easy", "text": "q",
            "reference_answer": seed.answer, "tolerance": seed.tolerance,
            "rel_tolerance": seed.rel_tolerance}


def test_swapped_ratio_codes_gives_another_class_that_scores_below_one() -> None:
    # swapped: C2H2/C2H4 := 6, C2H4/C2H6 := 0.0067, CH4/H2 = 4: not D2 (6 > 2.5), not D1
    # (CH4/H2 > 0.5), not T3/T2 (first ratio ≥ 0.2), not PD; T1 (CH4/H2 > 1, third < 1)
    seed = _seed({"fault_type": "T3"}, [_dga(50, 200, 50, 300, 2)])
    inp = DecoyInput(seed=seed, ctx=None, asset_ids=())  # type: ignore[arg-type]
    decoy = asyncio.run(swapped_ratio_codes(inp))
    assert decoy == {"fault_type": "T1"}
    assert decoy is not None
    assert grade(_record(seed), decoy).score < 1.0
    assert grade(_record(seed), seed.answer).score == 1.0


def test_thermal_limits_use_the_paper_reference_and_top_oil() -> None:
    call = ToolCall(name="assess_winding_temperature", args={"asset_name": "A-TX01"})
    seed = _seed({"thermal_status": "normal"}, [call])

    def out(hot: float, oil: float, paper: str) -> dict[str, Any]:
        return {"hot_spot_c": hot, "top_oil_c": oil, "paper": paper, "size_class": "medium"}

    # Kraft: normal up to 98 °C; 97.5 is 0.5 °C from it (margin 1 °C)
    assert not thermal_limits(seed, [out(97.5, 70.0, "kraft")]).ok  # type: ignore[union-attr]
    # upgraded paper: its reference is 110 °C, so 97.5 is clear of every limit
    assert thermal_limits(seed, [out(97.5, 70.0, "upgraded")]).ok  # type: ignore[union-attr]
    # top oil 104.6 °C is 0.4 °C under the normal cyclic top-oil limit 105 °C
    assert not thermal_limits(seed, [out(90.0, 104.6, "kraft")]).ok  # type: ignore[union-attr]


def _inp(seed: TaskSeed) -> DecoyInput:
    ctx = SimpleNamespace(profile=SimpleNamespace(asset_class="transformer"))
    return DecoyInput(seed=seed, ctx=ctx, asset_ids=())  # type: ignore[arg-type]


def test_the_transformer_refines_wrong_edition_and_keeps_the_generic_kinds() -> None:
    # T3 case above: Rogers (IEC 599) 0 2 2 = HTH, which the superseded table calls T3 as
    # well, so the class's wrong_edition applies (an inert decoy) and the generic year swap
    # of the cited edition is not used; swapped ratio codes give T1 (worked above)
    seed = _seed({"fault_type": "T3", "method": "IEC 60599:2015"}, [_dga(50, 200, 50, 300, 2)])
    decoys = dict(asyncio.run(make_decoys(_inp(seed))))
    assert set(decoys) == {"default_paper", "neighbouring_asset", "off_by_one_window",
                           "swapped_ratio_codes", "wrong_edition", "wrong_unit"}
    assert decoys["wrong_edition"] == {"fault_type": "T3", "method": "IEC 60599:2015"}
    assert decoys["swapped_ratio_codes"] == {"fault_type": "T1", "method": "IEC 60599:2015"}
    # no window, no other unit, no paper argument, no unit-suffixed number: not applicable
    assert decoys["off_by_one_window"] is None and decoys["default_paper"] is None
    # a "normal" verdict: the class's maker does not apply, the generic one swaps the year
    normal = _seed({"fault_type": "normal", "method": "IEC 60599:2015"},
                   [_dga(50, 200, 50, 300, 2)])
    assert dict(asyncio.run(make_decoys(_inp(normal))))["wrong_edition"] == {
        "fault_type": "normal", "method": "IEC 60599:1999"}


def test_transformer_margins_run_only_for_the_transformer() -> None:
    seed = _seed({"fault_type": "T3"}, [_dga(50, 200, 50, 300, 2)])
    assert [r.kind for r in check_margins(seed, [{}], "transformer")] == ["dga_class"]
    assert check_margins(seed, [{}], "no_such_class") == []
