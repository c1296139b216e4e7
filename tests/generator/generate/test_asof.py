"""The as-of gate: a draw whose reference rests on a document time-stamped after the moment
its text asks as of is refused, and counted."""

from __future__ import annotations

from typing import Any

from generator.generate.draw.asof import (
    AFTER_AS_OF,
    NO_AS_OF,
    as_of_param,
    declared_as_of,
    documents_after,
    hour_end_as_of,
    is_after,
)
from generator.generate.draw.families import FamilyContext, FamilySpec, Plan, Probe, _gated
from generator.generate.model import ToolCall


def test_day_only_stamps_cover_their_whole_day() -> None:
    # "today is 2026-06-11": the moment is 2026-06-11T00:00. An order stamped with the day
    # 2026-06-10 was reported by 2026-06-10T24:00 = the moment: before it. One stamped
    # 2026-06-11 may have been reported at any hour of today: after it. 2026-06-12: after.
    assert not is_after("2026-06-10", "2026-06-11")
    assert is_after("2026-06-11", "2026-06-11")
    assert is_after("2026-06-12", "2026-06-11")
    # Timestamps: at or after the moment is after it.
    assert not is_after("2026-06-10T23:00:00", "2026-06-11")
    assert is_after("2026-06-11T00:00:00", "2026-06-11")
    # The end of a diagnosed hour (14:00 record -> 15:00): an order at 14:59 is before it,
    # a day-only stamp of that day may be later (it covers up to 24:00).
    assert not is_after("2026-06-11T14:59:00", "2026-06-11T15:00:00")
    assert is_after("2026-06-11", "2026-06-11T15:00:00")


def test_declarations() -> None:
    window = {"start": "2026-06-04", "end": "2026-06-11"}
    assert declared_as_of(None, window) == "2026-06-11"  # the default: the window's end
    assert declared_as_of(None, {"timestamp": "2025-08-18T20:00:00"}) == "2025-08-18T21:00:00"
    assert declared_as_of(None, {"day": "2026-06-11"}) is None
    assert declared_as_of(NO_AS_OF, window) is None
    assert declared_as_of(as_of_param("as_of"), {"as_of": "2026-05-03"}) == "2026-05-03"
    assert declared_as_of(as_of_param("as_of"), {"as_of": ""} | window) == "2026-06-11"
    assert hour_end_as_of("at")({"at": "2025-01-01T23:00:00"}) == "2025-01-02T00:00:00"


ORDERS = {"work_orders": [
    {"wo_id": "WO-1", "reported_date": "2026-06-03T02:00:00"},
    {"wo_id": "WO-2", "reported_date": "2026-06-12T08:00:00"},
]}


def test_documents_after_names_the_late_document() -> None:
    assert documents_after([ORDERS], "2026-06-11") == ["WO-2 reported_date 2026-06-12T08:00:00"]
    assert documents_after([ORDERS], "2026-06-13") == []
    assert documents_after([ORDERS], None) == []
    # an alert linked to the order that followed it: the order was reported alert + lead
    # (2026-06-10 20:00 + 12 h = 2026-06-11 08:00, after the moment); the alert itself
    # (2026-06-10 20:00) is before it
    link = {"alert_time": "2026-06-10T20:00:00", "wo_id": "WO-5", "lead_time_hours": 12.0}
    assert documents_after([{"links": [link]}], "2026-06-11") == [
        "WO-5 reported 2026-06-11T08:00:00 (linked to an alert)"]
    assert documents_after([{"links": [link | {"wo_id": None, "lead_time_hours": None}]}],
                           "2026-06-11") == []
    # computed times (a forecast's steps, a window's bounds) are no documents
    forecast = {"timestamps": ["2026-06-20T00:00:00"], "final": "2026-06-30"}
    assert documents_after([forecast], "2026-06-11") == []


def _derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"orders": [o["wo_id"] for o in outputs[0]["work_orders"]]}


async def _plan(*_: Any) -> Plan | None:
    return None


SPEC = FamilySpec(name="asof_test_family", domain="wo", category="Data Query", draw=_plan,
                  derive=_derive, summarise=lambda p, a: "")


def _probe(params: dict[str, Any], outputs: list[dict[str, Any]]) -> Probe:
    call = ToolCall(name="get_corrective_work_orders", args={"equipment_id": "U"})
    plan = Plan(params=params, tool_sequence=[call], mentions=["U"])
    return Probe(family=SPEC.name, params=params, nontrivial=None, plan=plan, role="operator",
                 parents=[], outputs=outputs, answer=_derive(params, outputs), outcome=None)


async def test_the_gate_refuses_a_draw_resting_on_a_later_document_and_counts_it() -> None:
    ctx = FamilyContext(None, None, 1)  # type: ignore[arg-type]  # the gate uses neither
    params = {"asset_id": "U", "start": "2026-06-01", "end": "2026-06-11"}
    assert await _gated(SPEC, ctx, 3, _probe(params, [ORDERS])) is None
    assert ctx.gate_drops == {SPEC.name: {AFTER_AS_OF: 1}}
    # the same draw with the window to 2026-06-13: kept, its moment recorded on the seed
    later = params | {"end": "2026-06-13"}
    seed = await _gated(SPEC, ctx, 4, _probe(later, [ORDERS]))
    assert seed is not None and seed.as_of == "2026-06-13"
    assert seed.answer == {"orders": ["WO-1", "WO-2"]}
