"""Work-order task families of the chiller class: corrective work in a window, alert follow-up."""

from __future__ import annotations

from typing import Any

import numpy as np

from assets.chiller.families_common import (
    EVENT_SHARE,
    WINDOW_STATED,
    alert_times,
    draw_window,
    units_with_telemetry,
)
from generator.api import (
    FamilyContext,
    GroundedAsset,
    Plan,
    TaskSeed,
    ToolCall,
    and_join,
    day,
    family,
    num,
    pick,
    window_end_readings,
)


def _window_args(asset_id: str, start: str, end: str) -> dict[str, Any]:
    return {"equipment_id": asset_id, "start_date": start, "end_date": end}


async def _eventful_window(
    ctx: FamilyContext, rng: np.random.Generator, min_days: int, max_days: int
) -> tuple[GroundedAsset, str, str] | None:
    """Mostly a unit and window holding one of its alerts, else any unit and window."""
    units = units_with_telemetry(ctx)
    if not units:
        return None
    a = pick(rng, units)
    window = None
    if rng.random() < EVENT_SHARE:
        alerting = [(x, al) for x in units if (al := await alert_times(ctx, x))]
        if alerting:
            a, alerts = pick(rng, alerting)
            window = draw_window(a, rng, min_days, max_days, around=day(pick(rng, alerts)[0]))
    if window is None:
        window = draw_window(a, rng, min_days, max_days)
    return None if window is None else (a, window[0], window[1])


# -- corrective work orders in a window -----------------------------------------------------


def _corrective_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    orders = outputs[0]["work_orders"]
    return {
        "count": len(orders),
        "work_orders": {str(o["wo_id"]): str(o["primary_code"]) for o in orders},
    }


def _corrective_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    listed = ", ".join(f"{k} ({v})" for k, v in answer["work_orders"].items())
    return (
        f"{answer['count']} corrective work orders for {params['asset_id']} reported in "
        f"[{params['start']}, {params['end']})" + (f": {listed}" if listed else "")
    )


@family(
    "chiller_wo_corrective_window",
    domain="wo",
    category="Data Query",
    derive=_corrective_derive,
    summarise=_corrective_summary,
    outcome=lambda answer: "some" if answer["count"] else "none",
    trivial=("none",),
)
async def corrective_window(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """The corrective work orders of a chiller reported in a window, with their codes."""
    found = await _eventful_window(ctx, rng, 3, 30)
    if found is None:
        return None
    a, start, end = found
    calls = [ToolCall(name="get_corrective_work_orders", args=_window_args(a.asset_id, start, end))]
    return Plan(
        params={"asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end},
        tool_sequence=calls,
        mentions=[a.asset_id, start, end],
        grounding={"asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end},
        # a list of work orders with a code each
        difficulty="medium",
        hard_features=["multi_output"],
        readings=window_end_readings(calls, "end_date", end),
        stated=WINDOW_STATED,
    )


# -- alerts followed by corrective work -------------------------------------------------------

# The lead time runs to the first corrective order after each alert (the tool's match): the
# text says so, since an alert may be followed by several orders within the horizon.
FIRST_ORDER_NOTE = ("Measure each lead time from the alert to the first corrective work "
                    "order after it.")


def _alert_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    lead = out["mean_lead_time_hours"]
    return {
        "alerts": int(out["alerts"]),
        "followed": int(out["followed"]),
        "mean_lead_time_hours": None if lead is None else float(lead),
        "work_orders": sorted({str(x["wo_id"]) for x in out["links"] if x["wo_id"]}),
    }


def _alert_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = (
        f"{params['asset_id']} in [{params['start']}, {params['end']}): {answer['alerts']} "
        f"alerts, {answer['followed']} followed by corrective work within "
        f"{params['within_days']} days"
    )
    if answer["mean_lead_time_hours"] is not None:
        text += f" (mean lead time {num(answer['mean_lead_time_hours'], 1)} h; "
        text += f"first corrective order after each: {and_join(answer['work_orders'])})"
    return text


def alert_outcome(answer: dict[str, Any]) -> str:
    """none (no alerts), followed (some followed) or unanswered."""
    if answer["alerts"] == 0:
        return "none"
    return "followed" if answer["followed"] else "unanswered"


@family(
    "chiller_wo_alert_to_failure",
    domain="wo",
    category="Data Query",
    derive=_alert_derive,
    summarise=_alert_summary,
    outcome=alert_outcome,
    trivial=("none",),
)
async def alert_to_failure(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """How many of a chiller's alerts in a window were followed by corrective work within
    N days, and the mean lead time from each alert to the first corrective order after it
    (stated in the text; ``work_orders``, not asked, holds those first orders)."""
    found = await _eventful_window(ctx, rng, 5, 40)
    if found is None:
        return None
    a, start, end = found
    within = int(pick(rng, (2, 3, 7, 14)))
    args = {**_window_args(a.asset_id, start, end), "within_days": float(within)}
    calls = [ToolCall(name="analyze_alert_to_failure", args=args)]
    return Plan(
        params={"asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end,
                "within_days": within, "note": FIRST_ORDER_NOTE},
        tool_sequence=calls,
        mentions=[a.asset_id, start, end],
        grounding={"asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"mean_lead_time_hours": 0.1},
        readings=window_end_readings(calls, "end_date", end),
        stated=WINDOW_STATED,
    )
