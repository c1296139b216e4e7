"""Generic work-order tools: work orders, events, failure codes, distributions, predictions.

Every tool reads the class's work-order documents through ``ctx.store`` and is
deterministic. The numeric methods (Markov next-code estimate, alert lead times) live in
:mod:`generator.tools.workorders`.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Literal

import numpy as np
from pydantic import Field

from generator.errors import UserError
from generator.store.couch import Doc
from generator.tools import workorders as wo
from generator.tools.data_common import (
    ISO,
    DataModel,
    NoArgs,
    Timestamp,
    check_equipment,
    check_window,
)
from generator.tools.registry import ToolContext, tool

# -- wo --------------------------------------------------------------------------------


class EquipmentWindowArgs(DataModel):
    """Arguments naming equipment and a date window."""

    equipment_id: str = Field(description="Equipment (asset) id")
    start_date: Timestamp | None = Field(
        default=None,
        description="Window start, inclusive (YYYY-MM-DD[THH:MM:SS]); None = from the first",
    )
    end_date: Timestamp | None = Field(
        default=None,
        description="Window end, exclusive (YYYY-MM-DD[THH:MM:SS]); None = to the last",
    )


class WorkOrder(DataModel):
    """One work order."""

    wo_id: str = Field(description="Work-order id")
    equipment_id: str = Field(description="Equipment id")
    site_name: str | None = Field(default=None, description="Site")
    preventive: bool = Field(description="True for preventive, False for corrective")
    wo_type: str | None = Field(default=None, description="'preventive' or 'corrective'")
    primary_code: str = Field(description="Failure or activity code (see `get_failure_codes`)")
    wo_description: str | None = Field(default=None, description="Free-text description")
    work_priority: int | None = Field(default=None, description="Priority (1 = highest)")
    reported_date: str = Field(description="When it was reported (ISO 8601)")
    actual_finish: str | None = Field(default=None, description="When it was finished")
    actual_labor_hours: float | None = Field(default=None, description="Labour hours")


def _work_order(doc: Doc) -> WorkOrder:
    fields = {k: doc[k] for k in WorkOrder.model_fields if k in doc}
    fields["preventive"] = wo.is_preventive(doc)  # stored as upstream's "TRUE" / "FALSE"
    return WorkOrder.model_validate(fields)


class WorkOrdersResult(DataModel):
    """Work orders of equipment in a window."""

    equipment_id: str = Field(description="The equipment")
    start_date: str | None = Field(description="Window start (inclusive)")
    end_date: str | None = Field(description="Window end (exclusive)")
    kind: Literal["all", "preventive", "corrective"] = Field(description="Which work orders")
    count: int = Field(description="Number of work orders")
    work_orders: list[WorkOrder] = Field(description="Work orders sorted by reported date")


async def _work_orders(
    args: EquipmentWindowArgs, ctx: ToolContext, kind: Literal["all", "preventive", "corrective"]
) -> WorkOrdersResult:
    check_window(args.start_date, args.end_date)
    await check_equipment(ctx, args.equipment_id)
    docs = await ctx.store.work_orders(args.equipment_id, args.start_date, args.end_date, kind)
    orders = [_work_order(d) for d in docs]
    return WorkOrdersResult(
        equipment_id=args.equipment_id,
        start_date=args.start_date,
        end_date=args.end_date,
        kind=kind,
        count=len(orders),
        work_orders=orders,
    )


@tool("get_work_orders", domain="wo", args=EquipmentWindowArgs, result=WorkOrdersResult)
async def get_work_orders(args: EquipmentWindowArgs, ctx: ToolContext) -> WorkOrdersResult:
    """All work orders of a piece of equipment reported in [start_date, end_date)."""
    return await _work_orders(args, ctx, "all")


@tool("get_preventive_work_orders", domain="wo", args=EquipmentWindowArgs, result=WorkOrdersResult)
async def get_preventive_work_orders(
    args: EquipmentWindowArgs, ctx: ToolContext
) -> WorkOrdersResult:
    """Preventive (planned) work orders of equipment reported in [start_date, end_date)."""
    return await _work_orders(args, ctx, "preventive")


@tool("get_corrective_work_orders", domain="wo", args=EquipmentWindowArgs, result=WorkOrdersResult)
async def get_corrective_work_orders(
    args: EquipmentWindowArgs, ctx: ToolContext
) -> WorkOrdersResult:
    """Corrective (unplanned) work orders of equipment reported in [start_date, end_date)."""
    return await _work_orders(args, ctx, "corrective")


class Event(DataModel):
    """One event: an alert or a work order."""

    event_id: str = Field(description="Event id")
    equipment_id: str = Field(description="Equipment id")
    event_group: str = Field(description="ALERT or WORK_ORDER")
    event_category: str = Field(description="Alert rule, or PM / CM for work orders")
    event_type: str = Field(description="Alert rule or work-order primary code")
    description: str | None = Field(default=None, description="Free text")
    event_time: str = Field(description="When it happened (ISO 8601)")


class EventsResult(DataModel):
    """Events of equipment in a window."""

    equipment_id: str = Field(description="The equipment")
    count: int = Field(description="Number of events")
    events: list[Event] = Field(description="Events sorted by time")


@tool("get_events", domain="wo", args=EquipmentWindowArgs, result=EventsResult)
async def get_events(args: EquipmentWindowArgs, ctx: ToolContext) -> EventsResult:
    """Events (alerts and work orders) of equipment in [start_date, end_date)."""
    check_window(args.start_date, args.end_date)
    await check_equipment(ctx, args.equipment_id)
    docs = await ctx.store.events(args.equipment_id, args.start_date, args.end_date)
    events = [Event.model_validate({k: d[k] for k in Event.model_fields if k in d}) for d in docs]
    return EventsResult(equipment_id=args.equipment_id, count=len(events), events=events)


class FailureCode(DataModel):
    """One failure code of the catalogue."""

    code: str = Field(description="Code used as a work order's primary_code")
    fault_type: str | None = Field(
        description="Fault type the code stands for in the class's fault classification, if any"
    )
    description: str = Field(description="Meaning")


class FailureCodesResult(DataModel):
    """The failure-code catalogue."""

    failure_codes: list[FailureCode] = Field(description="Codes sorted by code")


@tool("get_failure_codes", domain="wo", args=NoArgs, result=FailureCodesResult)
async def get_failure_codes(args: NoArgs, ctx: ToolContext) -> FailureCodesResult:
    """The catalogue of failure and activity codes used on work orders."""
    docs = await ctx.store.failure_codes()
    return FailureCodesResult(
        failure_codes=[
            FailureCode(
                code=str(d["code"]),
                fault_type=d.get("fault_type"),
                description=str(d["description"]),
            )
            for d in docs
        ]
    )


class DistributionResult(DataModel):
    """Counts of work orders by code and type."""

    equipment_id: str = Field(description="The equipment")
    total: int = Field(description="Number of work orders in the window")
    by_primary_code: dict[str, int] = Field(description="Count per primary code, sorted by code")
    by_type: dict[str, int] = Field(description="Count of 'preventive' and 'corrective'")
    share_by_primary_code: dict[str, float] = Field(description="Fraction per primary code")


@tool(
    "get_work_order_distribution", domain="wo", args=EquipmentWindowArgs, result=DistributionResult
)
async def get_work_order_distribution(
    args: EquipmentWindowArgs, ctx: ToolContext
) -> DistributionResult:
    """Count the work orders of equipment in [start_date, end_date) by primary code and by type."""
    listed = await _work_orders(args, ctx, "all")
    codes = Counter(o.primary_code for o in listed.work_orders)
    types = Counter("preventive" if o.preventive else "corrective" for o in listed.work_orders)
    total = listed.count
    return DistributionResult(
        equipment_id=args.equipment_id,
        total=total,
        by_primary_code=dict(sorted(codes.items())),
        by_type={"preventive": types["preventive"], "corrective": types["corrective"]},
        share_by_primary_code={c: n / total for c, n in sorted(codes.items())},
    )


class NextWorkOrderResult(DataModel):
    """A first-order Markov estimate of the next work order's primary code."""

    equipment_id: str = Field(description="The equipment")
    history: list[str] = Field(description="Its primary codes in the window, in date order")
    last_code: str = Field(description="Primary code of its latest work order")
    predicted_code: str = Field(description="Most probable next primary code")
    probability: float = Field(description="P(predicted | last)")
    probabilities: dict[str, float] = Field(
        description="P(code | last) for every code, summing to 1"
    )
    own_transition_counts: dict[str, int] = Field(
        description="Transitions last → code of this equipment (n[last][code] > 0)"
    )
    fleet_transition_counts: dict[str, int] = Field(
        description="Transitions last → code over all equipment in the window (f[last][code] > 0)"
    )
    own_transitions_from_last: int = Field(
        description="n[last]: this equipment's transitions out of the last code"
    )
    fleet_transitions_from_last: int = Field(
        description="f[last]: all equipment's transitions out of the last code; when both are 0 "
        "the estimate is uniform and the tie rule decides"
    )
    method: str = Field(description="The estimator, its formula and smoothing")


