"""Work-order task families of the transformer class: counts, distributions, predictions and
maintenance decisions, computed from the work-order tools."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from typing import Any

import numpy as np

from assets.transformer.families_common import (
    and_join,
    day,
    iso_day,
    num,
    pick,
)
from generator.generate.families import Ambiguous, FamilyContext, Plan, family
from generator.generate.model import TaskSeed, ToolCall
from generator.profile.model import GroundedAsset

KIND_TOOLS = {
    "all": "get_work_orders",
    "preventive": "get_preventive_work_orders",
    "corrective": "get_corrective_work_orders",
}
PROBABILITY_MARGIN = 0.02


def _data_days(a: GroundedAsset) -> tuple[Any, Any] | None:
    """First and last day spanned by the asset's telemetry and oil samples."""
    starts = [r.start for r in (a.telemetry, a.oil_samples) if r.start]
    ends = [r.end for r in (a.telemetry, a.oil_samples) if r.end]
    if not starts or not ends:
        return None
    return day(min(starts)), day(max(ends))


def _wo_window(
    a: GroundedAsset, rng: np.random.Generator, min_days: int = 7
) -> tuple[str, str] | None:
    span = _data_days(a)
    if span is None:
        return None
    first, last = span
    total = (last - first).days + 1
    if total < min_days:
        return None
    length = int(rng.integers(min_days, total + 1))
    offset = int(rng.integers(0, total - length + 1))
    start = first + timedelta(days=offset)
    return iso_day(start), iso_day(start + timedelta(days=length))


def _wo_asset(ctx: FamilyContext, rng: np.random.Generator) -> GroundedAsset | None:
    usable = [a for a in ctx.assets if a.work_orders > 0]
    return pick(rng, usable) if usable else None


def _window_args(asset_id: str, start: str, end: str) -> dict[str, Any]:
    return {"equipment_id": asset_id, "start_date": start, "end_date": end}


# -- counts by kind --------------------------------------------------------------------------


def _count_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    orders = outputs[0]["work_orders"]
    answer: dict[str, Any] = {"count": len(orders)}
    if params["with_codes"]:
        answer["wo_codes"] = {o["wo_id"]: o["primary_code"] for o in orders}
    return answer


def _count_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    kind = "" if params["kind"] == "all" else params["kind"] + " "
    text = (
        f"{answer['count']} {kind}work orders for {params['asset_id']} reported in "
        f"[{params['start']}, {params['end']})"
    )
    if answer.get("wo_codes"):
        text += ": " + ", ".join(f"{k} ({v})" for k, v in answer["wo_codes"].items())
    return text


@family(
    "wo_count",
    domain="wo",
    category="Data Query",
    derive=_count_derive,
    summarise=_count_summary,
)
async def wo_count(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """How many (preventive / corrective / all) work orders an asset had in a window."""
    a = _wo_asset(ctx, rng)
    if a is None:
        return None
    window = _wo_window(a, rng)
    if window is None:
        return None
    start, end = window
    kind = pick(rng, ["all", "preventive", "corrective"])
    with_codes = bool(rng.random() < 0.35)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "kind": kind,
        "kind_text": "" if kind == "all" else kind, "start": start, "end": end,
        "with_codes": with_codes,
    }
    return Plan(
        params=params,
        tool_sequence=[ToolCall(name=KIND_TOOLS[kind], args=_window_args(a.asset_id, start, end))],
        mentions=[a.asset_id, start, end],
        grounding={"asset_id": a.asset_id, "start": start, "end": end},
        difficulty="hard" if with_codes else "easy",
        hard_features=["multi_output"] if with_codes else [],
    )


# -- distribution ----------------------------------------------------------------------------


def _dist_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    answer: dict[str, Any] = {"total": out["total"], "by_type": out["by_type"]}
    if params["with_mode"]:
        codes: Counter[str] = Counter(out["by_primary_code"])
        if not codes:
            raise Ambiguous("no work orders")
        ranked = codes.most_common()
        if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            raise Ambiguous("two codes share the top count")
        answer["most_common_code"] = ranked[0][0]
    return answer


