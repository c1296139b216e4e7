"""Data tools of the transformer class (iot, wo, fmsr, tsfm domains), read from the store.

Every tool reads through ``ctx.store`` (:class:`generator.store.query.FleetStore`) and is
deterministic: the same store gives the same answer. Time windows are half-open
``[start, final)``; timestamps are ISO 8601 ``YYYY-MM-DDTHH:MM:SS`` and a bare date
``YYYY-MM-DD`` means its midnight. The numeric methods live in
:mod:`assets.transformer.timeseries` and :mod:`assets.transformer.workorders`.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from assets.transformer import timeseries as ts
from assets.transformer import workorders as wo
from generator.api import (
    AssetClass,
    Doc,
    ToolContext,
    UserError,
    available_asset_classes,
    load_asset_class,
    tool,
)

ISO = "%Y-%m-%dT%H:%M:%S"


def _normalise_time(value: str) -> str:
    """Accept ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM[:SS]``; return ``YYYY-MM-DDTHH:MM:SS``."""
    for fmt in ("%Y-%m-%d", "%Y-%m-%dT%H:%M", ISO):
        try:
            return datetime.strptime(value, fmt).strftime(ISO)
        except ValueError:
            continue
    raise ValueError(f"expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS, got {value!r}")


Timestamp = Annotated[str, AfterValidator(_normalise_time)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoArgs(_Model):
    """A tool without arguments."""


# -- shared checks ---------------------------------------------------------------------


def _check_window(start: str | None, final: str | None) -> None:
    if start and final and start >= final:
        raise UserError(
            f"empty time window: start {start!r} is not before final {final!r}",
            fix="give a start earlier than the final time (the window is [start, final))",
        )


async def _check_site(ctx: ToolContext, site_name: str) -> None:
    sites = await ctx.store.sites()
    if site_name not in sites:
        raise UserError(f"unknown site {site_name!r}", options=sites, fix="use a listed site")


async def _check_asset(ctx: ToolContext, site_name: str, asset_id: str) -> None:
    await _check_site(ctx, site_name)
    plates = await ctx.store.assets()
    here = [str(p["asset_id"]) for p in plates if p["site_name"] == site_name]
    if asset_id not in here:
        elsewhere = [str(p["site_name"]) for p in plates if p["asset_id"] == asset_id]
        where = f" (it is at site {elsewhere[0]!r})" if elsewhere else ""
        raise UserError(
            f"asset {asset_id!r} is not at site {site_name!r}{where}",
            options=here,
            fix=f"use an asset of site {site_name!r}",
        )


async def _check_sensors(ctx: ToolContext, asset_id: str, sensors: list[str]) -> list[str]:
    known = await ctx.store.sensors(asset_id)
    bad = [s for s in sensors if s not in known]
    if bad:
        raise UserError(
            f"asset {asset_id!r} has no telemetry sensor {bad[0]!r}",
            options=known,
            fix="use sensor names from the `sensors` tool",
        )
    return known


async def _check_equipment(ctx: ToolContext, equipment_id: str) -> None:
    await ctx.store.nameplate(equipment_id)  # raises UserError listing the valid ids


# -- iot -------------------------------------------------------------------------------


class SitesResult(_Model):
    """The sites of the fleet."""

    sites: list[str] = Field(description="Site names, sorted")


@tool("sites", domain="iot", args=NoArgs, result=SitesResult)
async def sites(args: NoArgs, ctx: ToolContext) -> SitesResult:
    """List the sites that hold transformers."""
    return SitesResult(sites=await ctx.store.sites())


class SiteArgs(_Model):
    """Arguments naming a site."""

    site_name: str = Field(description="Site name, as listed by `sites`")


class AssetInfo(_Model):
    """One asset and its nameplate."""

    asset_id: str = Field(description="Asset id")
    site_name: str = Field(description="Site of the asset")
    nameplate: dict[str, Any] = Field(description="Nameplate data (rating, voltages, cooling, ...)")


class AssetsResult(_Model):
    """The assets of a site."""

    site_name: str = Field(description="The site")
    assets: list[AssetInfo] = Field(description="Assets at the site, sorted by id")


@tool("assets", domain="iot", args=SiteArgs, result=AssetsResult)
async def assets(args: SiteArgs, ctx: ToolContext) -> AssetsResult:
    """List the transformers at a site with their nameplate data."""
    await _check_site(ctx, args.site_name)
    plates = await ctx.store.assets(args.site_name)
    return AssetsResult(
        site_name=args.site_name,
        assets=[
            AssetInfo(asset_id=str(p["asset_id"]), site_name=str(p["site_name"]), nameplate=p)
            for p in plates
        ],
    )


class AssetArgs(_Model):
    """Arguments naming an asset at a site."""

    site_name: str = Field(description="Site name, as listed by `sites`")
    asset_id: str = Field(description="Asset id at that site, as listed by `assets`")


class SensorInfo(_Model):
    """One sensor of an asset."""

    name: str = Field(description="Field name in the records")
    unit: str | None = Field(description="Engineering unit (None if not in the asset class)")
    description: str | None = Field(description="What it measures")


class SensorsResult(_Model):
    """The sensors of an asset."""

    asset_id: str = Field(description="The asset")
    sensors: list[SensorInfo] = Field(description="Hourly telemetry sensors (usable in `history`)")
    oil_sample_sensors: list[SensorInfo] = Field(
        description="Laboratory oil-sample quantities (returned by `oil_samples`)"
    )


def _sensor_info(asset: AssetClass, name: str) -> SensorInfo:
    known = {s.name: s for s in asset.sensors}
    s = known.get(name)
    return SensorInfo(
        name=name, unit=s.unit if s else None, description=s.description if s else None
    )


@tool("sensors", domain="iot", args=AssetArgs, result=SensorsResult)
async def sensors(args: AssetArgs, ctx: ToolContext) -> SensorsResult:
    """List the telemetry sensors (and oil-sample quantities) of a transformer, with units."""
    await _check_asset(ctx, args.site_name, args.asset_id)
    names = await ctx.store.sensors(args.asset_id)
    return SensorsResult(
        asset_id=args.asset_id,
        sensors=[_sensor_info(ctx.asset, n) for n in names],
        oil_sample_sensors=[
            _sensor_info(ctx.asset, s.name) for s in ctx.asset.sensors_of("oil_sample")
        ],
    )


class HistoryArgs(_Model):
    """Arguments of `history`."""

    site_name: str = Field(description="Site name, as listed by `sites`")
    asset_id: str = Field(description="Asset id at that site")
    start: Timestamp = Field(description="Window start, inclusive (YYYY-MM-DD[THH:MM:SS])")
    final: Timestamp | None = Field(
        default=None, description="Window end, exclusive (YYYY-MM-DD[THH:MM:SS]); None = to the end"
    )
    sensors: list[str] | None = Field(
        default=None, description="Sensors to return; None = all telemetry sensors"
    )


class RecordsResult(_Model):
    """Time-stamped records of an asset in a window."""

    asset_id: str = Field(description="The asset")
    start: str = Field(description="Window start (inclusive)")
    final: str | None = Field(description="Window end (exclusive); None = to the end")
    count: int = Field(description="Number of records")
    records: list[dict[str, Any]] = Field(
        description="Records sorted by time: `timestamp` plus one key per quantity"
    )


def _records(docs: list[Doc]) -> list[dict[str, Any]]:
    drop = {"asset_id", "site_name", "dataset"}
    return [{k: v for k, v in d.items() if k not in drop} for d in docs]


@tool("history", domain="iot", args=HistoryArgs, result=RecordsResult)
async def history(args: HistoryArgs, ctx: ToolContext) -> RecordsResult:
    """Hourly telemetry of a transformer in the window [start, final).

    Optionally only some sensors; rows are sorted by time.
    """
    _check_window(args.start, args.final)
    await _check_asset(ctx, args.site_name, args.asset_id)
    if args.sensors is not None:
        await _check_sensors(ctx, args.asset_id, args.sensors)
    docs = await ctx.store.history(args.asset_id, args.start, args.final, args.sensors)
    rows = _records(docs)
    return RecordsResult(
        asset_id=args.asset_id, start=args.start, final=args.final, count=len(rows), records=rows
    )


class WindowArgs(_Model):
    """Arguments naming an asset at a site and a time window."""

    site_name: str = Field(description="Site name, as listed by `sites`")
    asset_id: str = Field(description="Asset id at that site")
    start: Timestamp = Field(description="Window start, inclusive (YYYY-MM-DD[THH:MM:SS])")
    final: Timestamp | None = Field(
        default=None, description="Window end, exclusive (YYYY-MM-DD[THH:MM:SS]); None = to the end"
    )


@tool("oil_samples", domain="iot", args=WindowArgs, result=RecordsResult)
async def oil_samples(args: WindowArgs, ctx: ToolContext) -> RecordsResult:
    """Laboratory oil samples (dissolved gases, moisture, oil quality) of a transformer
    in [start, final).
    """
    _check_window(args.start, args.final)
    await _check_asset(ctx, args.site_name, args.asset_id)
    docs = await ctx.store.records("oil_sample", args.asset_id, args.start, args.final)
    rows = _records(docs)
    return RecordsResult(
        asset_id=args.asset_id, start=args.start, final=args.final, count=len(rows), records=rows
    )


# -- wo --------------------------------------------------------------------------------


class EquipmentWindowArgs(_Model):
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


class WorkOrder(_Model):
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


class WorkOrdersResult(_Model):
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
    _check_window(args.start_date, args.end_date)
    await _check_equipment(ctx, args.equipment_id)
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


class Event(_Model):
    """One event: an alert or a work order."""

    event_id: str = Field(description="Event id")
    equipment_id: str = Field(description="Equipment id")
    event_group: str = Field(description="ALERT or WORK_ORDER")
    event_category: str = Field(description="Alert rule, or PM / CM for work orders")
    event_type: str = Field(description="Alert rule or work-order primary code")
    description: str | None = Field(default=None, description="Free text")
    event_time: str = Field(description="When it happened (ISO 8601)")


class EventsResult(_Model):
    """Events of equipment in a window."""

    equipment_id: str = Field(description="The equipment")
    count: int = Field(description="Number of events")
    events: list[Event] = Field(description="Events sorted by time")


@tool("get_events", domain="wo", args=EquipmentWindowArgs, result=EventsResult)
async def get_events(args: EquipmentWindowArgs, ctx: ToolContext) -> EventsResult:
    """Events (temperature alarms and trips, work orders) of equipment in [start_date, end_date)."""
    _check_window(args.start_date, args.end_date)
    await _check_equipment(ctx, args.equipment_id)
    docs = await ctx.store.events(args.equipment_id, args.start_date, args.end_date)
    events = [Event.model_validate({k: d[k] for k in Event.model_fields if k in d}) for d in docs]
    return EventsResult(equipment_id=args.equipment_id, count=len(events), events=events)


class FailureCode(_Model):
    """One failure code of the catalogue."""

    code: str = Field(description="Code used as a work order's primary_code")
    fault_type: str | None = Field(description="IEC 60599 fault type, when it is a DGA fault")
    description: str = Field(description="Meaning")


class FailureCodesResult(_Model):
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


class DistributionResult(_Model):
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


class NextWorkOrderResult(_Model):
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
    _check_window(args.start_date, args.end_date)
    await _check_equipment(ctx, args.equipment_id)
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


class AlertLink(_Model):
    """An alert and the corrective work order that followed it, if any."""

    alert_time: str = Field(description="Alert start (ISO 8601)")
    rule_id: str = Field(description="Alert rule, e.g. OTI_ALARM")
    description: str | None = Field(description="Alert text")
    wo_id: str | None = Field(description="First corrective work order within N days, or None")
    primary_code: str | None = Field(description="Its primary code")
    lead_time_hours: float | None = Field(description="Hours from alert to that work order")


class AlertToFailureResult(_Model):
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
    _check_window(args.start_date, args.end_date)
    await _check_equipment(ctx, args.equipment_id)
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


# -- fmsr ------------------------------------------------------------------------------


class AssetNameArgs(_Model):
    """Arguments naming an asset class or an asset."""

    asset_name: str = Field(
        description="Asset class (e.g. 'transformer') or an asset id in the store"
    )


class FailureModeInfo(_Model):
    """One failure mode of the asset class."""

    id: str = Field(description="Identifier")
    name: str = Field(description="Human name")
    description: str = Field(description="Mechanism")
    failure_code: str = Field(description="Code used on work orders")
    iec60599_code: str | None = Field(description="IEC 60599 fault class, if DGA reveals it")
    sensors: list[str] = Field(description="Sensors whose readings reveal it")


class FailureModesResult(_Model):
    """The failure modes of an asset class."""

    asset_class: str = Field(description="The asset class")
    asset_id: str | None = Field(description="The asset, when asset_name named one")
    failure_modes: list[FailureModeInfo] = Field(description="Failure modes, in asset.yaml order")


async def _resolve_asset(ctx: ToolContext, asset_name: str) -> tuple[AssetClass, str | None]:
    """An asset class by name, or the class of an asset id in the store."""
    classes = available_asset_classes()
    if asset_name == ctx.asset.asset_class:
        return ctx.asset, None
    if asset_name in classes:
        return load_asset_class(asset_name), None
    plates = await ctx.store.assets()
    ids = [str(p["asset_id"]) for p in plates]
    if asset_name in ids:
        return ctx.asset, asset_name  # the store holds assets of ctx.asset's class only
    raise UserError(
        f"unknown asset {asset_name!r} (neither an asset class nor an asset id in the store)",
        options=classes + ids,
        fix="use an asset class name or an asset id from `assets`",
    )


def _mode_info(fm: Any) -> FailureModeInfo:
    return FailureModeInfo(
        id=fm.id,
        name=fm.name,
        description=fm.description,
        failure_code=fm.failure_code,
        iec60599_code=fm.codes.get("iec60599"),
        sensors=list(fm.sensors),
    )


@tool("get_failure_modes", domain="fmsr", args=AssetNameArgs, result=FailureModesResult)
async def get_failure_modes(args: AssetNameArgs, ctx: ToolContext) -> FailureModesResult:
    """List the failure modes of an asset class (or of the class of an asset id)."""
    asset, asset_id = await _resolve_asset(ctx, args.asset_name)
    return FailureModesResult(
        asset_class=asset.asset_class,
        asset_id=asset_id,
        failure_modes=[_mode_info(fm) for fm in asset.failure_modes],
    )


class MappingArgs(_Model):
    """Arguments of `get_failure_mode_sensor_mapping`."""

    asset_name: str = Field(
        description="Asset class (e.g. 'transformer') or an asset id in the store"
    )
    failure_modes: list[str] | None = Field(
        default=None, description="Failure-mode ids or names to keep; None = all"
    )
    sensors: list[str] | None = Field(default=None, description="Sensor names to keep; None = all")


class MappingResult(_Model):
    """Which sensors reveal which failure modes."""

    asset_class: str = Field(description="The asset class")
    asset_id: str | None = Field(description="The asset, when asset_name named one")
    failure_mode_to_sensors: dict[str, list[str]] = Field(
        description="Selected failure-mode id → selected sensors that reveal it (possibly empty)"
    )
    sensor_to_failure_modes: dict[str, list[str]] = Field(
        description="Selected sensor → selected failure-mode ids it reveals (possibly empty)"
    )


@tool("get_failure_mode_sensor_mapping", domain="fmsr", args=MappingArgs, result=MappingResult)
async def get_failure_mode_sensor_mapping(args: MappingArgs, ctx: ToolContext) -> MappingResult:
    """Map failure modes to the sensors that reveal them (and back), from the asset class."""
    asset, asset_id = await _resolve_asset(ctx, args.asset_name)
    modes = asset.failure_modes
    if args.failure_modes is not None:
        lookup = {fm.id: fm for fm in modes} | {fm.name.lower(): fm for fm in modes}
        picked = []
        for name in args.failure_modes:
            fm = lookup.get(name) or lookup.get(name.lower())
            if fm is None:
                raise UserError(
                    f"asset class {asset.asset_class!r} has no failure mode {name!r}",
                    options=[m.id for m in modes],
                    fix="use failure-mode ids from `get_failure_modes`",
                )
            if fm not in picked:
                picked.append(fm)
        modes = picked
    sensor_names = [s.name for s in asset.sensors]
    if args.sensors is not None:
        for s in args.sensors:
            if s not in sensor_names:
                raise UserError(
                    f"asset class {asset.asset_class!r} has no sensor {s!r}", options=sensor_names
                )
        sensor_names = list(dict.fromkeys(args.sensors))
    keep = set(sensor_names)
    fm_to_s = {fm.id: [s for s in fm.sensors if s in keep] for fm in modes}
    s_to_fm = {s: [fm.id for fm in modes if s in fm.sensors] for s in sensor_names}
    return MappingResult(
        asset_class=asset.asset_class,
        asset_id=asset_id,
        failure_mode_to_sensors=fm_to_s,
        sensor_to_failure_modes=s_to_fm,
    )


# -- tsfm ------------------------------------------------------------------------------


class AiTask(_Model):
    """A time-series task the tsfm tools support."""

    task_id: str = Field(description="Identifier")
    name: str = Field(description="Human name")
    tool: str = Field(description="Tool that runs it")
    description: str = Field(description="What it does")


class AiTasksResult(_Model):
    """The supported tasks."""

    tasks: list[AiTask] = Field(description="Supported tasks")


@tool("get_ai_tasks", domain="tsfm", args=NoArgs, result=AiTasksResult)
async def get_ai_tasks(args: NoArgs, ctx: ToolContext) -> AiTasksResult:
    """List the time-series tasks supported: anomaly detection and forecasting."""
    return AiTasksResult(
        tasks=[
            AiTask(
                task_id="tsad",
                name="anomaly detection",
                tool="run_tsad",
                description="Flag readings of one sensor that deviate from its weekly "
                "(weekday × hour) pattern",
            ),
            AiTask(
                task_id="forecasting",
                name="forecasting",
                tool="run_tsfm_forecasting",
                description="Forecast one sensor a few hours to days ahead",
            ),
        ]
    )


class TsModel(_Model):
    """A classical time-series method."""

    model_id: str = Field(description="Identifier (the `method` argument of its tool)")
    task: str = Field(description="Task id")
    name: str = Field(description="Human name")
    formula: str = Field(description="What it computes")
    parameters: dict[str, Any] = Field(description="Fixed or searched parameters")
    reference: str = Field(description="Source of the method")


class TsModelsResult(_Model):
    """The available methods."""

    models: list[TsModel] = Field(description="Methods")


TSAD_FORMULA = (
    "reference = the window plus up to baseline_weeks weeks before it; expected(t) = median "
    "of the reference readings with the same weekday and hour as t (fewer than 3 such "
    "readings: same day type (Mon-Fri / Sat-Sun) and hour, if 3 or more, else same hour); "
    "r = x - expected; score = 0.6745·(r - median(r)) / MAD(r) over the reference (if MAD = "
    "0: (r - median(r)) / (1.2533·MeanAD)); anomaly = a window reading with |score| > threshold"
)
HW_FORMULA = (
    "additive Holt-Winters, period m = 24: ŷ(t) = l + b + s(t-m); "
    "l' = α(y - s(t-m)) + (1-α)(l + b); b' = β(l' - l) + (1-β)b; s(t) = γ(y - l') + (1-γ)s(t-m); "
    "forecast l + h·b + s; initial state from the first two days; (α, β, γ) minimise the "
    "in-sample one-step MAE over the grid"
)
BASELINE_WEEKS = 4
SN_FORMULA = "seasonal naive, period 24: ŷ(t+h) = y(t+h-24k), the last day repeated"

MODELS = [
    TsModel(
        model_id="weekly_profile_robust_z",
        task="tsad",
        name="Weekday × hour baseline + modified z-score",
        formula=TSAD_FORMULA,
        parameters={
            "threshold": ts.DEFAULT_THRESHOLD,
            "period": ts.PERIOD,
            "baseline_weeks": BASELINE_WEEKS,
            "min_weeks": ts.MIN_WEEKS,
        },
        reference="Iglewicz & Hoaglin (1993), How to Detect and Handle Outliers",
    ),
    TsModel(
        model_id="holt_winters",
        task="forecasting",
        name="Additive Holt-Winters (triple exponential smoothing)",
        formula=HW_FORMULA,
        parameters={
            "period": ts.PERIOD,
            "alpha_grid": list(ts.ALPHA_GRID),
            "beta_grid": list(ts.BETA_GRID),
            "gamma_grid": list(ts.GAMMA_GRID),
        },
        reference=(
            "Winters (1960); Hyndman & Athanasopoulos, Forecasting: Principles and Practice §8.3"
        ),
    ),
    TsModel(
        model_id="seasonal_naive",
        task="forecasting",
        name="Seasonal naive",
        formula=SN_FORMULA,
        parameters={"period": ts.PERIOD},
        reference="Hyndman & Athanasopoulos, Forecasting: Principles and Practice §5.2",
    ),
]


@tool("get_tsfm_models", domain="tsfm", args=NoArgs, result=TsModelsResult)
async def get_tsfm_models(args: NoArgs, ctx: ToolContext) -> TsModelsResult:
    """List the classical time-series methods available, with their formulas."""
    return TsModelsResult(models=MODELS)


class SeriesArgs(_Model):
    """One sensor of an asset in a window."""

    site_name: str = Field(description="Site name, as listed by `sites`")
    asset_id: str = Field(description="Asset id at that site")
    sensor: str = Field(description="Telemetry sensor, as listed by `sensors`")
    start: Timestamp = Field(description="Window start, inclusive (YYYY-MM-DD[THH:MM:SS])")
    final: Timestamp | None = Field(
        default=None, description="Window end, exclusive (YYYY-MM-DD[THH:MM:SS]); None = to the end"
    )


async def _series(args: SeriesArgs, ctx: ToolContext) -> tuple[np.ndarray, np.ndarray, int]:
    """Epoch seconds and values of the sensor on an hourly grid, and hours filled."""
    _check_window(args.start, args.final)
    await _check_asset(ctx, args.site_name, args.asset_id)
    await _check_sensors(ctx, args.asset_id, [args.sensor])
    docs = await ctx.store.history(args.asset_id, args.start, args.final, [args.sensor])
    docs = [d for d in docs if d.get(args.sensor) is not None]
    if len(docs) < 2 * ts.PERIOD:
        raise UserError(
            f"{args.asset_id} {args.sensor}: {len(docs)} readings in the window, "
            f"need at least {2 * ts.PERIOD} (two days)",
            fix="widen the window",
        )
    secs = _epoch_seconds([d["timestamp"] for d in docs])
    grid, values, filled = ts.regular_hourly(secs, [float(d[args.sensor]) for d in docs])
    return grid, values, filled


def _epoch_seconds(stamps: list[Any]) -> list[int]:
    """UTC epoch seconds of ``YYYY-MM-DDTHH:MM:SS`` timestamps, parsed as one datetime64
    array (a per-row ``strptime`` costs ~100x more on a two-week window)."""
    if not stamps:
        return []
    parsed = np.array([str(t) for t in stamps], dtype="datetime64[s]")
    return [int(v) for v in parsed.astype(np.int64)]


def _iso(sec: int) -> str:
    return datetime.fromtimestamp(int(sec), UTC).strftime(ISO)


class TsadArgs(SeriesArgs):
    """Arguments of `run_tsad`."""

    threshold: float = Field(default=3.5, gt=0, description="Cut-off on |modified z-score|")
    baseline_weeks: int = Field(
        default=BASELINE_WEEKS,
        ge=0,
        le=12,
        description="Weeks of history before `start` added to the reference the weekly "
        "baseline is built from (readings there are never flagged)",
    )


class Anomaly(_Model):
    """One anomalous reading."""

    timestamp: str = Field(description="When (ISO 8601)")
    value: float = Field(description="Reading")
    expected: float = Field(description="Weekly baseline value (weekday × hour median)")
    score: float = Field(description="Modified z-score of the residual")


class TsadResult(_Model):
    """Anomalies of one sensor series."""

    asset_id: str = Field(description="The asset")
    sensor: str = Field(description="The sensor")
    n_points: int = Field(description="Readings analysed in the window (on the hourly grid)")
    gaps_filled: int = Field(description="Missing hours filled by linear interpolation")
    threshold: float = Field(description="Cut-off used")
    method: str = Field(description="The method and its formula")
    reference_start: str = Field(
        description="First reading of the reference the baseline and scores come from"
    )
    reference_points: int = Field(description="Readings in the reference (history + window)")
    anomalies: list[Anomaly] = Field(description="Anomalous readings in time order")


def _weekdays(secs: np.ndarray) -> list[int]:
    """Monday = 0 weekday of each epoch second (UTC): 1970-01-01 was a Thursday (3)."""
    return [int(w) for w in (np.asarray(secs, dtype=np.int64) // 86400 + 3) % 7]


@tool("run_tsad", domain="tsfm", args=TsadArgs, result=TsadResult)
async def run_tsad(args: TsadArgs, ctx: ToolContext) -> TsadResult:
    """Detect anomalies in one sensor's series: residuals from its weekly (weekday × hour)
    median baseline, built from the window and the weeks before it, scored by a robust
    (MAD) z-score.
    """
    grid, values, filled = await _series(args, ctx)
    history_start = (
        datetime.strptime(args.start, ISO) - timedelta(weeks=args.baseline_weeks)
    ).strftime(ISO)
    before = await ctx.store.history(args.asset_id, history_start, args.start, [args.sensor])
    before = [d for d in before if d.get(args.sensor) is not None]
    if before:
        secs = [*_epoch_seconds([d["timestamp"] for d in before]), int(grid[0])]
        ref_grid, ref_values, _ = ts.regular_hourly(
            secs, [float(d[args.sensor]) for d in before] + [float(values[0])]
        )
        ref_grid, ref_values = ref_grid[:-1], ref_values[:-1]  # the window's first hour
    else:
        ref_grid, ref_values = np.empty(0, dtype=np.int64), np.empty(0)
    all_grid = np.concatenate([ref_grid, grid])
    all_values = np.concatenate([ref_values, values])
    weekdays = _weekdays(all_grid)
    hours = (all_grid // 3600) % 24
    found = ts.detect_anomalies(
        weekdays, hours, all_values, args.threshold, score_from=int(ref_grid.size)
    )
    return TsadResult(
        asset_id=args.asset_id,
        sensor=args.sensor,
        n_points=int(values.size),
        gaps_filled=filled,
        threshold=args.threshold,
        method="weekly_profile_robust_z: " + TSAD_FORMULA,
        reference_start=_iso(int(all_grid[0])),
        reference_points=int(all_values.size),
        anomalies=[
            Anomaly(
                timestamp=_iso(int(all_grid[i])),
                value=float(all_values[i]),
                expected=float(found.expected[i]),
                score=float(found.score[i]),
            )
            for i in found.index
        ],
    )


class ForecastArgs(SeriesArgs):
    """Arguments of `run_tsfm_forecasting`."""

    horizon_hours: int = Field(default=24, ge=1, le=168, description="Hours to forecast")
    method: Literal["holt_winters", "seasonal_naive"] = Field(
        default="holt_winters", description="Forecasting method (see `get_tsfm_models`)"
    )


class ForecastResult(_Model):
    """A forecast of one sensor."""

    asset_id: str = Field(description="The asset")
    sensor: str = Field(description="The sensor")
    method: str = Field(description="Method id and formula")
    parameters: dict[str, float] = Field(description="Parameters used (α, β, γ for Holt-Winters)")
    n_points: int = Field(description="Readings fitted (on the hourly grid)")
    gaps_filled: int = Field(description="Missing hours filled by linear interpolation")
    in_sample_mae: float = Field(description="In-sample one-step mean absolute error of the method")
    seasonal_naive_mae: float = Field(description="Same for seasonal naive (the baseline)")
    timestamps: list[str] = Field(description="Forecast times, hourly after the last reading")
    values: list[float] = Field(description="Forecast values")


@tool("run_tsfm_forecasting", domain="tsfm", args=ForecastArgs, result=ForecastResult)
async def run_tsfm_forecasting(args: ForecastArgs, ctx: ToolContext) -> ForecastResult:
    """Forecast one sensor hours ahead: additive Holt-Winters (period 24) or seasonal naive."""
    grid, values, filled = await _series(args, ctx)
    naive_mae = ts.seasonal_naive_mae(values)
    if args.method == "holt_winters":
        model = ts.fit_holt_winters(values)
        forecast = model.forecast(args.horizon_hours)
        params = {"alpha": model.alpha, "beta": model.beta, "gamma": model.gamma, "period": 24.0}
        mae, formula = model.mae, HW_FORMULA
    else:
        forecast = ts.seasonal_naive(values, args.horizon_hours)
        params, mae, formula = {"period": 24.0}, naive_mae, SN_FORMULA
    last = int(grid[-1])
    return ForecastResult(
        asset_id=args.asset_id,
        sensor=args.sensor,
        method=f"{args.method}: {formula}",
        parameters=params,
        n_points=int(values.size),
        gaps_filled=filled,
        in_sample_mae=mae,
        seasonal_naive_mae=naive_mae,
        timestamps=[_iso(last + 3600 * h) for h in range(1, args.horizon_hours + 1)],
        values=[float(v) for v in forecast],
    )