MARKOV_METHOD = (
    "first-order Markov chain over consecutive primary codes (by reported date): "
    "P(b|a) = (n[a][b] + λ·q(b|a)) / (n[a] + λ) with λ = 1, n from this equipment, and the "
    "fleet prior q(b|a) = (f[a][b] + 1) / (f[a] + |C|) (Laplace smoothing over the |C| codes "
    "of the catalogue and those seen), f from all equipment in the same window; prediction = "
    "argmax over b of P(b|last code), ties broken by the alphabetically first code"
)


@tool("predict_next_work_order", domain="wo", args=EquipmentWindowArgs, result=NextWorkOrderResult)
async def predict_next_work_order(
    args: EquipmentWindowArgs, ctx: ToolContext
) -> NextWorkOrderResult:
    """Predict the primary code of equipment's next work order (first-order Markov estimate).

    Transitions are counted between consecutive work orders (by reported date) in
    [start_date, end_date): this equipment's own, plus those of all equipment as a
    Laplace-smoothed prior weighted as one pseudo transition (see ``MARKOV_METHOD``).
    """
    check_window(args.start_date, args.end_date)
    await check_equipment(ctx, args.equipment_id)
    docs = await ctx.store.work_orders(None, args.start_date, args.end_date)
    by_equipment: dict[str, list[Doc]] = {}
    for d in docs:
        by_equipment.setdefault(str(d["equipment_id"]), []).append(d)
    sequences = {
        e: [
            str(d["primary_code"])
            for d in sorted(ds, key=lambda d: (d["reported_date"], d["wo_id"]))
        ]
        for e, ds in by_equipment.items()
    }
    own = sequences.get(args.equipment_id, [])
    if not own:
        raise UserError(
            f"equipment {args.equipment_id!r} has no work orders in "
            f"[{args.start_date or 'first'}, {args.end_date or 'last'})",
            fix="widen the window (or omit start_date and end_date)",
        )
    catalogue = [str(c["code"]) for c in await ctx.store.failure_codes()]
    est = wo.predict_next_code(own, [sequences[e] for e in sorted(sequences)], catalogue)
    return NextWorkOrderResult(
        equipment_id=args.equipment_id,
        history=own,
        last_code=est.last_code,
        predicted_code=est.predicted_code,
        probability=est.probabilities[est.predicted_code],
        probabilities=est.probabilities,
        own_transition_counts=est.own_counts,
        fleet_transition_counts=est.fleet_counts,
        own_transitions_from_last=est.own_total,
        fleet_transitions_from_last=est.fleet_total,
        method=MARKOV_METHOD,
    )