def _dist_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    text = (
        f"{answer['total']} work orders for {params['asset_id']} in [{params['start']}, "
        f"{params['end']}): {answer['by_type']['preventive']} preventive, "
        f"{answer['by_type']['corrective']} corrective"
    )
    if "most_common_code" in answer:
        text += f"; most common code {answer['most_common_code']}"
    return text


@family(
    "wo_distribution",
    domain="wo",
    category="Data Query",
    derive=_dist_derive,
    summarise=_dist_summary,
)
async def wo_distribution(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Preventive/corrective split of an asset's work orders in a window (and the top code)."""
    a = _wo_asset(ctx, rng)
    if a is None:
        return None
    window = _wo_window(a, rng, 14)
    if window is None:
        return None
    start, end = window
    with_mode = bool(rng.random() < 0.4)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end,
        "with_mode": with_mode,
    }
    return Plan(
        params=params,
        tool_sequence=[ToolCall(
            name="get_work_order_distribution", args=_window_args(a.asset_id, start, end)
        )],
        mentions=[a.asset_id, start, end],
        grounding={"asset_id": a.asset_id, "start": start, "end": end},
        difficulty="hard" if with_mode else "medium",
        hard_features=["multi_output"] if with_mode else [],
    )


# -- next work order -------------------------------------------------------------------------


def _next_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    probs = sorted(out["probabilities"].values(), reverse=True)
    if len(probs) > 1 and probs[0] - probs[1] <= PROBABILITY_MARGIN:
        raise Ambiguous("the top two codes are about equally likely")
    return {
        "last_code": out["last_code"],
        "predicted_code": out["predicted_code"],
        "probability": out["probability"],
    }


def _next_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"next work order of {params['asset_id']} after {answer['last_code']}: "
        f"{answer['predicted_code']} (p = {num(answer['probability'], 3)})"
    )


@family(
    "wo_next_prediction",
    domain="wo",
    category="Prediction",
    derive=_next_derive,
    summarise=_next_summary,
)
async def wo_next(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """The most likely primary code of an asset's next work order, from its history."""
    a = _wo_asset(ctx, rng)
    if a is None:
        return None
    args: dict[str, Any] = {"equipment_id": a.asset_id}
    orders = (await ctx.run1("get_work_orders", equipment_id=a.asset_id))["work_orders"]
    as_of = ""
    # Without a cut-off there is one task per asset; "as of" dates give the variety.
    if len(orders) > 1 and rng.random() < 0.7:
        # "As of" a date after one of its work orders: the history before that date only.
        cut = pick(rng, orders[1:])
        as_of = iso_day(day(cut["reported_date"]))
        args["end_date"] = as_of
    params = {"asset_id": a.asset_id, "site": a.site_name, "as_of": as_of}
    return Plan(
        params=params,
        tool_sequence=[ToolCall(name="predict_next_work_order", args=args)],
        mentions=[a.asset_id] + ([as_of] if as_of else []),
        grounding={"asset_id": a.asset_id} | ({"end": as_of} if as_of else {}),
        difficulty="hard" if as_of else "medium",
        hard_features=["constraint"] if as_of else [],
        constraint=f"use only work orders reported before {as_of}" if as_of else None,
        tolerance={"probability": 0.005},
    )


# -- alert follow-up -------------------------------------------------------------------------


def _alert_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    horizon_h = params["within_days"] * 24
    leads = [lk["lead_time_hours"] for lk in out["links"] if lk["lead_time_hours"] is not None]
    if any(lead > 0.9 * horizon_h for lead in leads):
        raise Ambiguous("a work order follows its alert close to the horizon")
    return {
        "alerts": out["alerts"],
        "followed": out["followed"],
        "work_orders": sorted({lk["wo_id"] for lk in out["links"] if lk["wo_id"]}),
    }


def _alert_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{params['asset_id']} in [{params['start']}, {params['end']}): {answer['alerts']} alerts, "
        f"{answer['followed']} followed by corrective work within {params['within_text']} days "
        f"({and_join(answer['work_orders'])})"
    )


