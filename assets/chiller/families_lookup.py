"""Chiller task families over the tools no other chiller family called (issue 15, item 6).

Small, honest lookups and one closed-form computation; each answer is a pure function of
the tool outputs:

- ``chiller_iot_fleet_layout`` (``sites``, ``assets``): which plant a chiller is at and
  how many chillers that plant and the fleet hold.
- ``chiller_iot_sensor_list`` (``sensors``): how many quantities a unit streams and whether
  a named one is among them.
- ``chiller_wo_window_orders`` (``get_work_orders``): work orders of a window, planned and
  corrective.
- ``chiller_wo_planned_visits`` (``get_preventive_work_orders``): planned maintenance of a
  unit, count and latest visit.
- ``chiller_wo_code_mix`` (``get_work_order_distribution``): work orders by failure code.
- ``chiller_wo_next_code`` (``predict_next_work_order``): the most likely next work-order
  code (first-order Markov estimate, the tool's documented method); a tie is ambiguous.
- ``chiller_wo_event_log`` (``get_events``): alerts and work orders of a window.
- ``chiller_tsfm_catalogue`` (``get_ai_tasks``, ``get_tsfm_models``): the time-series tasks
  and the forecasting methods on offer.
- ``chiller_fmsr_sensor_modes`` (``get_failure_modes``): failure modes a sensor reveals.
- ``chiller_fmsr_iplv`` (``compute_iplv``): AHRI 550/590 (I-P) integrated part-load value
  from four part-load efficiencies, IPLV = 1 / (0.01/A + 0.42/B + 0.45/C + 0.12/D) in
  kW/ton (A..D at 100, 75, 50, 25 % load); closed-form inputs drawn around the unit's
  nameplate full-load kW/ton.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assets.chiller.families_common import (
    WINDOW_STATED,
    draw_window,
    units_with_telemetry,
    words,
)
from generator.api import (
    Ambiguous,
    FamilyContext,
    GroundedAsset,
    Plan,
    Reading,
    TaskSeed,
    ToolCall,
    and_join,
    day,
    family,
    load_vocabulary,
    num,
    pick,
    window_end_readings,
)

# -- iot: fleet layout ---------------------------------------------------------------------


def _layout_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    sites = [str(s) for s in outputs[0]["sites"]]
    units = {str(o["site_name"]): sorted(str(a["asset_id"]) for a in o["assets"])
             for o in outputs[1:]}
    home = [s for s, ids in units.items() if params["asset_id"] in ids]
    if len(home) != 1:
        raise Ambiguous(f"{params['asset_id']} is listed at {len(home)} sites")
    return {"site": home[0], "units_at_site": len(units[home[0]]), "sites": len(sites)}


def _layout_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (f"{params['asset_id']} is at {answer['site']}, one of {answer['units_at_site']} "
            f"chillers there; the fleet has {answer['sites']} sites")


@family(
    "chiller_iot_fleet_layout",
    domain="iot",
    category="Knowledge Query",
    derive=_layout_derive,
    summarise=_layout_summary,
)
async def fleet_layout(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which plant a chiller is at, how many chillers that plant holds, how many plants."""
    units = units_with_telemetry(ctx)
    sites = (await ctx.run1("sites"))["sites"]
    if not units or not sites:
        return None
    a = pick(rng, units)
    calls = [ToolCall(name="sites", args={})] + [
        ToolCall(name="assets", args={"site_name": s}) for s in sites
    ]
    return Plan(params={"asset_id": a.asset_id}, tool_sequence=calls, mentions=[a.asset_id],
                grounding={"asset_id": a.asset_id})


# -- iot: sensors of a unit --------------------------------------------------------------------


def _sensors_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    names = [str(s["name"]) for s in outputs[0]["sensors"]]
    # an absent sensor is asked by its spoken name, which no listed field carries; the
    # listing's descriptions are not searched (a description may mention a related word)
    return {"sensor_count": len(names), "streams_sensor": params["sensor"] in names}


def _sensors_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    has = "is" if answer["streams_sensor"] else "is not"
    return (f"{params['asset_id']} streams {answer['sensor_count']} quantities; the "
            f"{params['sensor_label']} {has} among them")