class AlertToFailureArgs(EquipmentWindowArgs):
    """Arguments of `analyze_alert_to_failure`."""

    within_days: float = Field(
        default=7.0,
        gt=0,
        le=365,
        description="Horizon N: a work order counts if within N days after the alert",
    )


class AlertLink(DataModel):
    """An alert and the corrective work order that followed it, if any."""

    alert_time: str = Field(description="Alert start (ISO 8601)")
    rule_id: str = Field(description="Alert rule id (see `get_events`)")
    description: str | None = Field(description="Alert text")
    wo_id: str | None = Field(description="First corrective work order within N days, or None")
    primary_code: str | None = Field(description="Its primary code")
    lead_time_hours: float | None = Field(description="Hours from alert to that work order")


class AlertToFailureResult(DataModel):
    """How often alerts were followed by corrective work."""

    equipment_id: str = Field(description="The equipment")
    within_days: float = Field(description="Horizon N in days")
    alerts: int = Field(description="Number of alerts in the window")
    followed: int = Field(description="Alerts followed by a corrective work order within N days")
    share_followed: float | None = Field(description="followed / alerts; None when no alerts")
    mean_lead_time_hours: float | None = Field(description="Mean lead time of the followed alerts")
    links: list[AlertLink] = Field(description="One entry per alert, in time order")


@tool("analyze_alert_to_failure", domain="wo", args=AlertToFailureArgs, result=AlertToFailureResult)
async def analyze_alert_to_failure(
    args: AlertToFailureArgs, ctx: ToolContext
) -> AlertToFailureResult:
    """For each alert of equipment in [start_date, end_date), the first corrective work
    order within N days after it, the lead time, and the share of alerts so followed.

    A work order matches an alert when ``alert < reported_date ≤ alert + N days``; work
    orders reported up to N days after end_date are considered so late alerts can match.
    """
    check_window(args.start_date, args.end_date)
    await check_equipment(ctx, args.equipment_id)
    alerts = await ctx.store.alerts(args.equipment_id, args.start_date, args.end_date)
    wo_end = None
    if args.end_date is not None:
        wo_end = (
            datetime.strptime(args.end_date, ISO) + timedelta(days=args.within_days)
        ).strftime(ISO)
    orders = await ctx.store.work_orders(args.equipment_id, args.start_date, wo_end, "corrective")
    matches = wo.match_alerts(
        [str(a["start_time"]) for a in alerts],
        [str(o["reported_date"]) for o in orders],
        args.within_days,
    )
    links = []
    for m in matches:
        a = alerts[m.alert_index]
        o = orders[m.wo_index] if m.wo_index is not None else None
        links.append(
            AlertLink(
                alert_time=str(a["start_time"]),
                rule_id=str(a["rule_id"]),
                description=a.get("description"),
                wo_id=str(o["wo_id"]) if o else None,
                primary_code=str(o["primary_code"]) if o else None,
                lead_time_hours=m.lead_hours,
            )
        )
    leads = [m.lead_hours for m in matches if m.lead_hours is not None]
    return AlertToFailureResult(
        equipment_id=args.equipment_id,
        within_days=args.within_days,
        alerts=len(links),
        followed=len(leads),
        share_followed=len(leads) / len(links) if links else None,
        mean_lead_time_hours=float(np.mean(leads)) if leads else None,
        links=links,
    )
