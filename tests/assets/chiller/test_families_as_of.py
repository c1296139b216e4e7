"""Chiller diagnosis -> action as of the diagnosed hour (issue 29): an order reported after
the hour did not exist when its reading came in."""

from __future__ import annotations

import numpy as np

from assets.chiller.families_multi import HOUR_START, diagnosis_to_action
from generator.generate.draw.asof import declared_as_of, documents_after
from generator.generate.draw.families import FAMILIES
from generator.generate.model import TaskSeed, ToolCall

HOUR = "2025-08-18T20:00:00"


def _parent() -> TaskSeed:
    call = ToolCall(name="history", args={"site_name": "MAIN", "asset_id": "CH-MAIN-02",
                                          "start": HOUR, "final": "2025-08-18T21:00:00"})
    params = {"asset_id": "CH-MAIN-02", "site": "MAIN", "timestamp": HOUR, "note": "rules"}
    return TaskSeed(family="chiller_fmsr_diagnose_fault", domain="fmsr",
                    category="Diagnostic Assessment", role="operator", draw=0, params=params,
                    tool_sequence=[call], answer={}, answer_summary="", difficulty="medium",
                    mentions=["CH-MAIN-02", HOUR])


def _in_call(call: ToolCall, reported: str) -> bool:
    lo, hi = call.args.get("start_date"), call.args.get("end_date")
    return (lo is None or reported >= lo) and (hi is None or reported < hi)


async def test_an_order_reported_a_day_after_the_diagnosed_hour_is_not_on_record() -> None:
    # Diagnosed hour 2025-08-18 20:00-21:00. Corrective orders count from 14 days before
    # (2025-08-04T20:00) up to the hour's end (21:00). An order of 2025-08-19T20:00 (24 h
    # later) did not exist yet; one of 2025-08-10T09:00 did; one of 20:30 in the hour did.
    plan = await diagnosis_to_action(None, np.random.default_rng(0), [_parent()])  # type: ignore[arg-type]
    assert plan is not None
    orders = plan.tool_sequence[-1]
    assert orders.args == {"equipment_id": "CH-MAIN-02", "start_date": "2025-08-04T20:00:00",
                           "end_date": "2025-08-18T21:00:00"}
    assert not _in_call(orders, "2025-08-19T20:00:00")
    assert _in_call(orders, "2025-08-10T09:00:00") and _in_call(orders, "2025-08-18T20:30:00")
    # The family declares the hour's end as its as-of moment; the gate refuses a later order.
    spec = FAMILIES.get("chiller_ma_diagnosis_to_action")
    moment = declared_as_of(spec.as_of, plan.params)
    assert moment == "2025-08-18T21:00:00"
    late = {"work_orders": [{"wo_id": "WO-7", "reported_date": "2025-08-19T20:00:00"}]}
    assert documents_after([late], moment) == ["WO-7 reported_date 2025-08-19T20:00:00"]
    # The reading that stops at the record's own time stamp is gated, and the text says
    # which bound counts.
    start_only = next(r for r in plan.readings if r.name == HOUR_START)
    assert start_only.tool_sequence is not None
    assert start_only.tool_sequence[-1].args["end_date"] == HOUR
    assert plan.constraint is not None and "up to the end of that hour" in plan.constraint