@family(
    "wo_alert_followup",
    domain="wo",
    category="Decision Support",
    derive=_alert_derive,
    summarise=_alert_summary,
)
async def wo_alert_followup(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """How many of an asset's alerts in a window were followed by corrective work within N days.

    A draw is dropped when a longer horizon (1.25 N) would count more alerts as followed.
    """
    a = pick(rng, ctx.assets) if ctx.assets else None
    if a is None:
        return None
    window = _wo_window(a, rng, 7)
    if window is None:
        return None
    start, end = window
    within = float(pick(rng, [1, 2, 3, 7, 14]))
    args = _window_args(a.asset_id, start, end) | {"within_days": within}
    base = await ctx.run1("analyze_alert_to_failure", **args)
    if base["alerts"] == 0 and rng.random() < 0.7:
        return None  # mostly ask about windows that hold alerts
    # Only a draw we may keep pays for the second (longer-horizon) analysis.
    longer = await ctx.run1(
        "analyze_alert_to_failure", **(args | {"within_days": within * 1.25})
    )
    if longer["followed"] != base["followed"]:
        return None
    within_text = num(within)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end,
        "within_days": within, "within_text": within_text,
    }
    return Plan(
        params=params,
        tool_sequence=[ToolCall(name="analyze_alert_to_failure", args=args)],
        mentions=[a.asset_id, start, end, within_text],
        grounding={"asset_id": a.asset_id, "start": start, "end": end},
        difficulty="hard",
        hard_features=["constraint"],
        constraint=f"a work order counts only if it was reported within {within_text} days "
        "after the alert",
    )


# -- decision after a diagnosis ----------------------------------------------------------


def _decision_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    codes, corrective = outputs
    matching = [c["code"] for c in codes["failure_codes"] if c["fault_type"] == params["fault"]]
    if len(matching) != 1:
        raise Ambiguous(f"{len(matching)} failure codes for {params['fault']}")
    code = matching[0]
    raised = [o["wo_id"] for o in corrective["work_orders"] if o["primary_code"] == code]
    return {
        "failure_code": code,
        "already_raised": bool(raised),
        "work_orders": raised,
        "decision": "already raised" if raised else f"raise a corrective work order ({code})",
    }


def _decision_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    listed = f" ({and_join(answer['work_orders'])})" if answer["work_orders"] else ""
    return (
        f"{params['fault']} on {params['asset_id']} since {params['start']}: failure code "
        f"{answer['failure_code']}; corrective work order already raised: "
        f"{'yes' if answer['already_raised'] else 'no'}{listed}; decision: {answer['decision']}"
    )


@family(
    "wo_decision_after_diagnosis",
    domain="wo",
    category="Decision Support",
    derive=_decision_derive,
    summarise=_decision_summary,
)
async def wo_decision(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Given a DGA diagnosis on a date, whether matching corrective work exists since then.

    Half of the draws take a fault that an existing corrective work order carries and a date
    before it, so both outcomes occur.
    """
    a = pick(rng, ctx.assets) if ctx.assets else None
    if a is None:
        return None
    span = _data_days(a)
    if span is None:
        return None
    first, last = span
    codes_call = ToolCall(name="get_failure_codes", args={})
    codes = (await ctx.run([codes_call]))[0]["failure_codes"]
    faults = {c["code"]: c["fault_type"] for c in codes if c.get("fault_type")}
    existing = await ctx.run1("get_corrective_work_orders", equipment_id=a.asset_id)
    known = [o for o in existing["work_orders"] if o["primary_code"] in faults]
    if known and rng.random() < 0.5:
        target = pick(rng, known)
        fault = faults[target["primary_code"]]
        latest = day(target["reported_date"]) - timedelta(days=1)
    else:
        fault = pick(rng, sorted(set(faults.values())))
        latest = last
    days = (latest - first).days
    if days < 0:
        return None
    since = iso_day(first + timedelta(days=int(rng.integers(0, days + 1))))
    params = {"asset_id": a.asset_id, "site": a.site_name, "fault": fault, "start": since}
    return Plan(
        params=params,
        tool_sequence=[
            codes_call,
            ToolCall(name="get_corrective_work_orders",
                     args={"equipment_id": a.asset_id, "start_date": since}),
        ],
        mentions=[a.asset_id, fault, since],
        grounding={"asset_id": a.asset_id, "start": since},
        difficulty="hard",
        hard_features=["conditional"],
        constraint="if no corrective work order with the matching failure code has been "
        "raised since then, say which failure code the new one should carry",
    )