@family(
    "chiller_iot_sensor_list",
    domain="iot",
    category="Data Query",
    derive=_sensors_derive,
    summarise=_sensors_summary,
    outcome=lambda answer: "fitted" if answer["streams_sensor"] else "not_fitted",
)
async def sensor_list(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """How many quantities a chiller streams, and whether a named one is among them."""
    units = units_with_telemetry(ctx)
    if not units:
        return None
    a = pick(rng, units)
    absent = sorted(load_vocabulary("chiller").absent_sensors)
    if absent and rng.random() < 0.4:
        sensor = label = str(pick(rng, absent))  # one the class is not fitted with
    else:
        sensor = str(pick(rng, sorted(a.sensors)))
        label = words(sensor)
    calls = [ToolCall(name="sensors", args={"site_name": a.site_name, "asset_id": a.asset_id})]
    return Plan(
        params={"asset_id": a.asset_id, "site": a.site_name, "sensor": sensor,
                "sensor_label": label},
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name],
        grounding={"asset_id": a.asset_id, "site": a.site_name},
    )


# -- wo: work orders of a window -----------------------------------------------------------------


def _window_args(asset_id: str, start: str | None, end: str | None) -> dict[str, Any]:
    return {"equipment_id": asset_id, "start_date": start, "end_date": end}


def _unit_plan(a: GroundedAsset, calls: list[ToolCall], **params: Any) -> Plan:
    """A plan about one unit named by its id: ``params`` beyond the unit and its site."""
    grounding = {"asset_id": a.asset_id, "site": a.site_name}
    return Plan(params=grounding | params, tool_sequence=calls, mentions=[a.asset_id],
                grounding=grounding)


