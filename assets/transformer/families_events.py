"""Event and fleet task families of the transformer class: what happened around a temperature
alarm or trip, which units of a site are in the worst health, which to take out first under a
budget, and which failure modes a symptom or a unit's corrective work points to.

Every answer is computed from tool outputs:

- **Event chains** (``wo_alarm_chain``, ``ma_trip_reconstruction``): the alert events of one
  day (alarm and trip contacts of the top-oil and winding indicators, each stamped at the
  minute its setting was crossed), the corrective work orders reported within 24 hours of the
  first alert, and, for the multi-agent variant, the loading that led to it. A unit is
  overloaded when its apparent power exceeds its nameplate rating, load factor
  K = S / S_rated > 1 (IEC 60076-7:2018, 3.1 "load factor"; clause 7 loading beyond
  nameplate); the overload before an alarm is dated by the first hourly record of the
  alarm's day with K > 1 among the records stamped at or before the first alert, and the
  peak K over those records is reported. The load is S from rounded voltages and currents,
  so readings within 0.5 % of the rating decide nothing (such draws are dropped).
- **Health ranking and outage priority** (``fmsr_fleet_health_ranking``,
  ``ma_outage_priority``): the rule-based health index of each unit's latest oil sample
  (project table after Jahromi et al., IEEE Electrical Insulation Magazine 25(2), 2009; see
  :mod:`assets.transformer.health_index`). The score takes the values
  100·(10a + 6b)/64 for integer factor ratings a, b in 0..4, so two different scores differ
  by at least 100·2/64 = 3.125 and units with the same score are exact ties: the ranking
  states them as tied groups, and the priority rule breaks them by installation year (older
  first), dropping a draw whose cut still falls inside a tie.
- **Failure modes** (``fmsr_symptom_failure_modes``, ``wo_workorder_failure_modes``): the
  class's failure-mode catalogue as ``get_failure_modes`` lists it (asset.yaml: each mode's
  revealing sensors and the failure code its work orders carry).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np

from assets.transformer.families_common import (
    EVENT_SHARE,
    WINDOW_STATED,
    asset_with_work_orders,
    assets_call,
    hi_args,
    iso_day,
    label,
    nameplate_of,
    oil_call,
    wo_window,
)
from assets.transformer.families_fmsr import RULE_INDEX_NOTE, hi_estimates
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
    history_call,
    num,
    pick,
    window_end_readings,
)

RESPONSE_HOURS = 24  # corrective work reported within this long after the first alert
CALENDAR_RESPONSE = "response_by_next_calendar_day"
OVERLOAD_UNBROKEN = "overload_from_the_unbroken_run_before_the_alert"
HOUR_END_RECORD = "record_of_the_alert_hour_included"
LOAD_MARGIN_PCT = 0.5  # load factor readings this close to 100 % decide nothing
MODEL_INDEX = "model_index"
WITHOUT_ACIDITY = "oil_quality_without_acidity"
COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(str(value)[:19])


# -- event chain of one day: alarms → trip → corrective work ---------------------------------


async def _alert_days(ctx: FamilyContext, a: GroundedAsset) -> list[str]:
    """Days (YYYY-MM-DD) on which the asset logged alarm or trip events."""
    out = await ctx.run1("get_events", equipment_id=a.asset_id)
    return sorted({str(e["event_time"])[:10] for e in out["events"] if e["event_group"] == "ALERT"})


def chain_of(
    events: list[dict[str, Any]], orders: list[dict[str, Any]], calendar: bool = False
) -> dict[str, Any]:
    """The ordered chain of a day: its alerts up to the (single) trip and the corrective work
    orders reported within 24 hours of the first alert (``calendar``: by the end of the next
    calendar day instead).

    Raises:
        Ambiguous: No alert, more than one trip, or alerts after the trip that day.
    """
    alerts = sorted(
        (e for e in events if e["event_group"] == "ALERT"), key=lambda e: str(e["event_time"])
    )
    if not alerts:
        raise Ambiguous("no alert that day")
    trips = [e for e in alerts if "TRIP" in str(e["event_type"])]
    if len(trips) > 1:
        raise Ambiguous("more than one trip that day")
    if trips and alerts[-1] is not trips[0]:
        raise Ambiguous("alerts after the trip")
    first = _ts(alerts[0]["event_time"])
    limit = (
        datetime.combine(first.date() + timedelta(days=2), datetime.min.time())
        if calendar else first + timedelta(hours=RESPONSE_HOURS)
    )
    response = [
        o for o in sorted(orders, key=lambda o: (str(o["reported_date"]), str(o["wo_id"])))
        if first <= _ts(o["reported_date"]) <= limit
    ]
    steps = [{"time": str(e["event_time"]), "step": str(e["event_type"])} for e in alerts]
    steps += [{"time": str(o["reported_date"]), "step": str(o["wo_id"])} for o in response]
    steps.sort(key=lambda s: s["time"])
    return {
        "chain": steps,
        "tripped": bool(trips),
        "work_orders": [str(o["wo_id"]) for o in response],
        "_response": response,
    }


def _chain_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    events, corrective = outputs[0], outputs[1]
    calendar = params.get("reading") == CALENDAR_RESPONSE
    answer = chain_of(events["events"], corrective["work_orders"], calendar)
    answer.pop("_response")
    return answer


def _chain_text(answer: dict[str, Any]) -> str:
    return " → ".join(f"{s['step']} {s['time']}" for s in answer["chain"])


def _chain_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{params['asset_id']} on {params['day']}: {_chain_text(answer)}; tripped: "
        f"{'yes' if answer['tripped'] else 'no'}; corrective work within 24 h of the first "
        f"alert: {and_join(answer['work_orders'])}"
    )


def chain_outcome(answer: dict[str, Any]) -> str:
    """trip (the chain ends in a trip), answered (alarms followed by corrective work within a
    day) or unanswered (alarms, no corrective work within a day)."""
    if answer["tripped"]:
        return "trip"
    return "answered" if answer["work_orders"] else "unanswered"


def chain_calls(asset_id: str, event_day: str) -> list[ToolCall]:
    """The day's events and the corrective work orders of that day and the next."""
    d = day(event_day)
    return [
        ToolCall(name="get_events", args={
            "equipment_id": asset_id, "start_date": event_day,
            "end_date": iso_day(d + timedelta(days=1)),
        }),
        ToolCall(name="get_corrective_work_orders", args={
            "equipment_id": asset_id, "start_date": event_day,
            "end_date": iso_day(d + timedelta(days=2)),
        }),
    ]


