"""Work-order task families of the transformer class: counts, distributions, predictions and
maintenance decisions, computed from the work-order tools."""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np

from assets.transformer.families_common import (
    EVENT_SHARE,
    GASES,
    WINDOW_STATED,
    asset_with_oil,
    asset_with_work_orders,
    dga_args,
    in_discharge_overlap,
    iso_day,
    oil_call,
    wo_window,
)
from generator.api import (
    AS_OF_INCLUDED,
    Ambiguous,
    FamilyContext,
    GroundedAsset,
    Plan,
    Reading,
    TaskSeed,
    ToolCall,
    and_join,
    as_of_param,
    as_of_readings,
    day,
    family,
    num,
    pick,
    window_end_readings,
)

KIND_TOOLS = {
    "all": "get_work_orders",
    "preventive": "get_preventive_work_orders",
    "corrective": "get_corrective_work_orders",
}
PROBABILITY_MARGIN = 0.02
def _window_args(asset_id: str, start: str, end: str) -> dict[str, Any]:
    return {"equipment_id": asset_id, "start_date": start, "end_date": end}


async def _corrective_days(ctx: FamilyContext, a: GroundedAsset) -> list[date]:
    """Days on which the asset's corrective work orders were reported."""
    out = await ctx.run1("get_corrective_work_orders", equipment_id=a.asset_id)
    return sorted({day(o["reported_date"]) for o in out["work_orders"]})


async def _alert_days(ctx: FamilyContext, a: GroundedAsset) -> list[date]:
    """Days on which the asset raised alerts (alarms and trips)."""
    out = await ctx.run1("get_events", equipment_id=a.asset_id)
    return sorted({day(e["event_time"]) for e in out["events"] if e["event_group"] == "ALERT"})


async def _eventful_window(
    ctx: FamilyContext, a: GroundedAsset, rng: np.random.Generator, min_days: int
) -> tuple[str, str] | None:
    """Mostly a window holding one of the asset's corrective work orders, else any window."""
    days = await _corrective_days(ctx, a) if rng.random() < EVENT_SHARE else []
    return wo_window(a, rng, min_days, pick(rng, days) if days else None)


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


def count_outcome(answer: dict[str, Any]) -> str:
    """"none" when the window holds no such work order, else "some"."""
    return "none" if answer["count"] == 0 else "some"


@family(
    "wo_count",
    domain="wo",
    category="Data Query",
    derive=_count_derive,
    summarise=_count_summary,
    outcome=count_outcome,
    trivial=("none",),
)
async def wo_count(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """How many (preventive / corrective / all) work orders an asset had in a window.

    Corrective and all-work-order counts mostly ask about a window holding corrective work.
    """
    a = asset_with_work_orders(ctx, rng)
    if a is None:
        return None
    kind = pick(rng, ["all", "preventive", "corrective"])
    if kind == "preventive":
        window = wo_window(a, rng)
    else:
        window = await _eventful_window(ctx, a, rng, 7)
    if window is None:
        return None
    start, end = window
    with_codes = bool(rng.random() < 0.35)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "kind": kind,
        "kind_text": "" if kind == "all" else kind, "start": start, "end": end,
        "with_codes": with_codes,
    }
    calls = [ToolCall(name=KIND_TOOLS[kind], args=_window_args(a.asset_id, start, end))]
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, start, end],
        grounding={"asset_id": a.asset_id, "start": start, "end": end},
        difficulty="hard" if with_codes else "easy",
        hard_features=["multi_output"] if with_codes else [],
        readings=window_end_readings(calls, "end_date", end),
        stated=WINDOW_STATED,
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


def distribution_outcome(answer: dict[str, Any]) -> str:
    """"none", "preventive_only" or "with_corrective" (some unplanned work in the window)."""
    if answer["total"] == 0:
        return "none"
    return "with_corrective" if answer["by_type"]["corrective"] else "preventive_only"