def _windowed_plan(a: GroundedAsset, start: str, end: str, calls: list[ToolCall],
                   end_arg: str) -> Plan:
    """A plan about one unit over ``[start, end)``: the window named, its end argument
    ``end_arg`` gated under both window-end readings and stated."""
    window = {"asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end}
    return Plan(
        params=window,
        tool_sequence=calls,
        mentions=[a.asset_id, start, end],
        grounding=dict(window),
        readings=window_end_readings(calls, end_arg, end),
        stated=WINDOW_STATED,
    )


async def _history_plan(ctx: FamilyContext, rng: np.random.Generator, tool: str) -> Plan | None:
    """One unit and one call of ``tool`` over its whole history."""
    units = units_with_telemetry(ctx)
    if not units:
        return None
    a = pick(rng, units)
    return _unit_plan(a, [ToolCall(name=tool, args=_window_args(a.asset_id, None, None))])


def _window_orders_derive(
    params: dict[str, Any], outputs: list[dict[str, Any]]
) -> dict[str, Any]:
    orders = outputs[0]["work_orders"]
    planned = sum(1 for o in orders if o["preventive"])
    return {"count": len(orders), "preventive": planned, "corrective": len(orders) - planned}


def _window_orders_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (f"{answer['count']} work orders on {params['asset_id']} in [{params['start']}, "
            f"{params['end']}): {answer['preventive']} planned, {answer['corrective']} "
            "corrective")


async def _unit_window(
    ctx: FamilyContext, rng: np.random.Generator, min_days: int, max_days: int
) -> tuple[Any, str, str] | None:
    units = units_with_telemetry(ctx)
    if not units:
        return None
    a = pick(rng, units)
    window = draw_window(a, rng, min_days, max_days)
    return None if window is None else (a, window[0], window[1])


async def _window_plan(
    ctx: FamilyContext, rng: np.random.Generator, tool: str, min_days: int, max_days: int
) -> Plan | None:
    """One unit, a window of ``min_days``..``max_days`` days and one call of ``tool`` over it
    (both window-end readings gated, the window stated)."""
    found = await _unit_window(ctx, rng, min_days, max_days)
    if found is None:
        return None
    a, start, end = found
    calls = [ToolCall(name=tool, args=_window_args(a.asset_id, start, end))]
    return _windowed_plan(a, start, end, calls, "end_date")


@family(
    "chiller_wo_window_orders",
    domain="wo",
    category="Data Query",
    derive=_window_orders_derive,
    summarise=_window_orders_summary,
    outcome=lambda answer: "some" if answer["count"] else "none",
    trivial=("none",),
)
async def window_orders(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """How many work orders a chiller had in a window, planned and corrective."""
    return await _window_plan(ctx, rng, "get_work_orders", 7, 40)


# -- wo: planned visits -----------------------------------------------------------------------


def _planned_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    dates = sorted(str(o["reported_date"]) for o in outputs[0]["work_orders"])
    return {"count": len(dates), "latest": str(day(dates[-1])) if dates else None}


def _planned_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    latest = f", latest on {answer['latest']}" if answer["latest"] else ""
    return f"{answer['count']} planned work orders on {params['asset_id']}{latest}"


@family(
    "chiller_wo_planned_visits",
    domain="wo",
    category="Data Query",
    derive=_planned_derive,
    summarise=_planned_summary,
)
async def planned_visits(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """How many planned (preventive) work orders a chiller has had, and the latest one."""
    return await _history_plan(ctx, rng, "get_preventive_work_orders")


# -- wo: code mix -----------------------------------------------------------------------------


def _mix_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    by_code = {str(k): int(v) for k, v in sorted(out["by_primary_code"].items())}
    return {"total": int(out["total"]), "by_code": by_code}


def _mix_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    codes = ", ".join(f"{k} {v}" for k, v in answer["by_code"].items()) or "none"
    return f"{answer['total']} work orders on {params['asset_id']} by code: {codes}"


@family(
    "chiller_wo_code_mix",
    domain="wo",
    category="Data Query",
    derive=_mix_derive,
    summarise=_mix_summary,
    outcome=lambda answer: "some" if answer["total"] else "none",
    trivial=("none",),
)
async def code_mix(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """A chiller's work orders counted by failure code over its whole history."""
    return await _history_plan(ctx, rng, "get_work_order_distribution")


# -- wo: next code ----------------------------------------------------------------------------


OWN_ONLY = "own_transitions_only"


def _next_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    if params.get("reading") == OWN_ONLY:
        # the plain estimate n[last][b] / n[last] from the unit's own transitions
        own, total = out["own_transition_counts"], out["own_transitions_from_last"]
        if not total:
            raise Ambiguous("no transition out of the last code")
        probs = {str(k): v / total for k, v in own.items()}
    else:
        probs = {str(k): float(v) for k, v in out["probabilities"].items()}
    if not probs or out["last_code"] is None:
        raise Ambiguous("no work-order history to predict from")
    best = max(probs.values())
    top = sorted(k for k, v in probs.items() if abs(v - best) < 1e-9)
    if len(top) > 1:
        raise Ambiguous("two codes are equally likely")
    return {"last_code": str(out["last_code"]), "predicted_code": top[0],
            "probability": round(best, 4)}


def _next_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (f"after {answer['last_code']} the next work order of {params['asset_id']} is most "
            f"likely {answer['predicted_code']} (p = {num(answer['probability'], 2)})")


@family(
    "chiller_wo_next_code",
    domain="wo",
    category="Prediction",
    derive=_next_derive,
    summarise=_next_summary,
)
async def next_code(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """The most likely failure code of a chiller's next work order.

    The text names the estimator (the unit's own transitions smoothed with the fleet's), so
    the plain own-history estimate is a stated reading, recorded with its answer.
    """
    units = units_with_telemetry(ctx)
    if not units:
        return None
    a = pick(rng, units)
    params = {"asset_id": a.asset_id, "site": a.site_name}
    calls = [ToolCall(name="predict_next_work_order", args=_window_args(a.asset_id, None, None))]
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id],
        grounding={"asset_id": a.asset_id, "site": a.site_name},
        tolerance={"probability": 0.01},
        readings=[Reading(
            name=OWN_ONLY,
            description="estimates P(next | last) from the unit's own transitions only "
            "(no fleet prior)",
            params=params | {"reading": OWN_ONLY},
        )],
        stated=[OWN_ONLY],
    )


# -- wo: event log ----------------------------------------------------------------------------


def _events_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    events = outputs[0]["events"]
    alerts = [e for e in events if e["event_group"] == "ALERT"]
    return {"alerts": len(alerts), "work_orders": len(events) - len(alerts),
            "alert_types": sorted({str(e["event_type"]) for e in alerts})}


def _events_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (f"{params['asset_id']} in [{params['start']}, {params['end']}): "
            f"{answer['alerts']} alerts ({and_join(answer['alert_types'])}), "
            f"{answer['work_orders']} work orders")


@family(
    "chiller_wo_event_log",
    domain="wo",
    category="Data Query",
    derive=_events_derive,
    summarise=_events_summary,
    outcome=lambda answer: "alerts" if answer["alerts"] else "quiet",
    trivial=("quiet",),
)
async def event_log(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """How many alerts and work orders a chiller logged in a window, and which alerts."""
    return await _window_plan(ctx, rng, "get_events", 5, 30)


# -- tsfm: what the time-series tools offer --------------------------------------------------


def _catalogue_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    tasks = sorted(str(t["name"]) for t in outputs[0]["tasks"])
    forecast = sorted(str(m["name"]) for m in outputs[1]["models"] if m["task"] == "forecasting")
    return {"tasks": tasks, "forecasting_methods": forecast}


def _catalogue_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (f"tasks: {and_join(answer['tasks'])}; forecasting methods: "
            f"{and_join(answer['forecasting_methods'])}")


@family(
    "chiller_tsfm_catalogue",
    domain="tsfm",
    category="Knowledge Query",
    derive=_catalogue_derive,
    summarise=_catalogue_summary,
)
async def catalogue(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which time-series analyses are available and which forecasting methods they use."""
    units = units_with_telemetry(ctx)
    if not units:
        return None
    a = pick(rng, units)  # the unit the question is about (the catalogue is fleet-wide)
    calls = [ToolCall(name="get_ai_tasks", args={}), ToolCall(name="get_tsfm_models", args={})]
    return _unit_plan(a, calls)


# -- fmsr: failure modes a sensor reveals ----------------------------------------------------


def _modes_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    modes = outputs[0]["failure_modes"]
    hits = sorted(str(m["name"]) for m in modes if params["sensor"] in m["sensors"])
    return {"failure_modes": hits, "of_total": len(modes)}


def _modes_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (f"the {params['sensor_label']} reveals {len(answer['failure_modes'])} of "
            f"{answer['of_total']} failure modes: {and_join(answer['failure_modes'])}")


@family(
    "chiller_fmsr_sensor_modes",
    domain="fmsr",
    category="Knowledge Query",
    derive=_modes_derive,
    summarise=_modes_summary,
    outcome=lambda answer: "some" if answer["failure_modes"] else "none",
    trivial=("none",),
)
async def sensor_modes(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which of a chiller's failure modes a given sensor helps reveal."""
    units = units_with_telemetry(ctx)
    if not units:
        return None
    a = pick(rng, units)
    sensor = str(pick(rng, sorted(a.sensors)))
    calls = [ToolCall(name="get_failure_modes", args={"asset_name": a.asset_id})]
    return _unit_plan(a, calls, sensor=sensor, sensor_label=words(sensor))


# -- fmsr: IPLV from four part-load points (closed form) -------------------------------------

# Part-load kW/ton relative to full load at 100/75/50/25 % (a typical water-cooled
# centrifugal curve: best near half load); a draw scales and perturbs it.
_CURVE = (1.0, 0.82, 0.74, 0.86)


def _iplv_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    return {"iplv_kw_per_ton": round(float(out["iplv_kw_per_ton"]), 4)}


def _iplv_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    points = ", ".join(num(x, 3) for x in params["kw_per_ton"])
    return f"IPLV of {params['asset_id']} from {points} kW/ton: {answer['iplv_kw_per_ton']}"


@family(
    "chiller_fmsr_iplv",
    domain="fmsr",
    category="Inference Query",
    derive=_iplv_derive,
    summarise=_iplv_summary,
)
async def iplv(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """The AHRI 550/590 IPLV of a chiller from four measured part-load efficiencies."""
    units = units_with_telemetry(ctx)
    if not units:
        return None
    a = pick(rng, units)
    full = float(rng.uniform(0.52, 0.68))
    points = [round(full * f * float(rng.uniform(0.95, 1.05)), 3) for f in _CURVE]
    calls = [ToolCall(name="compute_iplv", args={"asset_name": a.asset_id, "kw_per_ton": points})]
    texts = [num(x, 3) for x in points]
    return Plan(
        params={"asset_id": a.asset_id, "site": a.site_name, "kw_per_ton": points,
                "a": texts[0], "b": texts[1], "c": texts[2], "d": texts[3]},
        tool_sequence=calls,
        mentions=[a.asset_id, *texts],
        grounding={"asset_id": a.asset_id, "site": a.site_name},
        closed_form=True,
        tolerance={"iplv_kw_per_ton": 0.001},
    )


# -- iot: missing hourly records (the generic data-quality tool) ----------------------------


def _gaps_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    gaps = out["record_gaps"]
    return {"expected_hours": out["expected"], "records": out["records"],
            "missing_hours": sum(int(g["missing"]) for g in gaps),
            "gaps": [[g["first"], g["last"]] for g in gaps]}


def _gaps_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (f"{answer['records']} of {answer['expected_hours']} hourly records of "
            f"{params['asset_id']} in [{params['start']}, {params['end']}); "
            f"{answer['missing_hours']} hours missing")


@family(
    "chiller_iot_record_gaps",
    domain="iot",
    category="Data Query",
    derive=_gaps_derive,
    summarise=_gaps_summary,
    outcome=lambda answer: "gaps" if answer["missing_hours"] else "complete",
    trivial=("complete",),
)
async def record_gaps(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Whether a chiller's hourly telemetry is complete over a window (whole records)."""
    found = await _unit_window(ctx, rng, 2, 14)
    if found is None:
        return None
    a, start, end = found
    calls = [ToolCall(name="data_quality", args={
        "site_name": a.site_name, "asset_id": a.asset_id, "start": start, "final": end})]
    return _windowed_plan(a, start, end, calls, "final")
