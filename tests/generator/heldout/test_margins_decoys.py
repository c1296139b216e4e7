"""Generic decoys and the per-class registries of margins and decoys, on hand-built instances."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from eval.grade import grade
from generator.generate.model import TaskSeed, ToolCall
from generator.heldout.decoys import DecoyInput, is_inert, wrong_edition, wrong_unit
from generator.heldout.margins import call_output, check_margins
from generator.heldout.plugins import load_heldout_module
from generator.heldout.scoped import ScopedRegistry


def _seed(answer: dict[str, Any], calls: list[ToolCall], **kw: Any) -> TaskSeed:
    return TaskSeed(family="fmsr_dga_given", domain="fmsr", category="Diagnostic Assessment",
                    role="operator", draw=0, params=kw.pop("params", {}), mentions=[],
                    tool_sequence=calls, answer=answer, answer_summary="x", difficulty="easy",
                    **kw)


def _dga(h2: float, ch4: float, c2h6: float, c2h4: float, c2h2: float) -> ToolCall:
    return ToolCall(name="interpret_dga", args={
        "asset_name": "A-TX01", "hydrogen": h2, "methane": ch4, "ethane": c2h6,
        "ethylene": c2h4, "acetylene": c2h2})


def _record(seed: TaskSeed) -> dict[str, Any]:
    return {"id": "ho-1", "type": "fmsr", "difficulty": "easy", "text": "q",
            "reference_answer": seed.answer, "tolerance": seed.tolerance,
            "rel_tolerance": seed.rel_tolerance}


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


def test_wrong_edition_swaps_a_cited_year_and_leaves_uncited_answers() -> None:
    call = ToolCall(name="sensors", args={"asset_id": "P-01"})
    seed = _seed({"method": "AHRI 550/590-2023", "standard": "IEC 60599:2015", "n": 3}, [call])
    inp = DecoyInput(seed=seed, ctx=None, asset_ids=())  # type: ignore[arg-type]
    # every cited year that is not 1999 becomes 1999 (a superseded edition)
    assert asyncio.run(wrong_edition(inp)) == {
        "method": "AHRI 550/590-1999", "standard": "IEC 60599:1999", "n": 3}
    plain = DecoyInput(seed=_seed({"n": 3, "day": "2024-03-01"}, [call]),
                       ctx=None, asset_ids=())  # type: ignore[arg-type]
    assert asyncio.run(wrong_edition(plain)) is None


def _fixed(value: str) -> Callable[[Any], str | None]:
    def fn(_: Any) -> str | None:
        return None if value == "none" else value
    return fn


def test_scoped_registry_tries_the_class_item_before_the_generic_one() -> None:
    reg: ScopedRegistry[Callable[[Any], str | None]] = ScopedRegistry("probe")
    reg.add("kind_a", _fixed("generic a"))
    reg.add("kind_a", _fixed("none"), asset_classes=("pump",))
    reg.add("kind_b", _fixed("pump b"), asset_classes=("pump", "fan"))
    reg.add("kind_c", _fixed("generic c"))
    pump = reg.for_class("pump")
    assert list(pump) == ["kind_a", "kind_b", "kind_c"]
    # the class's own item first, then the generic one it refines
    assert [f(None) for f in pump["kind_a"]] == [None, "generic a"]
    # another class sees the generic items and only its own
    assert reg.names("mixer") == ["kind_a", "kind_c"]
    assert reg.names("fan") == ["kind_a", "kind_b", "kind_c"]


def test_scoped_registry_refuses_duplicates_and_mixed_scopes() -> None:
    reg: ScopedRegistry[Callable[[Any], str | None]] = ScopedRegistry("probe")
    reg.add("kind_a", _fixed("x"), asset_classes=("pump",))
    with pytest.raises(ValueError, match="already registered"):
        reg.add("kind_a", _fixed("y"), asset_classes=("pump",))
    with pytest.raises(ValueError, match="asset_classes"):
        reg.add("kind_b", _fixed("y"), asset_classes=("*", "pump"))
    with pytest.raises(ValueError, match="asset_classes"):
        reg.add("kind_b", _fixed("y"), asset_classes=())


def test_a_class_without_a_heldout_module_gets_the_generic_checks_only() -> None:
    # run_tsad flagged one reading at |z| 3.1 against a cut-off 3: 3.1 < 3 × 1.05 = 3.15
    call = ToolCall(name="run_tsad", args={"asset_name": "P-01"})
    seed = _seed({"anomalies": 1}, [call])
    out = {"threshold": 3.0, "anomalies": [{"score": 3.1}]}
    assert load_heldout_module("no_such_class") is False
    results = check_margins(seed, [out], "no_such_class")
    assert [(r.kind, r.ok) for r in results] == [("anomaly_cutoff", False)]


def test_call_output_can_ask_for_an_answer_key() -> None:
    # The seed calls interpret_dga (output {"x": 1}) and answers fault_type only.
    seed = _seed({"fault_type": "T3"}, [_dga(10, 20, 30, 40, 1)])
    assert call_output(seed, [{"x": 1}], "interpret_dga") == (seed.tool_sequence[0].args, {"x": 1})
    assert call_output(seed, [{"x": 1}], "interpret_dga",
                       answering=("ieee_condition", "fault_type")) is not None
    assert call_output(seed, [{"x": 1}], "interpret_dga", answering=("ieee_condition",)) is None
    assert call_output(seed, [{"x": 1}], "run_tsad", answering=("fault_type",)) is None