@family(
    "wo_alarm_chain",
    domain="wo",
    category="Data Query",
    derive=_chain_derive,
    summarise=_chain_summary,
    outcome=chain_outcome,
)
async def alarm_chain(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """What happened on a unit on a day it alarmed or tripped: the alerts in time order, up to
    the trip, and the corrective work reported within 24 hours of the first alert.

    The day is one the unit logged alerts on; a day with two trips, or alerts after the trip,
    is dropped (the text could mean either trip). Stated reading: "within a day" counted to
    the end of the next calendar day.
    """
    candidates = [(a, d) for a in ctx.assets for d in await _alert_days(ctx, a)]
    if not candidates:
        return None
    a, event_day = pick(rng, candidates)
    calls = chain_calls(a.asset_id, event_day)
    tripped = any(
        "TRIP" in str(e["event_type"]) for e in (await ctx.run(calls[:1]))[0]["events"]
    )
    params = {"asset_id": a.asset_id, "site": a.site_name, "day": event_day, "tripped": tripped}
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, event_day],
        grounding={"asset_id": a.asset_id, "start": event_day},
        difficulty="hard",
        hard_features=["multi_output"],
        readings=[Reading(
            name=CALENDAR_RESPONSE,
            description="counts corrective work reported up to the end of the day after the "
            "first alert, not within 24 hours of it",
            params={"reading": CALENDAR_RESPONSE},
        )],
        stated=[CALENDAR_RESPONSE],
    )


# -- multi-agent: loading before the first alert, and which order closed the event ----------


