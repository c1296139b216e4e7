"""Margin checks and store-free decoys on hand-built instances (ratios worked by hand)."""

from __future__ import annotations

import asyncio
from typing import Any

from eval.grade import grade
from generator.generate.model import TaskSeed, ToolCall
from generator.heldout.decoys import DecoyInput, is_inert, swapped_ratio_codes, wrong_unit
from generator.heldout.margins import dga_class, loading_band


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


def test_wrong_unit_moves_every_unit_suffixed_number() -> None:
    seed = _seed({"load_mva": 12.5, "hot_spot_c": 100.0, "count": 3, "status": "ok"},
                 [_dga(1, 1, 1, 1, 1)], tolerance={"load_mva": 0.01, "hot_spot_c": 0.1})
    inp = DecoyInput(seed=seed, ctx=None, asset_ids=())  # type: ignore[arg-type]
    decoy = asyncio.run(wrong_unit(inp))
    # 12.5 MVA written as 12500 (kVA) and 100 °C as 212 (°F) under the same keys
    assert decoy == {"load_mva": 12500.0, "hot_spot_c": 212.0, "count": 3, "status": "ok"}
    assert decoy is not None
    assert not is_inert(seed, decoy)
    assert grade(_record(seed), decoy).score < 1.0


def test_thermal_limits_use_the_paper_reference_and_top_oil() -> None:
    from generator.heldout.margins import thermal_limits

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
