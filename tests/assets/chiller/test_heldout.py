"""The chiller's held-out margins and store-free decoys on hand-built instances (worked by
hand)."""

from __future__ import annotations

import asyncio
from typing import Any

from assets.chiller.heldout import (
    approach_threshold,
    declared_ranges,
    efficiency_band,
    iplv_arithmetic_mean,
    iplv_reversed_points,
    wrong_unit,
)
from eval.grade import grade
from generator.generate.model import TaskSeed, ToolCall
from generator.heldout.margins import check_margins


def _seed(family: str, answer: dict[str, Any], calls: list[ToolCall], **kw: Any) -> TaskSeed:
    return TaskSeed(family=family, domain="fmsr", category="Diagnostic Assessment",
                    role="operator", draw=0, params=kw.pop("params", {}), mentions=[],
                    tool_sequence=calls, answer=answer, answer_summary="x", difficulty="easy",
                    **kw)


def _record(seed: TaskSeed) -> dict[str, Any]:
    return {"id": "ho-1", "type": "fmsr", "difficulty": "easy", "text": "q",
            "reference_answer": seed.answer, "tolerance": seed.tolerance,
            "rel_tolerance": seed.rel_tolerance}


POINTS = [0.618, 0.507, 0.465, 0.534]
IPLV = _seed("chiller_fmsr_iplv", {"iplv_kw_per_ton": 0.4909},
             [ToolCall(name="compute_iplv", args={"asset_name": "CH-1", "kw_per_ton": POINTS})],
             params={"kw_per_ton": POINTS}, tolerance={"iplv_kw_per_ton": 0.001})


def _decoy(fn: Any, seed: TaskSeed) -> dict[str, Any] | None:
    from generator.heldout.decoys import DecoyInput

    return asyncio.run(fn(DecoyInput(seed=seed, ctx=None, asset_ids=())))  # type: ignore[arg-type]


def test_iplv_decoys_by_hand_score_below_one() -> None:
    # the reference: 1 / (0.01/0.618 + 0.42/0.507 + 0.45/0.465 + 0.12/0.534) = 0.4909
    # arithmetic: 0.01·0.618 + 0.42·0.507 + 0.45·0.465 + 0.12·0.534
    #           = 0.00618 + 0.21294 + 0.20925 + 0.06408 = 0.49245
    # reversed:   1 / (0.01/0.534 + 0.42/0.465 + 0.45/0.507 + 0.12/0.618)
    #           = 1 / (0.018727 + 0.903226 + 0.887574 + 0.194175) = 1 / 2.003702 = 0.4991
    mean = _decoy(iplv_arithmetic_mean, IPLV)
    rev = _decoy(iplv_reversed_points, IPLV)
    assert mean == {"iplv_kw_per_ton": 0.4925}
    assert rev == {"iplv_kw_per_ton": 0.4991}
    for d in (mean, rev):
        assert d is not None and grade(_record(IPLV), d).score < 1.0
    assert grade(_record(IPLV), IPLV.answer).score == 1.0


ANY_CALL = ToolCall(name="history", args={"asset_id": "CH-1"})


def test_wrong_unit_gives_fahrenheit_differences_and_cop() -> None:
    # 3.55 K × 1.8 = 6.39 °F; 0.7 kW/ton → COP 3.516852 / 0.7 = 5.024074; 9.66 % → 0.0966
    seed = _seed("x", {"evaporator_approach_k": 3.55, "measured_kw_per_ton": 0.7,
                       "degradation_pct": 9.66, "status": "degraded"}, [ANY_CALL])
    assert _decoy(wrong_unit, seed) == {"evaporator_approach_k": 6.39,
                                        "measured_kw_per_ton": 5.024074,
                                        "degradation_pct": 0.0966, "status": "degraded"}
    assert _decoy(wrong_unit, _seed("x", {"count": 3}, [ANY_CALL])) is None


def test_approach_and_efficiency_margins() -> None:
    call = ToolCall(name="compute_approach_temperatures", args={"asset_name": "CH-1"})
    seed = _seed("chiller_fmsr_approach_check", {"status": "normal"}, [call])
    # 3 °F = 1.667 K: a rise of 1.60 K is 0.067 K away (< 0.1 K margin); 1.2 K is 0.467 K away
    near = {"evaporator_approach_rise_k": 1.60, "condenser_approach_rise_k": 0.2}
    far = {"evaporator_approach_rise_k": 1.2, "condenser_approach_rise_k": 0.2}
    assert not approach_threshold(seed, [near]).ok  # type: ignore[union-attr]
    assert approach_threshold(seed, [far]).ok  # type: ignore[union-attr]
    eff = ToolCall(name="assess_chiller_efficiency", args={"asset_name": "CH-1"})
    # band edges −5, 5, 15 %: 14.7 % is 0.3 points from 15 (margin 0.5), 10 % is 5 away
    assert not efficiency_band(_seed("e", {"degradation_pct": 14.7}, [eff]), [{}]).ok  # type: ignore[union-attr]
    assert efficiency_band(_seed("e", {"degradation_pct": 10.0}, [eff]), [{}]).ok  # type: ignore[union-attr]


def test_a_record_with_a_faulty_reading_fails_the_declared_ranges_margin() -> None:
    history = ToolCall(name="history", args={"asset_id": "CH-1"})
    eff = ToolCall(name="assess_chiller_efficiency", args={"asset_name": "CH-1"})
    seed = _seed("chiller_fmsr_efficiency", {"degradation_pct": 10.0}, [history, eff])
    # asset.yaml declares tonnage [0, 3000] and kW/ton [0, 3]
    bad = {"records": [{"timestamp": "2025-07-27T13:00:00", "tonnage": 3.4,
                        "kw_per_ton": 100.647, "power_input": 342.2}]}
    good = {"records": [{"timestamp": "2025-07-27T13:00:00", "tonnage": 300.0,
                         "kw_per_ton": 0.62, "power_input": 186.0}]}
    failed = declared_ranges(seed, [bad, {}])
    assert failed is not None and not failed.ok and "kw_per_ton 100.647" in failed.detail
    assert declared_ranges(seed, [good, {}]).ok  # type: ignore[union-attr]
    kinds = {m.kind for m in check_margins(seed, [bad, {"degradation_pct": 10.0}], "chiller")}
    assert {"declared_ranges", "efficiency_band"} <= kinds