def overload_before(
    records: list[dict[str, Any]], rated_mva: float, until: datetime, reading: str | None = None
) -> tuple[str | None, float]:
    """(first record of ``until``'s day with the load above the rating, or None; peak load
    factor in % over that day's records) up to the record at or before ``until``.

    Readings: :data:`OVERLOAD_UNBROKEN` dates the overload from the start of the unbroken run
    above the rating that ends at the last record read (None when that record is not above
    it); :data:`HOUR_END_RECORD` also reads the first record after ``until`` (the hour the
    alert fell in, stamped at its end).

    Raises:
        Ambiguous: A deciding reading within 0.5 % of the rating (the load's precision: S
            from rounded voltages and currents), or no record that day.
    """
    first_day = until.date().isoformat()
    rows = [(str(r["timestamp"]), float(r["load_mva"]) / rated_mva * 100.0) for r in records
            if r.get("load_mva") is not None and str(r["timestamp"])[:10] == first_day]
    keep = [(t, k) for t, k in rows if _ts(t) <= until]
    if reading == HOUR_END_RECORD:
        later = [(t, k) for t, k in rows if _ts(t) > until]
        keep += later[:1]
    if not keep:
        raise Ambiguous("no load record that day before the alert")
    above = [i for i, (_, k) in enumerate(keep) if k > 100.0]
    if reading == OVERLOAD_UNBROKEN:
        above = []
        i = len(keep) - 1
        while i >= 0 and keep[i][1] > 100.0:
            above.insert(0, i)
            i -= 1
    decide = keep[: above[0] + 1] if above else keep
    if any(abs(k - 100.0) <= LOAD_MARGIN_PCT for _, k in decide):
        raise Ambiguous("a load reading within the precision of the rating")
    peak = round(max(k for _, k in keep), 1)
    return (keep[above[0]][0] if above else None), peak


def _trip_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    events, corrective, plates, hist = outputs
    chain = chain_of(events["events"], corrective["work_orders"])
    rated = nameplate_of(plates, params["asset_id"]).get("rated_mva")
    if not rated:
        raise Ambiguous("no rating on the nameplate")
    first = _ts(chain["chain"][0]["time"])
    start, peak = overload_before(hist["records"], float(rated), first, params.get("reading"))
    response = chain.pop("_response")
    closed = max(
        (o for o in response if o.get("actual_finish")),
        key=lambda o: (str(o["actual_finish"]), str(o["wo_id"])),
        default=None,
    )
    return chain | {
        "overload_start": start,
        "peak_load_pct": peak,
        "closed_by": str(closed["wo_id"]) if closed else None,
        "closed_at": str(closed["actual_finish"]) if closed else None,
    }


def _trip_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    load = (
        f"load first above its {num(params['rated_mva'], 1)} MVA rating that day at "
        f"{answer['overload_start']}" if answer["overload_start"]
        else f"load not above its {num(params['rated_mva'], 1)} MVA rating that day"
    ) + f", peak {num(answer['peak_load_pct'], 1)} % of rating before the first alert"
    closed = (
        f"closed by {answer['closed_by']} finished {answer['closed_at']}"
        if answer["closed_by"] else "no corrective work within 24 h"
    )
    trip = "tripped" if answer["tripped"] else "no trip"
    return (f"{params['asset_id']} on {params['day']}: {load}; {_chain_text(answer)} "
            f"({trip}); {closed}")


def trip_outcome(answer: dict[str, Any]) -> str:
    """overload_trip, overload_alarm (overload, alarms, no trip) or no_overload (the alert
    came without the load above its rating: look at cooling or a thermal fault)."""
    if answer["overload_start"] is None:
        return "no_overload"
    return "overload_trip" if answer["tripped"] else "overload_alarm"