@family(
    "wo_distribution",
    domain="wo",
    category="Data Query",
    derive=_dist_derive,
    summarise=_dist_summary,
    outcome=distribution_outcome,
    trivial=("none", "preventive_only"),
)
async def wo_distribution(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Preventive/corrective split of an asset's work orders in a window (and the top code).

    Mostly a window holding corrective work, so the split is not all preventive.
    """
    a = asset_with_work_orders(ctx, rng)
    if a is None:
        return None
    window = await _eventful_window(ctx, a, rng, 14)
    if window is None:
        return None
    start, end = window
    with_mode = bool(rng.random() < 0.4)
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end,
        "with_mode": with_mode,
    }
    calls = [
        ToolCall(name="get_work_order_distribution", args=_window_args(a.asset_id, start, end))
    ]
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, start, end],
        grounding={"asset_id": a.asset_id, "start": start, "end": end},
        difficulty="hard" if with_mode else "medium",
        hard_features=["multi_output"] if with_mode else [],
        readings=window_end_readings(calls, "end_date", end),
        stated=WINDOW_STATED,
    )


# -- next work order -------------------------------------------------------------------------

OWN_COUNTS_ONLY = "own_transitions_only"


def _next_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    out = outputs[0]
    if params.get("reading") == OWN_COUNTS_ONLY:
        # The plain maximum-likelihood estimate n[last][b] / n[last], no fleet prior.
        own, total = out["own_transition_counts"], out["own_transitions_from_last"]
        if not total:
            raise Ambiguous("no transition out of the last code")
        probs = {c: n / total for c, n in own.items()}
    else:
        probs = out["probabilities"]
    ranked = sorted(probs.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(ranked) > 1 and ranked[0][1] - ranked[1][1] <= PROBABILITY_MARGIN:
        raise Ambiguous("the top two codes are about equally likely")
    return {
        "last_code": out["last_code"],
        "predicted_code": ranked[0][0],
        "probability": ranked[0][1],
    }


def _next_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{answer['predicted_code']} is the most likely next work order of "
        f"{params['asset_id']} (p = {num(answer['probability'], 3)}, fleet-smoothed "
        f"first-order Markov estimate from its last one, {answer['last_code']})"
    )


def next_outcome(answer: dict[str, Any]) -> str:
    """"preventive" when the next work order is most likely a planned inspection, else
    "corrective"."""
    return "preventive" if str(answer["predicted_code"]).startswith("PM") else "corrective"


@family(
    "wo_next_prediction",
    domain="wo",
    category="Prediction",
    derive=_next_derive,
    summarise=_next_summary,
    outcome=next_outcome,
    trivial=("preventive",),
    as_of=as_of_param("as_of"),
)
async def wo_next(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """The most likely primary code of an asset's next work order, from its history.

    An "as of" date is the day after one of its work orders, so that order is known; the
    text says orders reported on the date itself do not count. The text names the estimator
    (first-order Markov chain smoothed with the fleet's transitions), so the plain
    own-history estimate is a stated, not a gated, reading.
    """
    a = asset_with_work_orders(ctx, rng)
    if a is None:
        return None
    args: dict[str, Any] = {"equipment_id": a.asset_id}
    orders = (await ctx.run1("get_work_orders", equipment_id=a.asset_id))["work_orders"]
    as_of = ""
    # Without a cut-off there is one task per asset; "as of" dates give the variety.
    if len(orders) > 1 and rng.random() < 0.7:
        cut = pick(rng, orders[1:-1] or orders[1:])
        as_of = iso_day(day(cut["reported_date"]) + timedelta(days=1))
        args["end_date"] = as_of
    params = {"asset_id": a.asset_id, "site": a.site_name, "as_of": as_of}
    calls = [ToolCall(name="predict_next_work_order", args=args)]
    readings = [
        Reading(
            name=OWN_COUNTS_ONLY,
            description="estimates P(next | last) from the unit's own transitions only "
            "(no fleet prior)",
            params=params | {"reading": OWN_COUNTS_ONLY},
        )
    ]
    stated = [OWN_COUNTS_ONLY]
    if as_of:
        readings += as_of_readings(calls, "end_date", as_of)
        stated.append(AS_OF_INCLUDED)
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id] + ([as_of] if as_of else []),
        grounding={"asset_id": a.asset_id} | ({"end": as_of} if as_of else {}),
        difficulty="hard" if as_of else "medium",
        hard_features=["constraint"] if as_of else [],
        constraint=f"use only work orders reported before {as_of} (not on that day)"
        if as_of else None,
        tolerance={"probability": 0.005},
        readings=readings,
        stated=stated,
    )


# -- alert follow-up -------------------------------------------------------------------------

AFTER_WINDOW_TOO = "followup_after_window_counts"
CALENDAR_DAYS = "horizon_in_calendar_days"
FIRST_PER_ALERT = "first_order_per_alert_only"
# The text says the list is complete (the project's convention for "the orders": every
# document that meets the stated criterion, not one per matched item).
EVERY_ORDER_NOTE = ("List every corrective order reported within that time after an alert, "
                    "not only the first one after each alert.")


def _alert_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """outputs = [analyze_alert_to_failure, corrective orders of the window].

    An order follows an alert when ``alert < reported ≤ alert + N days`` (N the tool's
    horizon); the orders are those of the window (the text may call its end today: later
    ones did not exist), every one that follows some alert of the window.
    """
    out, corrective = outputs
    horizon = timedelta(days=float(out["within_days"]))
    alerts = [datetime.fromisoformat(str(lk["alert_time"])[:19]) for lk in out["links"]]

    def follows(o: dict[str, Any], t: datetime) -> bool:
        return t < datetime.fromisoformat(str(o["reported_date"])[:19]) <= t + horizon

    orders = corrective["work_orders"]
    ids = sorted({str(o["wo_id"]) for o in orders if any(follows(o, t) for t in alerts)})
    followed = sum(1 for t in alerts if any(follows(o, t) for o in orders))
    reading = params.get("reading")
    if reading == AFTER_WINDOW_TOO:
        # the tool's matches, which look past the window's end
        links = [lk for lk in out["links"] if lk["wo_id"]]
        followed = len(links)
        ids = sorted(set(ids) | {str(lk["wo_id"]) for lk in links})
    elif reading == FIRST_PER_ALERT:
        firsts = [min((o for o in orders if follows(o, t)),
                      key=lambda o: (str(o["reported_date"]), str(o["wo_id"])), default=None)
                  for t in alerts]
        ids = sorted({str(o["wo_id"]) for o in firsts if o is not None})
    return {"alerts": out["alerts"], "followed": followed, "work_orders": ids}


def _alert_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{params['asset_id']} in [{params['start']}, {params['end']}): {answer['alerts']} alerts, "
        f"{answer['followed']} followed by corrective work within {params['within_text']} days "
        f"({and_join(answer['work_orders'])})"
    )


def alert_outcome(answer: dict[str, Any]) -> str:
    """"no_alerts", "not_followed", "partly_followed" or "all_followed"."""
    if answer["alerts"] == 0:
        return "no_alerts"
    if answer["followed"] == 0:
        return "not_followed"
    return "all_followed" if answer["followed"] == answer["alerts"] else "partly_followed"


@family(
    "wo_alert_followup",
    domain="wo",
    category="Decision Support",
    derive=_alert_derive,
    summarise=_alert_summary,
    outcome=alert_outcome,
    trivial=("no_alerts",),
)
async def wo_alert_followup(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """How many of an asset's alerts in a window were followed by corrective work within N days,
    and every corrective order of the window reported within N days after one of them.

    Mostly a unit with alerts and a window holding one. Gated readings: N counted in calendar
    days (a work order on day alert + N counts) and orders reported after the window's end
    counted too. Stated: the list holds every such order, not only the first after each alert.
    """
    with_alerts = []
    if rng.random() < EVENT_SHARE:
        with_alerts = [a for a in ctx.assets if await _alert_days(ctx, a)]
    a = pick(rng, with_alerts or ctx.assets) if ctx.assets else None
    if a is None:
        return None
    days = await _alert_days(ctx, a) if with_alerts else []
    window = wo_window(a, rng, 7, pick(rng, days) if days else None)
    if window is None:
        return None
    start, end = window
    within = float(pick(rng, [1, 2, 3, 7, 14]))
    within_text = num(within)
    args = _window_args(a.asset_id, start, end) | {"within_days": within}
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end,
        "within_days": within, "within_text": within_text,
    }
    params["note"] = EVERY_ORDER_NOTE
    orders = ToolCall(name="get_corrective_work_orders",
                      args=_window_args(a.asset_id, start, end))
    calls = [ToolCall(name="analyze_alert_to_failure", args=args), orders]
    readings = [
        *window_end_readings(calls, "end_date", end),
        Reading(
            name=CALENDAR_DAYS,
            description=f"counts a work order reported any time on the {within_text}th day "
            "after the alert's day",
            tool_sequence=[ToolCall(
                name="analyze_alert_to_failure", args=args | {"within_days": within + 1}
            ), orders],
        ),
        Reading(
            name=AFTER_WINDOW_TOO,
            description="counts corrective work orders reported after the window's end too",
            params=params | {"reading": AFTER_WINDOW_TOO},
        ),
        Reading(
            name=FIRST_PER_ALERT,
            description="lists only the first corrective order after each alert",
            params=params | {"reading": FIRST_PER_ALERT},
        ),
    ]
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, start, end, within_text],
        grounding={"asset_id": a.asset_id, "start": start, "end": end},
        difficulty="hard",
        hard_features=["constraint"],
        constraint=f"a work order counts only if it was reported within {within_text} days "
        "after the alert",
        readings=readings,
        stated=[*WINDOW_STATED, FIRST_PER_ALERT],
    )


# -- decision after a diagnosis ----------------------------------------------------------

GENERIC_DGA_CODE = "DGA-ABN"
GENERIC_CODE_COUNTS = "generic_dga_code_counts"
FROM_SAMPLE_TIME = "since_the_sample_time"
EARLIER_COUNTS = "earlier_matching_work_counts"


def _decision_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    codes, corrective = outputs
    matching = [c["code"] for c in codes["failure_codes"] if c["fault_type"] == params["fault"]]
    if len(matching) != 1:
        raise Ambiguous(f"{len(matching)} failure codes for {params['fault']}")
    code = matching[0]
    accepted = {code}
    if params.get("reading") == GENERIC_CODE_COUNTS:
        accepted.add(GENERIC_DGA_CODE)
    raised = [o["wo_id"] for o in corrective["work_orders"] if o["primary_code"] in accepted]
    return {
        "failure_code": code,
        "already_raised": bool(raised),
        "work_orders": raised,
        "decision": "already raised" if raised else f"raise a corrective work order ({code})",
    }


def _decision_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    listed = f" ({and_join(answer['work_orders'])})" if answer["work_orders"] else ""
    return (
        f"{params['fault']} on {params['asset_id']} (oil sample of {params['start']}): failure "
        f"code {answer['failure_code']}; corrective work order with that code reported since "
        f"{params['start']}: {'yes' if answer['already_raised'] else 'no'}{listed}; decision: "
        f"{answer['decision']}"
    )


def decision_outcome(answer: dict[str, Any]) -> str:
    """"raise" when a new corrective work order is needed, else "already_raised"."""
    return "already_raised" if answer["already_raised"] else "raise"


async def _diagnosed_samples(
    ctx: FamilyContext, a: GroundedAsset, faults: set[str]
) -> list[tuple[dict[str, Any], str]]:
    """(sample, fault) of the asset's oil samples that the DGA tool classifies as a fault
    with full confidence (every ratio method agrees, away from the boundaries)."""
    records = (await ctx.run([oil_call(a)]))[0]["records"]
    found = []
    for r in records:
        if any(r.get(g) is None for g in GASES[:5]):
            continue
        out = await ctx.run1("interpret_dga", **dga_args(a.asset_id, r))
        if (out["fault_type"] in faults and out["confidence"] >= 1.0
                and not in_discharge_overlap(out)):
            found.append((r, str(out["fault_type"])))
    return found


@family(
    "wo_decision_after_diagnosis",
    domain="wo",
    category="Decision Support",
    derive=_decision_derive,
    summarise=_decision_summary,
    outcome=decision_outcome,
)
async def wo_decision(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Given a DGA diagnosis on a date, whether matching corrective work exists since then.

    The diagnosis is the store's: an oil sample of the unit that the DGA tool classifies as
    that fault, on that sample's date (a task never states a finding the store lacks).
    Gated readings: the generic abnormal-DGA code counting as matching, and "since" counted
    from the sample's hour rather than its day. The text says earlier orders do not count
    (in so many words when the unit has matching work from before the date).
    """
    codes_call = ToolCall(name="get_failure_codes", args={})
    codes = (await ctx.run([codes_call]))[0]["failure_codes"]
    faults = {str(c["fault_type"]) for c in codes if c.get("fault_type")}
    a = asset_with_oil(ctx, rng)
    if a is None:
        return None
    diagnosed = await _diagnosed_samples(ctx, a, faults)
    if not diagnosed:
        # Most units are healthy; look for one whose samples show a fault.
        for other in sorted(ctx.assets, key=lambda x: x.asset_id):
            has_oil = other.covered("oil_sample").start
            if has_oil and (found := await _diagnosed_samples(ctx, other, faults)):
                a, diagnosed = other, found
                break
    if not diagnosed:
        return None
    sample, fault = pick(rng, diagnosed)
    sample_time = str(sample["timestamp"])
    since = iso_day(day(sample_time))
    # Matching corrective work reported before the diagnosis: the text must then say that
    # only work since the date counts (its own phrasings), or "do we still owe one?" would
    # have two answers.
    code = {str(c["fault_type"]): str(c["code"]) for c in codes if c.get("fault_type")}.get(fault)
    history = await ctx.run1("get_corrective_work_orders", equipment_id=a.asset_id)
    earlier_work = any(
        o["primary_code"] == code and str(o["reported_date"]) < since
        for o in history["work_orders"]
    )
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "fault": fault, "start": since,
        "earlier_work": earlier_work,
    }
    corrective = ToolCall(
        name="get_corrective_work_orders", args={"equipment_id": a.asset_id, "start_date": since}
    )
    calls = [codes_call, corrective]
    readings = [
        Reading(
            name=GENERIC_CODE_COUNTS,
            description=f"accepts a corrective work order with the generic code "
            f"{GENERIC_DGA_CODE} (abnormal gases, type not determined) as matching",
            params=params | {"reading": GENERIC_CODE_COUNTS},
        ),
        Reading(
            name=FROM_SAMPLE_TIME,
            description=f"counts work orders from the sample's time {sample_time}, not from "
            "the start of its day",
            tool_sequence=[codes_call, ToolCall(
                name="get_corrective_work_orders",
                args={"equipment_id": a.asset_id, "start_date": sample_time},
            )],
        ),
        Reading(
            name=EARLIER_COUNTS,
            description="counts matching corrective work reported before the diagnosis date",
            tool_sequence=[codes_call, ToolCall(
                name="get_corrective_work_orders", args={"equipment_id": a.asset_id},
            )],
        ),
    ]
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, fault, since],
        grounding={"asset_id": a.asset_id, "start": since},
        difficulty="hard",
        hard_features=["conditional"],
        constraint=f"only corrective work orders reported on or after {since} count; if none "
        "carries the matching failure code, say which failure code the new one should carry",
        readings=readings,
        stated=[EARLIER_COUNTS],
    )