@family(
    "ma_trip_reconstruction",
    domain="multiagent",
    category="Diagnostic Assessment",
    derive=_trip_derive,
    summarise=_trip_summary,
    compose_from=("wo_alarm_chain",),
    outcome=trip_outcome,
)
async def trip_reconstruction(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Why a unit alarmed or tripped: when that day the load first went above the nameplate
    rating and its peak (% of rating) before the first alert, the alerts in order, the
    corrective work within 24 hours and the order that closed the event (finished last).

    Stated readings (the text says "first ... that day" and "readings before the first
    alarm"): the overload dated from the unbroken run before the alert, and the record
    stamped at the end of the alert's hour included. Draws whose deciding load readings lie
    within 0.5 % of the rating are dropped.
    """
    if not parents:
        return None
    parent = parents[0]
    p = parent.params
    a = ctx.asset(p["asset_id"])
    d = day(p["day"])
    plates = assets_call(a.site_name)
    rated = nameplate_of((await ctx.run([plates]))[0], a.asset_id).get("rated_mva")
    if not rated:
        return None
    # Every telemetry sensor of the two days (the request names no sensor; the load is read).
    hist = history_call(a, iso_day(d - timedelta(days=1)), iso_day(d + timedelta(days=1)), None)
    calls = [*parent.tool_sequence[:2], plates, hist]
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "day": p["day"], "tripped": p["tripped"],
        "rated_mva": float(rated),
    }
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, a.site_name, p["day"]],
        grounding={"site": a.site_name, "asset_id": a.asset_id, "start": p["day"]},
        difficulty="hard",
        hard_features=["multi_output"],
        tolerance={"peak_load_pct": 0.5},
        readings=[
            Reading(
                name=OVERLOAD_UNBROKEN,
                description="dates the overload from the start of the unbroken run above the "
                "rating that leads into the first alarm",
                params={"reading": OVERLOAD_UNBROKEN},
            ),
            Reading(
                name=HOUR_END_RECORD,
                description="also reads the load record stamped at the end of the hour the "
                "first alarm fell in",
                params={"reading": HOUR_END_RECORD},
            ),
        ],
        stated=[OVERLOAD_UNBROKEN, HOUR_END_RECORD],
    )


# -- health ranking of a site's units --------------------------------------------------------


def _scope_units(ctx: FamilyContext, site: str | None) -> list[GroundedAsset]:
    return [
        a for a in ctx.assets
        if (site is None or a.site_name == site) and a.covered("oil_sample").start
    ]


def unit_scores(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, float]:
    """Unit → health index of its latest sample, from the (oil, index) output pairs."""
    scores: dict[str, float] = {}
    for unit, oil, hi in zip(params["units"], outputs[0::2], outputs[1::2], strict=False):
        if not oil["records"]:
            raise Ambiguous(f"no oil sample of {unit}")
        rule, other = hi_estimates(hi)
        value = other[0] if params.get("reading") == MODEL_INDEX and other else rule[0]
        scores[unit] = value
    if len(scores) != len(params["units"]):
        raise Ambiguous("an index is missing")
    return scores


def tied_groups(scores: dict[str, float], margin: float = 1e-9) -> list[list[str]]:
    """Units grouped by equal score, worst (lowest) first; ids sorted inside a group.

    Raises:
        Ambiguous: Two different scores closer than ``margin`` (a near-tie).
    """
    ordered = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]))
    groups: list[list[str]] = []
    last: float | None = None
    for unit, value in ordered:
        if last is not None and value == last:
            groups[-1].append(unit)
        elif last is not None and value - last <= margin:
            raise Ambiguous("two scores within the index's precision")
        else:
            groups.append([unit])
        last = value
    return groups


def _rank_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    scores = unit_scores(params, outputs)
    # The rule score is a multiple of 100/32 (see the module docstring); the model's estimate
    # is continuous, so within its 0.5 tolerance two units cannot be told apart.
    margin = 0.5 if params.get("reading") == MODEL_INDEX else 1e-9
    groups = tied_groups(scores, margin)
    ranking = [
        {"units": g, "health_index": round(scores[g[0]], 3)} for g in groups
    ]
    if params["ask"] == "worst":
        return {"worst": ranking[0]["units"], "health_index": ranking[0]["health_index"]}
    return {"ranking": ranking}


def _rank_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    if "worst" in answer:
        return (
            f"worst health of {params['scope_text']}: {and_join(answer['worst'])} (health "
            f"index {num(answer['health_index'], 1)})"
        )
    parts = [
        f"{' = '.join(g['units'])} ({num(g['health_index'], 1)})" for g in answer["ranking"]
    ]
    return f"health ranking of {params['scope_text']}, worst first: " + " < ".join(parts)


def rank_outcome(answer: dict[str, Any]) -> str:
    """all_equal (every unit scores the same), tie_at_bottom (the worst score is shared) or
    ranked."""
    if "worst" in answer:
        return "tie_at_bottom" if len(answer["worst"]) > 1 else "ranked"
    if len(answer["ranking"]) == 1:
        return "all_equal"
    return "tie_at_bottom" if len(answer["ranking"][0]["units"]) > 1 else "ranked"


async def ranking_calls(
    ctx: FamilyContext, units: list[GroundedAsset]
) -> tuple[list[ToolCall], list[ToolCall]] | None:
    """(oil, index) calls per unit on its latest sample, and the same index calls without
    acidity (empty when no sample carries it); None when a sample lacks a scored field."""
    calls: list[ToolCall] = []
    without: list[ToolCall] = []
    any_acidity = False
    for a in units:
        oil = oil_call(a)
        records = (await ctx.run([oil]))[0]["records"]
        if not records:
            return None
        args = hi_args(a.asset_id, records[-1])
        if args is None:
            return None
        any_acidity |= "acidity" in args
        plain = {k: v for k, v in args.items() if k != "acidity"}
        calls += [oil, ToolCall(name="predict_health_index", args=args)]
        without += [oil, ToolCall(name="predict_health_index", args=plain)]
    return calls, (without if any_acidity else [])


def ranking_readings(without: list[ToolCall]) -> list[Reading]:
    """The learned model's index (stated by the note) and the score without acidity (gated)."""
    readings = [Reading(
        MODEL_INDEX,
        "ranks by the learned model's health index instead of the rule score",
        params={"reading": MODEL_INDEX},
    )]
    if without:
        readings.append(Reading(
            WITHOUT_ACIDITY, "scores the oil-quality factor without the samples' acidity",
            tool_sequence=without,
        ))
    return readings


@family(
    "fmsr_fleet_health_ranking",
    domain="fmsr",
    category="Diagnostic Assessment",
    derive=_rank_derive,
    summarise=_rank_summary,
    outcome=rank_outcome,
    trivial=("all_equal",),
)
async def fleet_health_ranking(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Rank the units of a site (or the whole fleet) by the health index of each unit's latest
    oil sample, worst first, with equal scores stated as ties; or name the worst unit(s).

    Gated reading: the oil-quality factor scored without acidity. Stated: the rule score, not
    the learned model's estimate (the note pins it).
    """
    sites = sorted({a.site_name for a in ctx.assets})
    if not sites:
        return None
    # The whole fleet only when it spans several sites (else it is one site's question).
    whole = len(sites) > 1 and len(ctx.assets) <= 12 and rng.random() < 0.25
    site = None if whole else pick(rng, sites)
    units = _scope_units(ctx, site)
    if len(units) < 2:
        return None
    built = await ranking_calls(ctx, units)
    if built is None:
        return None
    calls, without = built
    ask = "worst" if rng.random() < 0.35 else "ranking"
    scope_text = "the whole fleet" if site is None else f"site {site}"
    params: dict[str, Any] = {
        "units": [a.asset_id for a in units], "scope": "fleet" if whole else "site",
        "scope_text": scope_text, "ask": ask, "note": RULE_INDEX_NOTE,
    } | ({"site": site} if site else {})
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=([site] if site else []) + [RULE_INDEX_NOTE],
        grounding={"site": site} if site else {},
        difficulty="hard",
        hard_features=["multi_output"],  # several units and their scores either way
        tolerance={"health_index": 0.5, "ranking": 0.5},
        readings=ranking_readings(without),
        stated=[MODEL_INDEX],
    )


# -- outage priority under a budget ----------------------------------------------------------


def _priority_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    n_units = len(params["units"])
    scores = unit_scores(params, outputs[: 2 * n_units])
    margin = 0.5 if params.get("reading") == MODEL_INDEX else 1e-9
    tied_groups(scores, margin)  # raises on a near-tie of different scores
    years: dict[str, int] = {}
    for plates in outputs[2 * n_units:]:
        for x in plates["assets"]:
            year = (x.get("nameplate") or {}).get("year_installed")
            if x["asset_id"] in scores and year is not None:
                years[x["asset_id"]] = int(year)
    if set(years) != set(scores):
        raise Ambiguous("an installation year is missing")
    order = sorted(scores, key=lambda u: (scores[u], years[u]))
    budget = int(params["budget"])
    key = [(scores[u], years[u]) for u in order]
    # Equal score and year inside the chosen set or across the cut: no single answer.
    for i in range(min(budget, len(order) - 1)):
        if key[i] == key[i + 1]:
            raise Ambiguous("two units tie on score and installation year")
    chosen = order[:budget]
    tie_broken = any(
        scores[order[i]] == scores[order[i + 1]] for i in range(min(budget, len(order) - 1))
    )
    return {
        "chosen": chosen,
        "health_index": {u: round(scores[u], 3) for u in chosen},
        "tie_broken_by_age": tie_broken,
    }


def _priority_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    listed = ", ".join(
        f"{u} ({num(answer['health_index'][u], 1)})" for u in answer["chosen"]
    )
    text = f"take out first, {params['budget']} of {params['scope_text']}: {listed}"
    return text + ("; equal scores decided by installation year" if answer["tie_broken_by_age"]
                   else "")


def priority_outcome(answer: dict[str, Any]) -> str:
    """by_age (an equal score was decided by installation year) or by_score."""
    return "by_age" if answer["tie_broken_by_age"] else "by_score"


@family(
    "ma_outage_priority",
    domain="multiagent",
    category="Decision Support",
    derive=_priority_derive,
    summarise=_priority_summary,
    compose_from=("fmsr_fleet_health_ranking",),
    outcome=priority_outcome,
    roles=("manager",),
)
async def outage_priority(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which units to take out first when only N outages fit: worst health index of the latest
    oil sample first, equal scores by installation year (older first); the ordered chosen set.

    The budget is drawn below the number of units. A draw whose cut (or order inside the
    chosen set) falls on units equal in score and year is dropped. Stated reading: the
    learned model's index (the note asks for the rule score); gated: no acidity.
    """
    if not parents:
        return None
    p = parents[0].params
    units: list[str] = list(p["units"])
    if len(units) < 2:
        return None
    budget = int(rng.integers(1, min(len(units) - 1, 4) + 1))
    n_calls = 2 * len(units)
    ranking_seq = list(parents[0].tool_sequence[:n_calls])
    sites = sorted({ctx.asset(u).site_name for u in units})
    plates = [assets_call(s) for s in sites]
    without = [
        ToolCall(name=c.name, args={k: v for k, v in c.args.items() if k != "acidity"})
        for c in ranking_seq
    ]
    has_acidity = any("acidity" in c.args for c in ranking_seq)
    site = p.get("site")
    params: dict[str, Any] = ({"site": site} if site else {}) | {
        "units": units, "scope": p["scope"], "scope_text": p["scope_text"],
        "budget": budget, "budget_text": COUNT_WORDS[budget] + (" unit" if budget == 1
                                                                else " units"),
        "note": RULE_INDEX_NOTE,
    }
    return Plan(
        params=params,
        tool_sequence=[*ranking_seq, *plates],
        mentions=([site] if site else []) + [COUNT_WORDS[budget], RULE_INDEX_NOTE],
        grounding={"site": site} if site else {},
        difficulty="hard",
        hard_features=["constraint", "multi_output"],
        constraint=f"choose {COUNT_WORDS[budget]}: lowest health index first, and between equal "
        "scores the older unit (earlier installation) first",
        tolerance={"health_index": 0.5},
        readings=ranking_readings([*without, *plates] if has_acidity else []),
        stated=[MODEL_INDEX],
    )


# -- failure modes behind a symptom ------------------------------------------------------------


def _symptom_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    wanted = set(params["sensors"])
    modes = [m for m in outputs[0]["failure_modes"] if wanted <= set(m["sensors"])]
    return {
        "failure_modes": sorted(str(m["id"]) for m in modes),
        "failure_codes": {str(m["id"]): str(m["failure_code"]) for m in modes},
    }


def _symptom_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    listed = [f"{m} ({answer['failure_codes'][m]})" for m in answer["failure_modes"]]
    return (
        f"failure modes of {params['asset_id']} revealed by {' and '.join(params['sensors'])}: "
        f"{and_join(listed)}"
    )


def symptom_outcome(answer: dict[str, Any]) -> str:
    """none, single (one mode fits) or several."""
    n = len(answer["failure_modes"])
    return "none" if n == 0 else ("single" if n == 1 else "several")


@family(
    "fmsr_symptom_failure_modes",
    domain="fmsr",
    category="Knowledge Query",
    derive=_symptom_derive,
    summarise=_symptom_summary,
    outcome=symptom_outcome,
    trivial=("none",),
)
async def symptom_failure_modes(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which failure modes of a unit's class a symptom on one sensor (or on two at once) could
    point to, with the failure code a work order for each would carry."""
    if not ctx.assets:
        return None
    a = pick(rng, ctx.assets)
    call = ToolCall(name="get_failure_modes", args={"asset_name": a.asset_id})
    modes = (await ctx.run([call]))[0]["failure_modes"]
    # Levels only: an alarm or trip contact is an event, not a symptom that "drifts".
    present = {s.name for s in ctx.profile.inventory.sensors if s.unit != "flag"}
    revealing = sorted({s for m in modes for s in m["sensors"]} & present)
    if not revealing:
        return None
    first = pick(rng, revealing)
    sensors = [first]
    if rng.random() < 0.35:
        partners = sorted({s for m in modes if first in m["sensors"] for s in m["sensors"]}
                          & present - {first})
        if partners:
            sensors.append(pick(rng, partners))
    both = len(sensors) == 2
    params = {
        "asset_id": a.asset_id, "site": a.site_name, "sensors": sensors,
        "sensor": sensors[0], "sensor_label": label(ctx, sensors[0]),
        "sensor2": sensors[1] if both else "",
        "sensor2_label": label(ctx, sensors[1]) if both else "", "both": both,
    }
    return Plan(
        params=params,
        tool_sequence=[call],
        mentions=[a.asset_id, *sensors],
        grounding={"asset_id": a.asset_id, "sensor": sensors[0]},
        difficulty="medium" if both else "easy",
        hard_features=["constraint"] if both else [],
        constraint=f"only failure modes that both {sensors[0]} and {sensors[1]} reveal"
        if both else None,
    )


# -- failure modes behind a unit's corrective work ---------------------------------------------


def _wo_modes_derive(params: dict[str, Any], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    corrective, catalogue = outputs
    codes = sorted({str(o["primary_code"]) for o in corrective["work_orders"]})
    modes = [m for m in catalogue["failure_modes"] if m["failure_code"] in codes]
    return {
        "work_orders": len(corrective["work_orders"]),
        "codes": codes,
        "failure_modes": sorted(str(m["id"]) for m in modes),
        "sensors": sorted({str(s) for m in modes for s in m["sensors"]}),
    }


def _wo_modes_summary(params: dict[str, Any], answer: dict[str, Any]) -> str:
    return (
        f"{answer['work_orders']} corrective work orders of {params['asset_id']} in "
        f"[{params['start']}, {params['end']}), codes {and_join(answer['codes'])}; failure "
        f"modes {and_join(answer['failure_modes'])}; sensors to watch "
        f"{and_join(answer['sensors'])}"
    )


def wo_modes_outcome(answer: dict[str, Any]) -> str:
    """none (no corrective work), unmapped (no code names a failure mode) or mapped."""
    if answer["work_orders"] == 0:
        return "none"
    return "mapped" if answer["failure_modes"] else "unmapped"


@family(
    "wo_workorder_failure_modes",
    domain="wo",
    category="Knowledge Query",
    derive=_wo_modes_derive,
    summarise=_wo_modes_summary,
    outcome=wo_modes_outcome,
    trivial=("none",),
)
async def workorder_failure_modes(
    ctx: FamilyContext, rng: np.random.Generator, parents: list[TaskSeed]
) -> Plan | None:
    """Which failure modes a unit's corrective work in a window points to (by failure code)
    and which sensors reveal them, i.e. what to watch from now on.

    Mostly (70 %) a unit with corrective work and a window holding some. Window-end readings
    are stated by the text.
    """
    with_work = [
        x for x in ctx.assets
        if (await ctx.run1("get_corrective_work_orders", equipment_id=x.asset_id))["count"]
    ]
    eventful = bool(with_work) and rng.random() < EVENT_SHARE
    a = pick(rng, with_work) if eventful else asset_with_work_orders(ctx, rng)
    if a is None:
        return None
    out = await ctx.run1("get_corrective_work_orders", equipment_id=a.asset_id)
    days = sorted({day(o["reported_date"]) for o in out["work_orders"]})
    around = pick(rng, days) if days and eventful else None
    window = wo_window(a, rng, 7, around)
    if window is None:
        return None
    start, end = window
    calls = [
        ToolCall(name="get_corrective_work_orders",
                 args={"equipment_id": a.asset_id, "start_date": start, "end_date": end}),
        ToolCall(name="get_failure_modes", args={"asset_name": a.asset_id}),
    ]
    params = {"asset_id": a.asset_id, "site": a.site_name, "start": start, "end": end}
    return Plan(
        params=params,
        tool_sequence=calls,
        mentions=[a.asset_id, start, end],
        grounding={"asset_id": a.asset_id, "start": start, "end": end},
        difficulty="medium",
        hard_features=["multi_output"],
        readings=window_end_readings(calls, "end_date", end),
        stated=WINDOW_STATED,
    )
